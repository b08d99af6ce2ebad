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


def stego_figure(run: dict[str, Any], right: np.ndarray, wrong: np.ndarray, keyed: np.ndarray,
                 rows: int = 4) -> FigureData:
    """Secret, shares, stego, channel output, extracted shares; the keyed baseline's stego and its reveal with the
    right and a wrong key."""
    cols = {"secret": run["secrets"], "shares B": run["bits"], "stego": run["stego"], "after channel": run["distorted"],
            "extracted B̂": run["extracted"], "keyed: stego": np.clip(keyed, 0, 1),
            "keyed: right key": np.clip(right, 0, 1), "keyed: wrong key": np.clip(wrong, 0, 1)}
    return _grid(cols, rows, name="stego_and_extraction",
                 caption="Per row one secret: its halftone shares, the stego image generated under structural "
                         "guidance, the image after 8-bit rounding, JPEG-like quantisation and noise, the shares "
                         "extracted without a key; the key-dependent DDIM-inversion baseline's stego and its reveal "
                         "with the right and a wrong key.")


def fidelity_figure(shown: dict[str, Any], best: str, rows: int = 4) -> FigureData:
    """Secret, extracted shares, posterior-sampling reconstruction, the strongest descreening baseline."""
    cols = {"secret": shown.get("secrets", np.zeros((0, 1, 1))), "extracted B̂": shown.get("bits", np.zeros((0, 1, 1))),
            "posterior sampling": shown.get("dps", np.zeros((0, 1, 1)))}
    if best in shown:
        cols[best] = shown[best]
    return _grid(cols, rows, name="reconstructions",
                 caption="Secrets, the binary shares extracted after the channel, the measurement-posterior-sampling "
                         f"reconstruction, and the strongest descreening baseline ({best}).")


def tradeoff_figure(curve: dict[str, dict[str, Any]], op: dict[str, Any]) -> FigureData:
    """Per layout and embedding strength ζ: bit accuracy after the channel (test secrets) against the larger of the
    three steganalysers' AUC, each layout a line from weak to strong; the operating point circled."""
    fig, ax = new_figure(width=9.0, height=3.6)
    fig.delaxes(ax)
    ax_acc, ax_sec = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for name, marker in (("pairs", "o"), ("projection", "s")):
        pts = sorted((v for v in curve.values() if v["layout"] == name), key=lambda v: v["strength"])
        if not pts:
            continue
        gs = [v["strength"] for v in pts]
        ax_acc.plot(gs, [v["acc_distorted"] for v in pts], marker + "-", label=f"{name}: bit accuracy")
        ax_acc.plot(gs, [v["logistic"] for v in pts], marker + ":", label=f"{name}: AUC logistic")
        ax_acc.plot(gs, [v["cnn"] for v in pts], marker + "--", label=f"{name}: AUC CNN")
        ax_acc.plot(gs, [v["readout"] for v in pts], marker + "-.", label=f"{name}: AUC layout read-out")
        ax_sec.plot([max(v["logistic"], v["cnn"], v["readout"]) for v in pts], [v["acc_distorted"] for v in pts], marker + "-",
                    label=f"{name} layout")
    at = curve.get(f"{op['layout']} {float(op['guidance']):g}")
    if at is not None:
        ax_sec.plot([max(at["logistic"], at["cnn"], at["readout"])], [at["acc_distorted"]], "o", ms=12, mfc="none", color="black",
                    label="operating point")
    ax_acc.set_xscale("log")
    ax_acc.set_xlabel("embedding strength ζ")
    ax_acc.set_ylim(0.3, 1.02)
    ax_acc.legend(fontsize=6, loc="lower right")
    ax_sec.axhline(0.95, color="grey", ls="--", lw=0.8)
    ax_sec.axvline(0.65, color="red", ls="--", lw=0.8)
    ax_sec.set_xlabel("steganalysis AUC (largest of the three detectors)")
    ax_sec.set_ylabel("bit accuracy after channel")
    ax_sec.legend(fontsize=7, loc="lower right")
    return render(fig, name="capacity_security_tradeoff",
                  caption="Capacity / security trade-off on the test secrets. Left: per layout and guidance strength, "
                          "bit accuracy after the channel and the three steganalysers' AUC (chance 0.5). Right: accuracy "
                          "against detectability, one line per layout; dashed: the 0.95 accuracy target of the "
                          "operating-point rule and the 0.65 AUC bar; circled: the operating point "
                          f"({op['layout']} layout, ζ = {float(op['guidance']):g}), chosen on calibration data.")


def cover_stego_figure(shown: dict[str, Any], point: str, rows: int = 4) -> FigureData:
    """Unguided samples beside stego images at the operating point, and 5x-amplified median residuals of each."""
    from scipy.ndimage import median_filter

    c, s = shown.get("covers", np.zeros((0, 1, 1))), shown.get("stegos", np.zeros((0, 1, 1)))

    def res(x: np.ndarray) -> np.ndarray:
        return np.clip(0.5 + 5 * (x - median_filter(x, size=(1, 3, 3), mode="reflect")), 0, 1) if len(x) else x

    cols = {"unguided sample": c, "stego": s, "residual x5 (sample)": res(c[:rows]), "residual x5 (stego)": res(s[:rows])}
    return _grid(cols, rows, name="cover_vs_stego",
                 caption=f"Unguided samples of the prior and stego images at the operating point ({point}) "
                         "(different secrets and seeds), with their median-filter residuals amplified 5x: what "
                         "the steganalysers see.")
