"""The pixel-measuring tool of [P16]: what the paper's code interpreter does with an image crop, reduced to reading
one measure off the rendered array. It reads pixels only (never the generator's values): a pixel darker than
:data:`DARK` belongs to an object; grid lines, a line chart's joining line and the background are lighter.

- bars: the dark run up from the baseline in the three columns at the bar's centre (median);
- circles: the dark run through the centre along the two rows at the circle's centre (longest);
- lines: the midpoint of the dark run (the marker) in the column of the marked point;
- triangles: the three corners of the dark region (the largest triangle on its convex hull), refined by fitting
  a line to the boundary pixels of each edge away from the corners and moving it out by half a pixel (a boundary
  pixel's centre lies half a pixel inside the true edge on average), then the distance between the corners.

Each reading in pixels is divided by the layout's pixels per unit and rounded to a whole unit.
"""

from __future__ import annotations

import numpy as np

from icml26.common import validation
from icml26.papers.agent0vl._render import Layout

__all__ = ["DARK", "measure_object", "triangle_vertices"]

DARK = 0.5
CORNER_PX = 3.0  # boundary pixels within this distance of a corner are left out of an edge's line fit
BAND_PX = 1.5  # a boundary pixel belongs to an edge when it lies within this distance of the rough edge


def _image(image: np.ndarray, layout: Layout) -> np.ndarray:
    if not isinstance(layout, Layout):
        raise TypeError(f"layout must be a Layout, got {type(layout).__name__}")
    img = validation.real_array(image, "image", ndim=2)
    if img.shape != (layout.height, layout.width):
        raise ValueError(f"image: shape {img.shape} does not match the layout's {(layout.height, layout.width)}")
    return img


def _run_through(row: np.ndarray, c: int) -> int:
    """Length of the run of True through column ``c`` (0 when ``row[c]`` is False)."""
    if not row[c]:
        return 0
    left = c
    while left > 0 and row[left - 1]:
        left -= 1
    right = c
    while right + 1 < row.size and row[right + 1]:
        right += 1
    return right - left + 1


def _marker_height(col: np.ndarray, height: int) -> float:
    """Height above the bottom (pixels) of the middle of the longest dark run in a column (0 without one)."""
    best, start, best_mid = 0, -1, 0.0
    for r, d in enumerate(np.append(col, False)):
        if d and start < 0:
            start = r
        elif not d and start >= 0:
            if r - start > best:
                best, best_mid = r - start, (start + r) / 2
            start = -1
    return height - best_mid if best else 0.0


def _corners(pts: np.ndarray) -> np.ndarray:
    """The largest triangle with its corners on the convex hull of ``pts`` (all triples, by broadcasting)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = pts[ConvexHull(pts).vertices]
    except (QhullError, ValueError):
        raise ValueError("image: the dark region is too small or flat to be a triangle") from None
    d = hull[None, :, :] - hull[:, None, :]  # d[i, j] = hull[j] - hull[i]
    area = np.abs(d[:, :, None, 0] * d[:, None, :, 1] - d[:, :, None, 1] * d[:, None, :, 0])
    i, j, k = np.unravel_index(int(np.argmax(area)), area.shape)
    return hull[[i, j, k]]


def _refine(boundary: np.ndarray, rough: np.ndarray) -> np.ndarray:
    centre = rough.mean(axis=0)
    lines = []
    for k in range(3):
        p, q = rough[k], rough[(k + 1) % 3]
        length = float(np.linalg.norm(q - p))
        d = (q - p) / length
        normal = np.array([d[1], -d[0]]) * (1.0 if np.dot([d[1], -d[0]], p - centre) >= 0 else -1.0)
        t, off = (boundary - p) @ d, (boundary - p) @ normal
        edge = boundary[(np.abs(off) < BAND_PX) & (t > CORNER_PX) & (t < length - CORNER_PX)]
        if len(edge) >= 3:
            mid = edge.mean(axis=0)
            direction = np.linalg.svd(edge - mid)[2][0]
            n = np.array([direction[1], -direction[0]])
            n = n if np.dot(n, normal) >= 0 else -n
            lines.append((n, float(np.dot(n, mid)) + 0.5))
        else:
            lines.append((normal, float(np.dot(normal, p)) + 0.5))
    out = []
    for k in range(3):
        (n1, c1), (n2, c2) = lines[k - 1], lines[k]
        m = np.array([n1, n2])
        if abs(np.linalg.det(m)) < 1e-6:
            return rough
        out.append(np.linalg.solve(m, np.array([c1, c2])))
    return np.array(out)


def triangle_vertices(image: np.ndarray, layout: Layout) -> np.ndarray:
    """[P16] The pixel tool's reading of a triangle: its vertices A, B, C (left to right) as a ``(3, 2)`` array of
    (x, y) in units, y up from the bottom edge, found in the dark pixels (module docstring)."""
    img = _image(image, layout)
    dark = img < DARK
    pad = np.pad(dark, 1, constant_values=False)
    inner = pad[:-2, 1:-1] & pad[2:, 1:-1] & pad[1:-1, :-2] & pad[1:-1, 2:]
    br, bc = np.nonzero(dark & ~inner)  # the hull of the dark pixels is the hull of its boundary pixels
    if br.size < 3:
        raise ValueError("image: no triangle found (fewer than 3 dark pixels)")
    boundary = np.column_stack([bc + 0.5, layout.height - (br + 0.5)])
    v = _refine(boundary, _corners(boundary))
    return v[np.argsort(v[:, 0])] / layout.px_per_unit


def measure_object(image: np.ndarray, layout: Layout, index: int) -> int:
    """[P16] The pixel-measuring tool: the measure of object ``index`` in whole units, read from the image array
    (module docstring): a bar's height, a circle's diameter, a line chart's value at a marked point, or the length
    of a triangle's side ``index`` (0: AB, 1: BC, 2: CA)."""
    img = _image(image, layout)
    index = validation.int_at_least(index, "index", 0, hi=len(layout.centres) - 1)
    if layout.kind == "triangles":
        v = triangle_vertices(img, layout)
        return int(round(float(np.linalg.norm(v[(index + 1) % 3] - v[index]))))
    c = int(layout.centres[index])
    dark = img < DARK
    if layout.kind == "bars":
        cols = dark[::-1, c - 1:c + 2]  # bottom row first
        px = float(np.median([int(np.argmin(np.append(col, False))) for col in cols.T]))
    elif layout.kind == "lines":
        px = _marker_height(dark[:, c], layout.height) - layout.row
    else:
        r = int(layout.height - layout.row)
        px = float(np.max([_run_through(row, c) for row in dark[r - 1:r + 1, :]]))
    return int(round(px / layout.px_per_unit))
