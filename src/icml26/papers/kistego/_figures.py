"""Figures of the [P22] checks: image grids of secrets, shares, stego images and reconstructions; the capacity /
security trade-off curve."""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.figures import FigureData, new_figure, render

__all__ = ["cover_stego_figure", "fidelity_figure", "stego_figure", "tradeoff_figure"]


def _grid(columns: dict[str, np.ndarray], rows: int, *, name: str, caption: str) -> FigureData:
    fig, ax = new_figure(width=1.3 * len(columns) + 0.5, height=1.3 * rows + 0.6)
    ax.axis("off")
    cols = list(columns)
    for j, title in enumerate(cols):
        imgs = columns[title]
        for i in range(min(rows, len(imgs))):
            sub = fig.add_subplot(rows, len(cols), i * len(cols) + j + 1)
            sub.imshow(imgs[i], cmap="gray", vmin=0, vmax=1, interpolation="nearest")
            sub.set_xticks([])
            sub.set_yticks([])
            if i == 0:
                sub.set_title(title, fontsize=9)
    return render(fig, name=name, caption=caption)


def stego_figure(run: dict[str, Any], right: np.ndarray, wrong: np.ndarray, rows: int = 4) -> FigureData:
    """Secret, shares, stego, channel output, extracted shares; the keyed baseline's reveal with right/wrong key."""
    cols = {"secret": run["secrets"], "shares B": run["bits"], "stego": run["stego"], "after channel": run["distorted"],
            "extracted B̂": run["extracted"], "keyed: right key": np.clip(right, 0, 1),
            "keyed: wrong key": np.clip(wrong, 0, 1)}
    return _grid(cols, rows, name="stego_and_extraction",
                 caption="Per row one secret: its halftone shares, the stego image generated under structural "
                         "guidance, the image after 8-bit rounding, JPEG-like quantisation and noise, the shares "
                         "extracted without a key, and the key-dependent DDIM-inversion baseline's reveal.")


def fidelity_figure(shown: dict[str, Any], best: str, rows: int = 4) -> FigureData:
    """Secret, extracted shares, posterior-sampling reconstruction, the strongest descreening baseline."""
    cols = {"secret": shown.get("secrets", np.zeros((0, 1, 1))), "extracted B̂": shown.get("bits", np.zeros((0, 1, 1))),
            "posterior sampling": shown.get("dps", np.zeros((0, 1, 1)))}
    if best in shown:
        cols[best] = shown[best]
    return _grid(cols, rows, name="reconstructions",
                 caption="Secrets, the binary shares extracted after the channel, the measurement-posterior-sampling "
                         f"reconstruction, and the strongest descreening baseline ({best}).")


def tradeoff_figure(curve: dict[float, dict[str, float]], op: dict[str, Any]) -> FigureData:
    """Per embedding strength ζ: bit accuracy after the channel (test secrets) and both steganalysers' AUC."""
    fig, ax = new_figure(width=5.5, height=3.4)
    gs = sorted(curve)
    ax.plot(gs, [curve[g]["acc_distorted"] for g in gs], "o-", label="bit accuracy after channel (test)")
    cal = op.get("calibration_accuracy", {})
    ax.plot(sorted(cal), [cal[g] for g in sorted(cal)], "o:", label="bit accuracy after channel (calibration)")
    ax.plot(gs, [curve[g]["logistic"] for g in gs], "s-", label="AUC logistic on residuals")
    ax.plot(gs, [curve[g]["cnn"] for g in gs], "^-", label="AUC residual CNN")
    ax.axhline(0.95, color="grey", ls="--", lw=0.8)
    ax.axhline(0.65, color="red", ls="--", lw=0.8)
    ax.axvline(float(op["guidance"]), color="black", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("embedding strength ζ (structural guidance step)")
    ax.set_ylim(0.3, 1.02)
    ax.legend(fontsize=7, loc="lower right")
    return render(fig, name="capacity_security_tradeoff",
                  caption="Capacity / security trade-off: per guidance strength, mean bit accuracy after the channel "
                          "and the steganalysers' AUC (chance 0.5); dashed lines: the 0.95 extraction target of the "
                          f"operating-point rule and the 0.65 AUC bar; vertical line: the operating point ζ = "
                          f"{float(op['guidance']):g}.")


def cover_stego_figure(shown: dict[str, Any], guidance: float, rows: int = 4) -> FigureData:
    """Unguided samples beside stego images at the operating point, and 5x-amplified median residuals of each."""
    from scipy.ndimage import median_filter

    c, s = shown.get("covers", np.zeros((0, 1, 1))), shown.get("stegos", np.zeros((0, 1, 1)))

    def res(x: np.ndarray) -> np.ndarray:
        return np.clip(0.5 + 5 * (x - median_filter(x, size=(1, 3, 3), mode="reflect")), 0, 1) if len(x) else x

    cols = {"unguided sample": c, "stego": s, "residual x5 (sample)": res(c[:rows]), "residual x5 (stego)": res(s[:rows])}
    return _grid(cols, rows, name="cover_vs_stego",
                 caption=f"Unguided samples of the prior and stego images at the operating point ζ = {guidance:g} "
                         "(different secrets and seeds), with their median-filter residuals amplified 5x: what "
                         "the steganalysers see.")
