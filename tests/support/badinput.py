"""The bad-input table: each paper lists its public entry points with a valid call and the kind of each argument;
the conformance test derives NaN, inf, wrong-ndim, empty, wrong-dtype and bool-for-int variants of every argument
and expects a ``ValueError``/``TypeError`` whose message names that argument."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: argument kind -> what is refused for it
KINDS = ("array", "carray", "int", "real", "posreal", "nonneg", "seed", "prob", "str")


@dataclass(frozen=True)
class Entry:
    """One public entry point: ``fn(**valid)`` must succeed; ``kinds[arg]`` says how to spoil ``arg``.

    ``name`` is the id in the test report; ``match`` overrides the text the error must contain for an argument
    (default: the argument's name); ``skip`` maps ``"arg:label"`` to the reason that spoiled value is in fact valid
    (e.g. ``"x:extra_dim"`` for a function that takes any number of dimensions).
    """

    name: str
    fn: Callable[..., Any]
    valid: Mapping[str, Any]
    kinds: Mapping[str, str]
    match: Mapping[str, str] = field(default_factory=dict)
    skip: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = {k: v for k, v in self.kinds.items() if v not in KINDS}
        if unknown:
            raise ValueError(f"{self.name}: unknown kinds {unknown}; known: {KINDS}")
        missing = set(self.kinds) - set(self.valid)
        if missing:
            raise ValueError(f"{self.name}: kinds for arguments not in the valid call: {sorted(missing)}")


def _spoil_array(x: Any, *, complex_ok: bool) -> Iterator[tuple[str, Any]]:
    a = np.asarray(x)
    if a.size and a.dtype.kind in "fc":
        nan = a.copy()
        nan.flat[0] = np.nan
        yield "nan", nan
        inf = a.copy()
        inf.flat[0] = np.inf
        yield "inf", inf
    elif a.size:
        yield "nan", np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, a.astype(float))
    yield "extra_dim", a[None, ...]
    if a.ndim >= 1:
        yield "empty", np.empty((0,) + a.shape[1:], dtype=a.dtype)
    if not complex_ok and a.dtype.kind != "c":
        yield "complex", a.astype(np.complex128) + 1j
    yield "strings", a.astype(str)


def variants(kind: str, value: Any) -> Iterator[tuple[str, Any]]:
    """(label, spoiled value) pairs for an argument of ``kind`` whose valid value is ``value``."""
    if kind in ("array", "carray"):
        yield from _spoil_array(value, complex_ok=kind == "carray")
    elif kind == "int":
        yield from (("bool", True), ("float", 2.5), ("string", "3"))
    elif kind == "seed":
        yield from (("none", None), ("negative", -1), ("bool", True), ("float", 1.5))
    elif kind in ("real", "posreal", "nonneg"):
        yield from (("nan", float("nan")), ("inf", float("inf")), ("bool", True), ("complex", 1j), ("string", "1"))
        if kind != "real":  # a positive (or non-negative) real: a negative value is refused too, and 0 for posreal
            yield "negative", -1.0
        if kind == "posreal":
            yield "zero", 0.0
    elif kind == "prob":
        p = np.asarray(value, dtype=float)
        yield from (("nan", np.where(np.arange(p.size) == 0, np.nan, p)), ("negative", p - 2 * p.max()),
                    ("unnormalised", p * 2 + 0.1), ("empty", np.empty(0)))
    elif kind == "str":
        yield from (("unknown", "no-such-option"), ("int", 3))


def cases(entry: Entry) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(argument, label, kwargs) for every spoiled call of ``entry``."""
    for arg, kind in entry.kinds.items():
        for label, bad in variants(kind, entry.valid[arg]):
            if f"{arg}:{label}" not in entry.skip:
                yield arg, label, {**entry.valid, arg: bad}
