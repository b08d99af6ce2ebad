"""[P16] tools: the sandboxed interpreter against Python's own arithmetic, its refusals, and the pixel tool against
the values the figures were drawn with."""

import ast
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.agent0vl import ToolBox, ToolError, evaluate_arithmetic, make_tasks, measure_object, render_figure

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
                                         ("circles", [3, 7, 9])])
def test_measure_reads_what_was_drawn(kind, values):
    img, lay = render_figure(kind, np.array(values, dtype=float), seed=3)
    assert [measure_object(img, lay, i) for i in range(len(values))] == values


def test_measure_exact_on_every_rendered_task():
    tasks = make_tasks(40, seed=11)
    got = [[measure_object(t.image, t.layout, i) for i in range(len(t.label.values))] for t in tasks]
    assert got == [list(t.label.values) for t in tasks]


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
