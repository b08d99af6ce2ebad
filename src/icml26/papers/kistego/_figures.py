"""Figures of the [P22] checks: image grids of secrets, shares, stego images and reconstructions."""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.figures import FigureData, new_figure, render

__all__ = ["fidelity_figure", "stego_figure"]


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
