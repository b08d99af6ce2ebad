"""Triangle geometry for the [P16] figures: the triangles with integer vertex coordinates and integer side lengths
that fit the canvas, and the law-of-cosines angle.

Geometry questions have integer answers here (as chart answers do), so a triangle's vertices lie on the unit grid
and all three sides are whole units (lattice Heronian triangles). The shapes are enumerated once from Pythagorean
vectors: a triangle is three lattice points whose three difference vectors all have integer length.
"""

from __future__ import annotations

import itertools
import math

from icml26.common import validation

__all__ = ["SIDES", "TRIANGLE_SHAPES", "angle_degrees", "opposite_vertex", "side_lengths"]

#: the sides in object order: side k joins vertex k and vertex k + 1 (vertices A, B, C from left to right)
SIDES = ("AB", "BC", "CA")
#: the canvas in units (96 x 64 pixels at 4 pixels per unit) and the margin kept free around a triangle
GRID_W, GRID_H, MARGIN = 24, 16, 1
MIN_ANGLE = 25.0  # degrees: a sharper corner loses its tip to anti-aliasing
MIN_GAP = 1  # units between the vertices' x coordinates, so that "left to right" names them unambiguously


def side_lengths(vertices: tuple[tuple[int, int], ...]) -> tuple[float, float, float]:
    """Lengths of AB, BC, CA of a triangle given as ((x, y), ...) in units, vertices in any order (sorted by x)."""
    v = sorted(vertices)
    return tuple(math.dist(v[k], v[(k + 1) % 3]) for k in range(3))  # type: ignore[return-value]


def opposite_vertex(side: int) -> str:
    """The vertex facing side ``side`` (side k joins vertices k and k + 1, so the vertex k + 2 faces it)."""
    return "ABC"[(side + 2) % 3]


def angle_degrees(opposite: float, b: float, c: float) -> int:
    """[P16] The angle facing the side of length ``opposite`` between sides ``b`` and ``c``, in whole degrees (law of
    cosines, ``degrees(acos((b² + c² − a²) / (2bc)))`` rounded: the arithmetic a geometry answer needs). Raises
    ``ValueError`` naming the sides when they form no triangle."""
    opposite = validation.real(opposite, "opposite", lo=0.0, lo_open=True)
    b = validation.real(b, "b", lo=0.0, lo_open=True)
    c = validation.real(c, "c", lo=0.0, lo_open=True)
    cos = (b * b + c * c - opposite * opposite) / (2 * b * c)
    if not -1.0 <= cos <= 1.0:
        raise ValueError(f"opposite, b, c: {(opposite, b, c)} form no triangle")
    return int(round(math.degrees(math.acos(cos))))


def _angles(p: tuple[tuple[int, int], ...]) -> list[float]:
    out = []
    for i in range(3):
        u = (p[(i + 1) % 3][0] - p[i][0], p[(i + 1) % 3][1] - p[i][1])
        w = (p[(i + 2) % 3][0] - p[i][0], p[(i + 2) % 3][1] - p[i][1])
        cos = (u[0] * w[0] + u[1] * w[1]) / (math.hypot(*u) * math.hypot(*w))
        out.append(math.degrees(math.acos(max(-1.0, min(1.0, cos)))))
    return out


def _shapes() -> tuple[tuple[tuple[int, int], ...], ...]:
    w, h = GRID_W - 2 * MARGIN, GRID_H - 2 * MARGIN
    vecs = [(dx, dy) for dx in range(-w, w + 1) for dy in range(-h, h + 1)
            if (dx, dy) != (0, 0) and math.isqrt(dx * dx + dy * dy) ** 2 == dx * dx + dy * dy]
    out = set()
    for (bx, by), (cx, cy) in itertools.combinations(vecs, 2):
        d2 = (cx - bx) ** 2 + (cy - by) ** 2
        if math.isqrt(d2) ** 2 != d2:
            continue
        pts = sorted([(0, 0), (bx, by), (cx, cy)])
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if max(xs) - min(xs) > w or max(ys) - min(ys) > h or min(b - a for a, b in zip(xs, xs[1:])) < MIN_GAP:
            continue
        if min(_angles(tuple(pts))) < MIN_ANGLE:
            continue
        out.add(tuple((x - min(xs), y - min(ys)) for x, y in pts))
    return tuple(sorted(out))


#: every admissible triangle shape, its lowest-left corner at (0, 0); a figure places one at an integer offset
TRIANGLE_SHAPES = _shapes()
