"""Rendering a Markdown memory to an image and fitting it to a visual-token budget ([P29], Sec. 3).

MemOCR shows its memory to the reader as an image: Markdown → page → pixels. A segment of ``L`` characters set at font
size ``s`` covers an area proportional to ``L·s²``; when the page is shrunk to a budget of ``B`` visual tokens (each a
``patch × patch`` tile, so ``B·patch²`` pixels), every font shrinks by the same factor
``√(B·patch² / (W·H))``. Large headings stay legible at budgets where body text has already gone.

Reconstructed: the paper renders through HTML in a headless browser; here Pillow draws a tiny Markdown subset
(``#``/``##`` headings and body paragraphs, word-wrapped) with the DejaVu fonts shipped inside matplotlib, so the
result is deterministic and needs no browser.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from icml26.common import validation

__all__ = ["DEFAULT_FONTS", "PATCH", "budget_scale", "page_size", "render_memory", "resize_to_budget"]

#: the visual patch side of the paper's reader (Qwen2.5-VL: 28 × 28 pixels per visual token)
PATCH = 28
#: font pixel sizes per Markdown block kind (notes of [P29]: headings 26 px, body 9 px)
DEFAULT_FONTS: Mapping[str, int] = {"h1": 26, "h2": 18, "body": 9}
_FILES = {"h1": "DejaVuSans-Bold.ttf", "h2": "DejaVuSans-Bold.ttf", "body": "DejaVuSans.ttf"}


@functools.lru_cache(maxsize=64)
def _font(kind: str, size: int) -> Any:
    """A loaded TrueType font (read-only, so loading it once per process is safe)."""
    import matplotlib
    from PIL import ImageFont

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / _FILES[kind]
    return ImageFont.truetype(str(path), size)


def _blocks(markdown: str) -> list[tuple[str, str]]:
    """(kind, text) blocks: ``# x`` → h1, ``## x`` → h2, consecutive other lines → one body paragraph."""
    out: list[tuple[str, str]] = []
    para: list[str] = []
    for raw in markdown.splitlines():
        line = raw.strip()
        kind = "h2" if line.startswith("## ") else "h1" if line.startswith("# ") else "body"
        if kind == "body" and line:
            para.append(line)
            continue
        if para:
            out.append(("body", " ".join(para)))
            para = []
        if kind != "body":
            out.append((kind, line.lstrip("#").strip()))
    if para:
        out.append(("body", " ".join(para)))
    return out


def _wrap(text: str, font: Any, width: int) -> list[str]:
    """Greedy word wrap to ``width`` pixels (a word longer than the line stays on its own line); a line's width is
    the sum of its words' and spaces' advances."""
    lines: list[str] = []
    cur: list[str] = []
    used = 0.0
    space = font.getlength(" ")
    for word in text.split():
        w = font.getlength(word)
        if cur and used + space + w > width:
            lines.append(" ".join(cur))
            cur, used = [word], w
        else:
            used += (space if cur else 0.0) + w
            cur.append(word)
    if cur:
        lines.append(" ".join(cur))
    return lines


def _check_fonts(fonts: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(fonts, Mapping):
        raise TypeError(f"fonts must be a mapping of block kind to pixel size, got {type(fonts).__name__}")
    unknown = set(fonts) - set(_FILES)
    if unknown:
        raise ValueError(f"fonts: unknown block kinds {sorted(unknown)}; known: {sorted(_FILES)}")
    sizes = {**DEFAULT_FONTS, **fonts}
    return {k: validation.int_at_least(v, f"fonts[{k!r}]", 4, hi=200) for k, v in sizes.items()}


def _layout(markdown: str, width: int, fonts: Mapping[str, int], margin: int
            ) -> tuple[list[tuple[int, Any, str, int]], int, int, int]:
    """The wrapped lines (block index, font, text, line height), the number of blocks, the checked width, margin."""
    if not isinstance(markdown, str):
        raise TypeError(f"markdown must be a str, got {type(markdown).__name__}")
    width = validation.int_at_least(width, "width", 32, hi=8192)
    margin = validation.int_at_least(margin, "margin", 0, hi=64)
    sizes = _check_fonts(fonts)
    blocks = _blocks(markdown)
    if not blocks:
        raise ValueError("markdown has no text to render")
    laid: list[tuple[int, Any, str, int]] = []
    loaded = {k: _font(k, sizes[k]) for k in {k for k, _ in blocks}}
    for b, (kind, text) in enumerate(blocks):
        font = loaded[kind]
        step = math.ceil(1.2 * sizes[kind])
        laid.extend((b, font, line, step) for line in _wrap(text, font, width - 2 * margin))
    return laid, len(blocks), width, margin


def page_size(markdown: str, *, width: int = 448, fonts: Mapping[str, int] = DEFAULT_FONTS,
              margin: int = 4) -> tuple[int, int]:
    """``(width, height)`` of :func:`render_memory`'s page for the same arguments, without drawing it ([P29] Sec. 3)."""
    laid, n_blocks, width, margin = _layout(markdown, width, fonts, margin)
    return width, 2 * margin + sum(h for *_, h in laid) + margin * (n_blocks - 1)


def render_memory(markdown: str, *, width: int = 448, fonts: Mapping[str, int] = DEFAULT_FONTS,
                  margin: int = 4) -> Any:
    """Render a Markdown memory to a grayscale page ([P29], Sec. 3 "memory rendering"; the Markdown→image step).

    Args:
        markdown: the memory; ``# `` lines are level-1 headings, ``## `` level-2, other lines body text (consecutive
            body lines form one word-wrapped paragraph). Must contain some text.
        width: page width in pixels (the paper's renderer: 448).
        fonts: pixel size per block kind (``h1``, ``h2``, ``body``); missing kinds take :data:`DEFAULT_FONTS`.
        margin: blank pixels around the page and between blocks.

    Returns:
        A ``PIL.Image.Image`` in mode ``L`` (white page, black text), ``width`` wide; the same input gives the same
        pixels.
    """
    from PIL import Image, ImageDraw

    laid, n_blocks, width, margin = _layout(markdown, width, fonts, margin)
    height = 2 * margin + sum(h for *_, h in laid) + margin * (n_blocks - 1)
    img = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(img)
    y = margin
    prev = -1
    for block, font, line, step in laid:
        y += margin if 0 <= prev != block else 0
        draw.text((margin, y), line, fill=0, font=font)
        y += step
        prev = block
    return img


def budget_scale(width: int, height: int, visual_tokens: int, *, patch: int = PATCH) -> float:
    """The linear shrink factor that fits a ``width × height`` page into ``visual_tokens`` patches ([P29], Sec. 3).

    ``s = min(1, √(B·patch² / (W·H)))``: the page's area after resizing is at most ``B·patch²`` pixels and a page
    already inside the budget is kept at its native size (as the released code's ``max_pixels`` cap does).
    """
    width = validation.positive_int(width, "width")
    height = validation.positive_int(height, "height")
    visual_tokens = validation.positive_int(visual_tokens, "visual_tokens")
    patch = validation.positive_int(patch, "patch")
    return min(1.0, math.sqrt(visual_tokens * patch * patch / (width * height)))


def resize_to_budget(img: Any, visual_tokens: int, *, patch: int = PATCH) -> Any:
    """Shrink a rendered memory to a budget of ``visual_tokens`` visual tokens ([P29], Sec. 3 "budget control").

    The aspect ratio is kept and both sides are rounded down, so the result has at most ``visual_tokens·patch²``
    pixels (and at least one pixel per side); Lanczos resampling. A page within the budget is returned unchanged.
    """
    from PIL import Image

    if not isinstance(img, Image.Image):
        raise TypeError(f"img must be a PIL.Image.Image, got {type(img).__name__}")
    w, h = img.size
    s = budget_scale(w, h, visual_tokens, patch=patch)
    if s >= 1.0:
        return img.copy()
    cap = visual_tokens * patch * patch
    nw, nh = max(1, math.floor(w * s)), max(1, math.floor(h * s))
    while nw * nh > cap and (nw > 1 or nh > 1):  # a 1-pixel side can round the area above the cap
        nw, nh = (nw - 1, nh) if nw >= nh else (nw, nh - 1)
        nw, nh = max(1, nw), max(1, nh)
    return img.resize((nw, nh), Image.Resampling.LANCZOS)
