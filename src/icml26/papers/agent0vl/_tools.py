"""The agent's tools in [P16]: a pixel-measuring tool that reads the rendered image array (:mod:`._measure`), and a
sandboxed arithmetic interpreter. Both are what the paper's code interpreter does for chart and geometry questions,
reduced to the two operations our figures need (the paper's Solver writes free-form Python; ours writes tool calls).

The interpreter parses with :mod:`ast` and walks only arithmetic nodes (numbers, + − * / // % **, unary ±, and the
calls ``abs``/``min``/``max``/``round`` and, for geometry, ``sqrt``/``acos``/``degrees``): no names, attributes, subscripts, comprehensions or other calls, no
``eval``/``exec``. Bounded expression length, node count, exponent, call arity and ``round``'s digits (each bounds
the work of one node: the deadline is only checked between nodes), and a deadline on the walk.
"""

from __future__ import annotations

import ast
import math
import operator
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common import validation
from icml26.papers.agent0vl._measure import measure_object
from icml26.papers.agent0vl._render import Layout

__all__ = ["ToolBox", "ToolError", "ToolResult", "evaluate_arithmetic", "measure_object"]

MAX_LEN = 200
MAX_NODES = 64
MAX_EXPONENT = 64
MAX_MAGNITUDE = 1e12

_BIN: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_CALLS: dict[str, Callable[..., Any]] = {"abs": abs, "min": min, "max": max, "round": round, "sqrt": math.sqrt,
                                         "acos": math.acos, "degrees": math.degrees}
_ARITY = {"abs": (1, 1), "min": (2, 8), "max": (2, 8), "round": (1, 2), "sqrt": (1, 1), "acos": (1, 1),
          "degrees": (1, 1)}
MAX_DIGITS = 16  # round(x, -10**12) would build 10**(10**12): the digits are bounded like the exponent


class ToolError(ValueError):
    """[P16] A tool call that cannot run: unparsable, outside the sandbox, out of range or past its deadline."""


def _number(x: Any) -> int | float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ToolError(f"expr: not a number: {x!r}")
    if not math.isfinite(x) or abs(x) > MAX_MAGNITUDE:
        raise ToolError(f"expr: value out of range: {x!r}")
    return x


def _walk(node: ast.AST, deadline: float) -> int | float:
    if time.monotonic() > deadline:
        raise ToolError("expr: deadline passed")
    if isinstance(node, ast.Expression):
        return _walk(node.body, deadline)
    if isinstance(node, ast.Constant):
        return _number(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _number(_UNARY[type(node.op)](_walk(node.operand, deadline)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        a, b = _walk(node.left, deadline), _walk(node.right, deadline)
        if isinstance(node.op, ast.Pow) and abs(b) > MAX_EXPONENT:
            raise ToolError(f"expr: exponent {b!r} too large")
        try:
            return _number(_BIN[type(node.op)](a, b))
        except (ZeroDivisionError, OverflowError) as e:
            raise ToolError(f"expr: {e}") from None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS
            and not node.keywords and node.args):
        name = node.func.id
        lo, hi = _ARITY[name]
        if not lo <= len(node.args) <= hi:
            raise ToolError(f"expr: {name} takes {lo} to {hi} arguments, got {len(node.args)}")
        args = [_walk(a, deadline) for a in node.args]
        if name == "round" and len(args) == 2 and (not isinstance(args[1], int) or abs(args[1]) > MAX_DIGITS):
            raise ToolError(f"expr: round's digits must be an integer of at most {MAX_DIGITS} in size")
        try:
            value = _CALLS[name](*args)
        except (ValueError, OverflowError) as e:  # sqrt(-1), acos(2): outside the function's domain
            raise ToolError(f"expr: {name}{tuple(args)}: {e}") from None
        return _number(value)
    raise ToolError(f"expr: not arithmetic: {type(node).__name__} nodes are outside the sandbox")


def evaluate_arithmetic(expr: str, *, timeout_s: float = 0.05) -> int | float:
    """[P16] The sandboxed interpreter: the value of an arithmetic expression such as ``"max(7, 3) - min(7, 3)"``.

    Only arithmetic nodes are evaluated (module docstring); anything else raises :class:`ToolError` (a
    ``ValueError``) naming what was refused.
    """
    if not isinstance(expr, str):
        raise TypeError(f"expr must be a str, got {type(expr).__name__}")
    timeout_s = validation.real(timeout_s, "timeout_s", lo=0.0, lo_open=True)
    if not expr.strip() or len(expr) > MAX_LEN:
        raise ToolError(f"expr: empty or longer than {MAX_LEN} characters")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise ToolError(f"expr does not parse: {e.msg}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ToolError(f"expr has more than {MAX_NODES} nodes")
    return _walk(tree, time.monotonic() + timeout_s)


@dataclass(frozen=True)
class ToolResult:
    """[P16] One executed tool call: the call text, its value (``None`` on error) and the observation text."""

    call: str
    value: int | None
    observation: str


class ToolBox:
    """[P16] Executes the agent's tool calls on one figure: ``measure(k)`` (object ``k``, 1-based as in the question:
    a bar, circle or marked point, or a triangle's side k of AB, BC, CA) and ``calc(<arithmetic>)``. The call text is parsed with :mod:`ast`; a malformed call is an error observation,
    never an exception, as a tool-integrated agent sees it."""

    def __init__(self, image: np.ndarray, layout: Layout) -> None:
        self.image = validation.real_array(image, "image", ndim=2)
        if not isinstance(layout, Layout):
            raise TypeError(f"layout must be a Layout, got {type(layout).__name__}")
        self.layout = layout
        self.calls = 0

    def run(self, call: str) -> ToolResult:
        """Execute ``call`` (e.g. ``"measure(2)"`` or ``"calc(7 + 5)"``)."""
        if not isinstance(call, str):
            raise TypeError(f"call must be a str, got {type(call).__name__}")
        self.calls += 1
        try:
            node = ast.parse(call.strip(), mode="eval").body
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1
                    and not node.keywords):
                raise ToolError("a tool call is name(argument)")
            if node.func.id == "measure":
                k = node.args[0]
                if not (isinstance(k, ast.Constant) and type(k.value) is int):
                    raise ToolError("measure takes an object number")
                v = measure_object(self.image, self.layout, k.value - 1)
            elif node.func.id == "calc":
                x = evaluate_arithmetic(ast.unparse(node.args[0]))
                v = int(round(x))
            else:
                raise ToolError(f"unknown tool {node.func.id!r}")
        except (ToolError, ValueError, TypeError, SyntaxError) as e:
            return ToolResult(call, None, f"error: {e}")
        return ToolResult(call, v, str(v))
