"""Figures with known measures for [P16]: bar charts and circle panels drawn with matplotlib, rasterised to arrays.

The paper evaluates on chart reasoning and geometry benchmarks (ChartQA, MathVista, ...) that do not ship here; we
render our own. The axes fill the whole canvas with data coordinates equal to pixel coordinates, so a figure's
:class:`Layout` (object centres, baseline, pixels per unit: what tick labels tell a reader) is exact and public,
while the values themselves live only in the task's :class:`Label`, which the self-evolving loop never receives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common import validation

__all__ = ["FIGURE_KINDS", "QUESTION_KINDS", "Label", "Layout", "Question", "Task", "View", "answer_of",
           "make_tasks", "render_figure"]

FIGURE_KINDS = ("bars", "circles")
QUESTION_KINDS = ("value", "sum", "diff")
WIDTH, HEIGHT = 96, 64
#: pixels per unit and the value range of each kind (bars: heights, circles: diameters)
SCALE = {"bars": 4.0, "circles": 3.0}
VALUES = {"bars": (1, 15), "circles": (2, 10)}
OBJECTS = {"bars": (3, 5), "circles": (2, 3)}
COLOURS = ("#1f3b73", "#7a1f1f", "#1f5f2f", "#4b2a6b", "#5a4a12")
NOUN = {"bars": "bar", "circles": "circle"}
MEASURE = {"bars": "height", "circles": "diameter"}


@dataclass(frozen=True)
class Layout:
    """[P16] What a reader of the figure knows without measuring: the kind, the object centres (pixel columns),
    the row of the baseline (bars) or of the centres (circles), the pixels per unit and the canvas size."""

    kind: str
    centres: tuple[float, ...]
    row: float
    px_per_unit: float
    width: int = WIDTH
    height: int = HEIGHT


@dataclass(frozen=True)
class Question:
    """[P16] A question over a figure: ``kind`` in :data:`QUESTION_KINDS` and the object indices it names."""

    kind: str
    objects: tuple[int, ...]

    def text(self, figure: str) -> str:
        """The question in words."""
        noun, what = NOUN[figure], MEASURE[figure]
        if self.kind == "value":
            return f"What is the {what} of {noun} {self.objects[0] + 1}?"
        i, j = (o + 1 for o in self.objects)
        if self.kind == "sum":
            return f"What is the {what} of {noun} {i} plus that of {noun} {j}?"
        return f"By how much does the larger {what} of {noun}s {i} and {j} exceed the smaller?"


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
    """[P16] The ground truth of a task: the objects' values and the answer (for evaluation only)."""

    values: tuple[int, ...]
    answer: int


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
    slot = WIDTH / n
    centres = tuple(slot * (i + 0.5) for i in range(n))
    row = 0.0 if kind == "bars" else HEIGHT / 2
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

    def draw(self, kind: str, v: np.ndarray, lay: Layout) -> np.ndarray:
        from matplotlib.patches import Circle, Rectangle

        for p in list(self.ax.patches):
            p.remove()
        for i, (c, x) in enumerate(zip(lay.centres, v)):
            colour = COLOURS[i % len(COLOURS)]
            if kind == "bars":
                w = 0.6 * WIDTH / v.size
                self.ax.add_patch(Rectangle((c - w / 2, 0.0), w, float(x) * lay.px_per_unit, color=colour, lw=0,
                                            zorder=2))
            else:
                self.ax.add_patch(Circle((c, lay.row), float(x) * lay.px_per_unit / 2, color=colour, lw=0, zorder=2))
        self.canvas.draw()
        rgb = np.asarray(self.canvas.buffer_rgba(), dtype=float)[..., :3] / 255.0
        return rgb @ np.array([0.299, 0.587, 0.114])


def _render(canvas: _Canvas, kind: str, values: np.ndarray, noise: float, seed: int) -> tuple[np.ndarray, Layout]:
    lay = _layout(kind, values.size)
    grey = canvas.draw(kind, values, lay)
    if noise > 0:
        grey = grey + np.random.default_rng([seed, 7]).normal(0.0, noise, grey.shape)
    return np.clip(grey, 0.0, 1.0), lay


def render_figure(kind: str, values: np.ndarray, *, noise: float = 0.03, seed: int) -> tuple[np.ndarray, Layout]:
    """[P16] Render a bar chart (``values`` = heights) or a circle panel (``values`` = diameters) with matplotlib's
    Agg backend to a ``(64, 96)`` grey image in [0, 1], plus light Gaussian pixel noise (std ``noise``, seeded).

    Light grid lines (grey 0.85) are drawn behind the objects, as on a real chart. Pixel row 0 is the top.
    """
    kind = validation.choice(kind, "kind", FIGURE_KINDS)
    v = validation.real_array(values, "values", ndim=1)
    lo, hi = VALUES[kind]
    if not OBJECTS[kind][0] <= v.size <= OBJECTS[kind][1] or np.any((v < lo) | (v > hi)) or np.any(v != np.round(v)):
        raise ValueError(f"values: {OBJECTS[kind]} integers in [{lo}, {hi}] for {kind}, got {v.tolist()}")
    noise = validation.real(noise, "noise", lo=0.0, hi=0.2)
    return _render(_Canvas(), kind, v, noise, validation.seed(seed))


def _question(kind: str, n: int, rng: np.random.Generator) -> Question:
    q = QUESTION_KINDS[int(rng.integers(len(QUESTION_KINDS)))]
    if q == "value":
        return Question(q, (int(rng.integers(n)),))
    i, j = rng.choice(n, size=2, replace=False)
    return Question(q, (int(i), int(j)))


def answer_of(question: Question, values: tuple[int, ...]) -> int:
    """[P16] The exact answer of ``question`` on objects with ``values``."""
    a = [values[i] for i in question.objects]
    if question.kind == "value":
        return a[0]
    return a[0] + a[1] if question.kind == "sum" else abs(a[0] - a[1])


def make_tasks(n: int, *, seed: int, kinds: tuple[str, ...] = FIGURE_KINDS, noise: float = 0.03) -> list[Task]:
    """[P16] ``n`` rendered tasks: a figure kind, object count and values, and a question, all drawn from ``seed``."""
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
        lo, hi = OBJECTS[kind]
        m = int(rng.integers(lo, hi + 1))
        values = tuple(int(x) for x in rng.integers(VALUES[kind][0], VALUES[kind][1] + 1, size=m))
        image, lay = _render(canvas, kind, np.array(values, dtype=float), noise, seed * 100003 + t)
        q = _question(kind, m, rng)
        out.append(Task(image, lay, q, Label(values, answer_of(q, values))))
    return out
