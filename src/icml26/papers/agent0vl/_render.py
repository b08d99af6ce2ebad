"""Figures with known measures for [P16]: bar charts, line charts, circle panels and triangles drawn with matplotlib,
rasterised to arrays.

The paper evaluates on chart reasoning and geometry benchmarks (ChartQA, MathVista, ...) that do not ship here; we
render our own. The axes fill the whole canvas with data coordinates equal to pixel coordinates, so a figure's
:class:`Layout` (object centres, baseline, pixels per unit: what tick labels tell a reader) is exact and public,
while the values themselves live only in the task's :class:`Label`, which the self-evolving loop never receives.
A line chart marks its values with dots at known x positions (the line between them is light grey); a triangle has
integer vertex coordinates and integer sides (:mod:`._geometry`), its vertices named A, B, C from left to right,
and its position on the canvas is not in the layout (the tool finds it in the pixels).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from icml26.common import validation
from icml26.papers.agent0vl._geometry import (
    GRID_H,
    GRID_W,
    MARGIN,
    SIDES,
    TRIANGLE_SHAPES,
    angle_degrees,
    opposite_vertex,
    side_lengths,
)

__all__ = ["FIGURE_KINDS", "QUESTION_KINDS", "QUESTIONS", "Label", "Layout", "Question", "Task", "View", "answer_of",
           "make_tasks", "render_figure"]

FIGURE_KINDS = ("bars", "circles", "lines", "triangles")
QUESTION_KINDS = ("value", "sum", "diff", "max", "perimeter", "angle")
#: the questions each figure kind is asked ("value" of a triangle: one side's length)
QUESTIONS = {"bars": ("value", "sum", "diff"), "circles": ("value", "sum", "diff"),
             "lines": ("value", "sum", "diff", "max"), "triangles": ("value", "perimeter", "angle")}
WIDTH, HEIGHT = 96, 64
#: pixels per unit and the value range of each kind (bars: heights, circles: diameters, lines: marked values)
SCALE = {"bars": 4.0, "circles": 3.0, "lines": 4.0, "triangles": 4.0}
VALUES = {"bars": (1, 15), "circles": (2, 10), "lines": (1, 15)}
OBJECTS = {"bars": (3, 5), "circles": (2, 3), "lines": (3, 5), "triangles": (3, 3)}
COLOURS = ("#1f3b73", "#7a1f1f", "#1f5f2f", "#4b2a6b", "#5a4a12")
LINE_GREY = "0.7"  # the line joining a chart's marked points: visible, lighter than the tool's dark threshold
NOUN = {"bars": "bar", "circles": "circle", "lines": "point", "triangles": "side"}
MEASURE = {"bars": "height", "circles": "diameter", "lines": "value", "triangles": "length"}


@dataclass(frozen=True)
class Layout:
    """[P16] What a reader of the figure knows without measuring: the kind, the object centres (pixel columns), the
    row of the baseline (bars, lines) or of the centres (circles), the pixels per unit and the canvas size.

    A triangle's objects are its sides AB, BC, CA; where they lie is for the tool to find, so its ``centres`` are
    the canvas centre (one entry per side) and its ``row`` the bottom edge (y = 0 in units).
    """

    kind: str
    centres: tuple[float, ...]
    row: float
    px_per_unit: float
    width: int = WIDTH
    height: int = HEIGHT


@dataclass(frozen=True)
class Question:
    """[P16] A question over a figure: ``kind`` in :data:`QUESTION_KINDS` and the object indices it names (an
    ``angle`` names the side facing the angle first, then the two sides that form it)."""

    kind: str
    objects: tuple[int, ...]

    def text(self, figure: str) -> str:
        """The question in words."""
        if figure == "triangles":
            return "Vertices A, B, C run from left to right. " + self._triangle_text()
        noun, what = NOUN[figure], MEASURE[figure]
        if self.kind == "value":
            return f"What is the {what} of {noun} {self.objects[0] + 1}?"
        if self.kind == "max":
            return f"What is the largest {what} of the {len(self.objects)} marked {noun}s?"
        i, j = (o + 1 for o in self.objects)
        if self.kind == "sum":
            return f"What is the {what} of {noun} {i} plus that of {noun} {j}?"
        return f"By how much does the larger {what} of {noun}s {i} and {j} exceed the smaller?"

    def _triangle_text(self) -> str:
        if self.kind == "value":
            return f"What is the length of side {SIDES[self.objects[0]]}, in units?"
        if self.kind == "perimeter":
            return "What is the perimeter of the triangle, in units?"
        return f"What is the angle at vertex {opposite_vertex(self.objects[0])}, in whole degrees?"


@dataclass(frozen=True)
class View:
    """[P16] What the agent sees: the rendered image (grey levels in [0, 1], ``(height, width)``), the layout and
    the question. No label."""

    image: np.ndarray
    layout: Layout
    question: Question

    @property
    def prompt(self) -> str:
        """The question in words."""
        return self.question.text(self.layout.kind)


@dataclass(frozen=True)
class Label:
    """[P16] The ground truth of a task: the objects' values (a triangle's: its side lengths AB, BC, CA), the answer
    and, for a triangle, its vertex coordinates in units (for evaluation only)."""

    values: tuple[int, ...]
    answer: int
    vertices: tuple[tuple[int, int], ...] = field(default=())


@dataclass(frozen=True)
class Task:
    """[P16] A view and its label; :meth:`view` is all the self-evolving loop reads."""

    image: np.ndarray
    layout: Layout
    question: Question
    label: Label

    def view(self) -> View:
        """The label-free part of the task."""
        return View(self.image, self.layout, self.question)


def _layout(kind: str, n: int) -> Layout:
    if kind == "triangles":
        return Layout(kind, (WIDTH / 2,) * 3, 0.0, SCALE[kind])
    slot = WIDTH / n
    centres = tuple(slot * (i + 0.5) for i in range(n))
    row = HEIGHT / 2 if kind == "circles" else 0.0
    return Layout(kind, centres, row, SCALE[kind])


class _Canvas:
    """One matplotlib figure reused for many renders (a new Figure per render costs most of the time)."""

    def __init__(self) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.fig = Figure(figsize=(WIDTH / 100, HEIGHT / 100), dpi=100)
        self.canvas = FigureCanvasAgg(self.fig)
        self.ax = self.fig.add_axes((0.0, 0.0, 1.0, 1.0))
        self.ax.set_xlim(0, WIDTH)
        self.ax.set_ylim(0, HEIGHT)
        self.ax.set_axis_off()
        for y in range(20, HEIGHT, 20):
            self.ax.axhline(y, color="0.85", lw=0.8, zorder=0)
        self.drawn: list = []

    def draw(self, kind: str, v: np.ndarray, lay: Layout) -> np.ndarray:
        from matplotlib.patches import Circle, Polygon, Rectangle

        for artist in self.drawn:
            artist.remove()
        self.drawn = []
        ax, s = self.ax, lay.px_per_unit
        if kind == "lines":
            self.drawn += ax.plot(lay.centres, v * s, color=LINE_GREY, lw=1.5, zorder=1)
            self.drawn += ax.plot(lay.centres, v * s, ls="none", marker="o", markersize=4.5, markeredgewidth=0,
                                  color=COLOURS[0], zorder=2)
        elif kind == "triangles":
            self.drawn.append(ax.add_patch(Polygon(v.reshape(3, 2) * s, closed=True, color=COLOURS[0], lw=0,
                                                   zorder=2)))
        for i, (c, x) in enumerate(zip(lay.centres, v) if kind in ("bars", "circles") else ()):
            colour = COLOURS[i % len(COLOURS)]
            if kind == "bars":
                w = 0.6 * WIDTH / v.size
                patch = Rectangle((c - w / 2, 0.0), w, float(x) * s, color=colour, lw=0, zorder=2)
            else:
                patch = Circle((c, lay.row), float(x) * s / 2, color=colour, lw=0, zorder=2)
            self.drawn.append(ax.add_patch(patch))
        self.canvas.draw()
        rgb = np.asarray(self.canvas.buffer_rgba(), dtype=float)[..., :3] / 255.0
        return rgb @ np.array([0.299, 0.587, 0.114])


def _render(canvas: _Canvas, kind: str, values: np.ndarray, noise: float, seed: int) -> tuple[np.ndarray, Layout]:
    lay = _layout(kind, values.size)
    grey = canvas.draw(kind, values, lay)
    if noise > 0:
        grey = grey + np.random.default_rng([seed, 7]).normal(0.0, noise, grey.shape)
    return np.clip(grey, 0.0, 1.0), lay


def _check_triangle(v: np.ndarray) -> None:
    if v.size != 6:
        raise ValueError(f"values: a triangle is 6 integers x_A, y_A, x_B, y_B, x_C, y_C; got {v.tolist()}")
    p = v.reshape(3, 2)
    xs = np.sort(p[:, 0])
    inside = np.all((p[:, 0] >= MARGIN) & (p[:, 0] <= GRID_W - MARGIN) & (p[:, 1] >= MARGIN)
                    & (p[:, 1] <= GRID_H - MARGIN))
    area = abs((p[1, 0] - p[0, 0]) * (p[2, 1] - p[0, 1]) - (p[1, 1] - p[0, 1]) * (p[2, 0] - p[0, 0]))
    if v.size != 6 or not inside or np.any(np.diff(xs) < 1) or area == 0 or np.any(v != np.round(v)):
        raise ValueError(f"values: a triangle is 6 integers x_A, y_A, x_B, y_B, x_C, y_C with x in "
                         f"[{MARGIN}, {GRID_W - MARGIN}], y in [{MARGIN}, {GRID_H - MARGIN}], the x at least 1 apart "
                         f"and the vertices not on one line; got {v.tolist()}")


def render_figure(kind: str, values: np.ndarray, *, noise: float = 0.03, seed: int) -> tuple[np.ndarray, Layout]:
    """[P16] Render a figure with matplotlib's Agg backend to a ``(64, 96)`` grey image in [0, 1], plus light
    Gaussian pixel noise (std ``noise``, seeded): a bar chart (``values`` = heights), a circle panel (diameters), a
    line chart (the values at its marked points) or a filled triangle (``values`` = its vertex coordinates in units,
    ``x_A, y_A, x_B, y_B, x_C, y_C``).

    Light grid lines (grey 0.85) are drawn behind the objects, as on a real chart. Pixel row 0 is the top.
    """
    kind = validation.choice(kind, "kind", FIGURE_KINDS)
    v = validation.real_array(values, "values", ndim=1)
    if kind == "triangles":
        _check_triangle(v)
    else:
        lo, hi = VALUES[kind]
        n_lo, n_hi = OBJECTS[kind]
        if not n_lo <= v.size <= n_hi or np.any((v < lo) | (v > hi)) or np.any(v != np.round(v)):
            raise ValueError(f"values: {OBJECTS[kind]} integers in [{lo}, {hi}] for {kind}, got {v.tolist()}")
    noise = validation.real(noise, "noise", lo=0.0, hi=0.2)
    return _render(_Canvas(), kind, v, noise, validation.seed(seed))


def _question(kind: str, n: int, rng: np.random.Generator) -> Question:
    q = QUESTIONS[kind][int(rng.integers(len(QUESTIONS[kind])))]
    if q == "value":
        return Question(q, (int(rng.integers(n)),))
    if q == "max":
        return Question(q, tuple(range(n)))
    if q == "perimeter":
        return Question(q, (0, 1, 2))
    if q == "angle":
        k = int(rng.integers(3))
        return Question(q, (k, (k + 1) % 3, (k + 2) % 3))
    i, j = rng.choice(n, size=2, replace=False)
    return Question(q, (int(i), int(j)))


def answer_of(question: Question, values: tuple[int, ...]) -> int:
    """[P16] The exact answer of ``question`` on objects with ``values``: a value, a sum, a difference (larger −
    smaller), a maximum, a perimeter, or an angle in whole degrees by the law of cosines from the three sides
    (facing side first; ``ValueError`` when they form no triangle)."""
    a = [values[i] for i in question.objects]
    if question.kind == "value":
        return a[0]
    if question.kind in ("sum", "perimeter"):
        return sum(a)
    if question.kind == "max":
        return max(a)
    if question.kind == "angle":
        return angle_degrees(a[0], a[1], a[2])
    return abs(a[0] - a[1])


def _triangle(rng: np.random.Generator) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    shape = TRIANGLE_SHAPES[int(rng.integers(len(TRIANGLE_SHAPES)))]
    span_x, span_y = (max(p[k] for p in shape) for k in (0, 1))
    ox = int(rng.integers(MARGIN, GRID_W - MARGIN - span_x + 1))
    oy = int(rng.integers(MARGIN, GRID_H - MARGIN - span_y + 1))
    vertices = tuple((x + ox, y + oy) for x, y in shape)
    return vertices, tuple(int(round(s)) for s in side_lengths(vertices))


def make_tasks(n: int, *, seed: int, kinds: tuple[str, ...] = FIGURE_KINDS, noise: float = 0.03) -> list[Task]:
    """[P16] ``n`` rendered tasks: a figure kind, its objects and values, and a question, all drawn from ``seed``."""
    n = validation.positive_int(n, "n")
    seed = validation.seed(seed)
    if not kinds or any(k not in FIGURE_KINDS for k in kinds):
        raise ValueError(f"kinds must name some of {FIGURE_KINDS}, got {kinds!r}")
    noise = validation.real(noise, "noise", lo=0.0, hi=0.2)
    rng = np.random.default_rng([seed, 16])
    canvas = _Canvas()
    out = []
    for t in range(n):
        kind = kinds[int(rng.integers(len(kinds)))]
        vertices: tuple[tuple[int, int], ...] = ()
        if kind == "triangles":
            vertices, values = _triangle(rng)
            drawn = np.array(vertices, dtype=float).ravel()
        else:
            lo, hi = OBJECTS[kind]
            m = int(rng.integers(lo, hi + 1))
            values = tuple(int(x) for x in rng.integers(VALUES[kind][0], VALUES[kind][1] + 1, size=m))
            drawn = np.array(values, dtype=float)
        image, lay = _render(canvas, kind, drawn, noise, seed * 100003 + t)
        q = _question(kind, len(values), rng)
        out.append(Task(image, lay, q, Label(values, answer_of(q, values), vertices)))
    return out
