"""Figures travel inside a claim's record as text (SVG) and bytes (PNG), so workers never write files.

A check builds a matplotlib figure and calls :func:`render`; the driver writes the files under the output folder.
SVG output is deterministic for the same figure (fixed hash salt, no date).
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["MIN_FONT_PT", "STYLE", "FigureData", "render", "new_figure"]

_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
#: no text in a figure is smaller than this (a 6-inch figure shown ~600 px wide keeps labels >= ~11 px)
MIN_FONT_PT = 9.0
#: one look across papers
STYLE = {"font.size": 10.0, "axes.titlesize": 11.0, "axes.labelsize": 10.0, "legend.fontsize": 9.0,
         "xtick.labelsize": 9.0, "ytick.labelsize": 9.0, "axes.grid": True, "grid.alpha": 0.3,
         "axes.spines.top": False, "axes.spines.right": False, "figure.facecolor": "white"}


@dataclass(frozen=True)
class FigureData:
    """A rendered figure: ``name`` (file stem), ``caption``, ``svg`` text and ``png`` bytes."""

    name: str
    caption: str
    svg: str
    png: bytes

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"figure name must match {_NAME.pattern}, got {self.name!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form: the SVG as text, the PNG as base64."""
        return {"name": self.name, "caption": self.caption, "svg": self.svg, "png_b64": base64.b64encode(self.png).decode()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FigureData:
        return cls(name=d["name"], caption=d.get("caption", ""), svg=d.get("svg", ""), png=base64.b64decode(d.get("png_b64", "")))


def new_figure(*, width: float = 6.0, height: float = 4.0) -> tuple[Any, Any]:
    """A fresh ``(fig, ax)`` on the non-interactive Agg backend (no pyplot global state), in the shared style."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(dict(STYLE)):  # type: ignore[arg-type]
        fig = Figure(figsize=(width, height), dpi=100)
        ax = fig.add_subplot(1, 1, 1)
    return fig, ax


def _legible(fig: Any) -> None:
    """Raise every text of ``fig`` (titles, labels, tick labels, legends, annotations) to :data:`MIN_FONT_PT`."""
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if t.get_text() and t.get_fontsize() < MIN_FONT_PT:
            t.set_fontsize(MIN_FONT_PT)


def render(fig: Any, *, name: str, caption: str = "") -> FigureData:
    """Render a matplotlib ``Figure`` to deterministic SVG text and PNG bytes (no text below :data:`MIN_FONT_PT`).

    ``caption`` is also the figure's alt text in the report: say what it shows.
    """
    import matplotlib

    _legible(fig)
    with matplotlib.rc_context({"svg.hashsalt": "icml26", "svg.fonttype": "none"}):
        fig.tight_layout()
        sbuf = io.StringIO()
        fig.savefig(sbuf, format="svg", metadata={"Date": None})
        pbuf = io.BytesIO()
        fig.savefig(pbuf, format="png", dpi=100, metadata={"Software": None})
    return FigureData(name=name, caption=caption, svg=sbuf.getvalue(), png=pbuf.getvalue())
