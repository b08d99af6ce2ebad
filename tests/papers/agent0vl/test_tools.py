"""[P16] tools: the sandboxed interpreter against Python's own arithmetic and the math module, its refusals, and the
pixel tool against the values and vertices the figures were drawn with, on clean and on noisy renders."""

import ast
import math
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.agent0vl import (
    FIGURE_KINDS,
    ToolBox,
    ToolError,
    answer_of,
    evaluate_arithmetic,
    expression,
    make_tasks,
    measure_object,
    render_figure,
    triangle_vertices,
)

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul}


@st.composite
def _expressions(draw, depth=3):
    """(text, value) of a random arithmetic expression, its value computed with ``operator`` (the oracle)."""
    if depth == 0 or draw(st.booleans()):
        n = draw(st.integers(-50, 50))
        return (f"({n})" if n < 0 else str(n)), n
    op = draw(st.sampled_from(sorted(_OPS)))
    a, va = draw(_expressions(depth=depth - 1))
    b, vb = draw(_expressions(depth=depth - 1))
    return f"({a} {op} {b})", _OPS[op](va, vb)


@settings(max_examples=150)
@given(_expressions())
def test_interpreter_equals_python_arithmetic(case):
    text, value = case
    assert evaluate_arithmetic(text) == value


def test_interpreter_functions_and_division():
    assert evaluate_arithmetic("max(7, 3) - min(7, 3)") == 4
    assert evaluate_arithmetic("abs(-5) + 2 ** 3 + 7 // 2 + 7 % 4") == 5 + 8 + 3 + 3
    assert evaluate_arithmetic("round(7 / 2)") == 4
    assert evaluate_arithmetic("-(+3)") == -3


@settings(max_examples=60)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 40))
def test_interpreter_geometry_equals_the_math_module(a, b, c):
    """The law-of-cosines text the Solver writes evaluates as ``math`` does (or is refused outside acos' domain)."""
    cos = (b * b + c * c - a * a) / (2 * b * c)
    if -1 <= cos <= 1:
        assert evaluate_arithmetic(expression("angle", a, b, c)) == math.degrees(math.acos(cos))
    else:
        with pytest.raises(ToolError, match="acos"):
            evaluate_arithmetic(expression("angle", a, b, c))
    assert evaluate_arithmetic(f"sqrt({a} ** 2 + {b} ** 2)") == math.sqrt(a ** 2 + b ** 2)


@pytest.mark.parametrize("kind,ops,text", [("sum", (3, 4), "3 + 4"), ("diff", (3, 9), "max(3, 9) - min(3, 9)"),
                                           ("max", (3, 9, 2, 5), "max(3, 9, 2, 5)"),
                                           ("perimeter", (5, 5, 6), "5 + 5 + 6")])
def test_expressions(kind, ops, text):
    assert expression(kind, *ops) == text
    assert evaluate_arithmetic(text) == answer_of(__import__("icml26.papers.agent0vl", fromlist=["Question"])
                                                  .Question(kind, tuple(range(len(ops)))), ops)


@pytest.mark.parametrize("kind,ops", [("sum", (1, 2, 3)), ("angle", (3, 4)), ("max", (1, 2, 3, 4, 5, 6)),
                                      ("value", (1, 2))])
def test_expression_refuses_the_wrong_operand_count(kind, ops):
    with pytest.raises(ValueError, match="rest|kind"):
        expression(kind, *ops)


@pytest.mark.parametrize("expr", ["acos(2)", "sqrt(-1)", "degrees(1, 2)", "acos()"])
def test_interpreter_refuses_outside_the_functions_domain(expr):
    with pytest.raises(ToolError, match="expr"):
        evaluate_arithmetic(expr)


@pytest.mark.parametrize("expr", [
    "__import__('os').system('true')", "open('x')", "x + 1", "(1).real", "[1, 2][0]", "lambda: 1",
    "eval('1')", "exec('1')", "1 if 1 else 2", "'a' * 3", "True + 1", "[i for i in range(3)]", "max(key=abs)",
])
def test_interpreter_refuses_anything_not_arithmetic(expr):
    with pytest.raises(ToolError, match="expr"):
        evaluate_arithmetic(expr)


@pytest.mark.parametrize("expr", ["2 ** 100", "10 ** 60 * 10 ** 60", "1 / 0", "1e999", "1 +", "", "1+" * 200 + "1",
                                  "round(5, -1000000000000)", "round(5, 0.5)", "max(5)", "abs(1, 2)"])
def test_interpreter_bounds(expr):
    """Each bound holds within one node's work: ``round(5, -10**12)`` would build 10**(10**12) before any deadline."""
    with pytest.raises(ToolError, match="expr"):
        evaluate_arithmetic(expr)


def test_interpreter_deadline():
    with pytest.raises(ToolError, match="deadline"):
        evaluate_arithmetic("+".join(["1"] * 10), timeout_s=1e-12)


@pytest.mark.parametrize("kind,values", [("bars", [1, 15, 8, 2, 11]), ("bars", [4, 5, 6]), ("circles", [2, 10]),
                                         ("circles", [3, 7, 9]), ("lines", [1, 15, 8, 2, 11]), ("lines", [7, 7, 8]),
                                         ("lines", [15, 1, 15, 1])])
def test_measure_reads_what_was_drawn(kind, values):
    img, lay = render_figure(kind, np.array(values, dtype=float), seed=3)
    assert [measure_object(img, lay, i) for i in range(len(values))] == values


@pytest.mark.parametrize("xy,sides", [([1, 1, 4, 5, 7, 1], [5, 5, 6]), ([1, 1, 6, 13, 15, 1], [13, 15, 14]),
                                      ([3, 3, 11, 9, 19, 3], [10, 10, 16])])
def test_measure_reads_a_triangles_sides(xy, sides):
    img, lay = render_figure("triangles", np.array(xy, dtype=float), seed=3)
    assert [measure_object(img, lay, i) for i in range(3)] == sides
    assert np.abs(triangle_vertices(img, lay) - np.array(xy, dtype=float).reshape(3, 2)).max() <= 0.25


def test_measure_exact_on_every_rendered_task():
    """Clean renders (the figures' own light noise): every reading of every family is exact, and a triangle's
    corners lie within a quarter unit (one pixel) of its vertices."""
    tasks = make_tasks(80, seed=11)
    assert {t.layout.kind for t in tasks} == set(FIGURE_KINDS)
    got = [[measure_object(t.image, t.layout, i) for i in range(len(t.label.values))] for t in tasks]
    assert got == [list(t.label.values) for t in tasks]
    for t in tasks:
        if t.layout.kind == "triangles":
            assert np.abs(triangle_vertices(t.image, t.layout) - np.array(t.label.vertices)).max() <= 0.25


def _misread(noise):
    out = {}
    for k in FIGURE_KINDS:
        tasks = make_tasks(60, seed=12, noise=noise, kinds=(k,))
        out[k] = np.mean([measure_object(t.image, t.layout, i) != v for t in tasks
                          for i, v in enumerate(t.label.values)])
    return out


def test_measure_degrades_under_pixel_noise():
    """At the verification claim's noise (std 0.1) the tool misreads some bars and triangles (circles and lines'
    markers are sturdier); at std 0.2 it misreads objects of every family, more often than at 0.1."""
    clean, claim, heavy = _misread(0.03), _misread(0.1), _misread(0.2)
    assert all(clean[k] == 0 for k in FIGURE_KINDS)
    assert claim["bars"] > 0.03 and claim["triangles"] > 0.0
    assert all(heavy[k] > claim[k] for k in FIGURE_KINDS) and heavy["triangles"] > 0.5


def test_triangle_tool_reads_pixels_not_metadata():
    """Shift the triangle's pixels one unit right: the tool's corners move with them; blank it: the tool refuses."""
    t = next(t for t in make_tasks(30, seed=2) if t.layout.kind == "triangles" and max(
        x for x, _ in t.label.vertices) <= 22)
    shifted = np.roll(t.image, int(t.layout.px_per_unit), axis=1)
    moved = triangle_vertices(shifted, t.layout) - triangle_vertices(t.image, t.layout)
    assert np.allclose(moved, [[1.0, 0.0]] * 3, atol=0.05)
    with pytest.raises(ValueError, match="image"):
        measure_object(np.ones_like(t.image), t.layout, 0)
    assert ToolBox(np.ones_like(t.image), t.layout).run("measure(1)").value is None


def test_measure_reads_pixels_not_metadata():
    """Blank out a bar in the image: the tool must see it gone (it reads the array, not the label)."""
    t = next(t for t in make_tasks(10, seed=1) if t.layout.kind == "bars")
    img = t.image.copy()
    c = int(t.layout.centres[0])
    img[:, c - 8:c + 8] = 1.0
    assert measure_object(img, t.layout, 0) == 0


def test_toolbox_parses_calls_and_reports_errors():
    t = make_tasks(1, seed=5)[0]
    box = ToolBox(t.image, t.layout)
    assert box.run("measure(1)").value == t.label.values[0]
    assert box.run("calc(3 + 4)").value == 7
    for bad in ("measure(0)", "measure('1')", "calc(x)", "rm(1)", "measure(1, 2)", "import os", "measure(1"):
        res = box.run(bad)
        assert res.value is None and res.observation.startswith("error"), bad
    assert box.calls == 9
    assert ast.parse("calc(3 + 4)")  # the call syntax is plain Python call syntax
