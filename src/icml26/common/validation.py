"""Argument checks shared by the paper packages: a clear error naming the argument, never a silent wrong answer.

Each function returns the value in its canonical form (a Python ``int``/``float``, a numpy array of the stated dtype)
or raises ``TypeError`` (wrong kind: a bool for an int, a complex for a real, a string array) or ``ValueError``
(right kind, bad value: NaN, out of range, wrong shape, empty), with ``name`` first in the message.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "choice",
    "complex_array",
    "int_array",
    "paired_vectors",
    "int_at_least",
    "positive_int",
    "probability_vector",
    "real",
    "real_array",
    "seed",
]


def _is_bool(x: object) -> bool:
    return isinstance(x, (bool, np.bool_))


def int_at_least(x: object, name: str, lo: int, *, hi: int | None = None) -> int:
    """``x`` as a Python int in ``[lo, hi]``.

    Raises:
        TypeError: naming ``name`` unless ``x`` is an integer (Python or numpy; ``bool`` is refused, since
            ``True`` would silently mean 1).
        ValueError: naming ``name`` if ``x < lo`` or ``x > hi``.
    """
    if _is_bool(x) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(x).__name__} {x!r}")
    v = int(x)
    if v < lo or (hi is not None and v > hi):
        bound = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be an int {bound}, got {x!r}")
    return v


def positive_int(x: object, name: str, *, hi: int | None = None) -> int:
    """``x`` as an int >= 1 (and <= ``hi``); see :func:`int_at_least`."""
    return int_at_least(x, name, 1, hi=hi)


def seed(x: object, name: str = "seed") -> int:
    """An explicit seed: an int >= 0 (``None`` refused: a default run must be reproducible)."""
    if x is None:
        raise TypeError(f"{name} must be an int >= 0 (an explicit seed; None would draw fresh entropy)")
    return int_at_least(x, name, 0)


def real(
    x: object,
    name: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    finite: bool = True,
) -> float:
    """``x`` as a finite Python float in the interval given by ``lo``/``hi`` (open ends with ``lo_open``/``hi_open``).

    Bools and complex numbers are a ``TypeError``; NaN (and inf, unless ``finite=False``) a ``ValueError``.
    """
    if _is_bool(x) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    v = float(x)
    if v != v or (finite and v in (float("inf"), float("-inf"))):
        raise ValueError(f"{name} must be {'finite' if finite else 'a number'}, got {x!r}")
    below = lo is not None and (v <= lo if lo_open else v < lo)
    above = hi is not None and (v >= hi if hi_open else v > hi)
    if below or above:
        left = "-inf" if lo is None else f"{lo:g}"
        right = "inf" if hi is None else f"{hi:g}"
        interval = f"{'(' if lo_open or lo is None else '['}{left}, {right}{')' if hi_open or hi is None else ']'}"
        raise ValueError(f"{name} must be in {interval}, got {x!r}")
    return v


def _array(x: Any, name: str, kinds: str, dtype: Any, *, ndim: int | Sequence[int] | None,
           shape: Sequence[int | None] | None, allow_empty: bool, finite: bool) -> np.ndarray:
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers, got {type(x).__name__}")
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array of numbers: {exc}") from exc
    if a.dtype.kind not in kinds:
        what = {"iu": "integers", "biuf": "real numbers"}.get(kinds, "numbers")
        raise TypeError(f"{name} must hold {what}, got dtype {a.dtype}")
    a = a.astype(dtype, copy=False)
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if dims is not None and a.ndim not in dims:
        want = " or ".join(map(str, dims))
        raise ValueError(f"{name} must be {want}-dimensional, got shape {a.shape}")
    if shape is not None:
        if len(shape) != a.ndim or any(s is not None and s != t for s, t in zip(shape, a.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    if not allow_empty and a.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {a.shape}")
    if finite and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite (got NaN or inf)")
    return a


def real_array(
    x: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    shape: Sequence[int | None] | None = None,
    dtype: Any = np.float64,
    allow_empty: bool = False,
    finite: bool = True,
) -> np.ndarray:
    """``x`` as a real array of ``dtype`` (bools and integers are converted; complex, strings and objects refused).

    ``ndim`` is the allowed number of dimensions (one int or several), ``shape`` the allowed shape (``None`` for any
    length along an axis). Empty arrays and NaN/inf are refused unless ``allow_empty`` / ``finite=False``.
    """
    return _array(x, name, "biuf", dtype, ndim=ndim, shape=shape, allow_empty=allow_empty, finite=finite)


def complex_array(
    x: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    shape: Sequence[int | None] | None = None,
    allow_empty: bool = False,
    finite: bool = True,
) -> np.ndarray:
    """``x`` as a complex128 array (real input is promoted); the other checks as in :func:`real_array`."""
    return _array(x, name, "biufc", np.complex128, ndim=ndim, shape=shape, allow_empty=allow_empty, finite=finite)


def int_array(
    x: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    shape: Sequence[int | None] | None = None,
    allow_empty: bool = False,
) -> np.ndarray:
    """``x`` as an int64 array (floats, bools, complex, strings refused: ids and counts are integers)."""
    return _array(x, name, "iu", np.int64, ndim=ndim, shape=shape, allow_empty=allow_empty, finite=False)


def paired_vectors(a: Any, name_a: str, b: Any, name_b: str) -> tuple[np.ndarray, np.ndarray]:
    """Two finite, non-empty 1-D float64 vectors of the same length (e.g. a gradient and its parameters)."""
    u, v = real_array(a, name_a, ndim=1), real_array(b, name_b, ndim=1)
    if u.shape != v.shape:
        raise ValueError(f"{name_a} and {name_b} must have the same shape, got {u.shape} and {v.shape}")
    return u, v


def probability_vector(x: Any, name: str, *, atol: float = 1e-9) -> np.ndarray:
    """``x`` as a non-empty 1-D float64 vector of non-negative entries summing to 1 within ``atol``."""
    p = real_array(x, name, ndim=1)
    if np.any(p < 0):
        raise ValueError(f"{name} must be non-negative, got min {p.min():g}")
    if abs(float(p.sum()) - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1 (within {atol:g}), got {p.sum():.12g}")
    return p


def choice(x: object, name: str, options: Sequence[str]) -> str:
    """``x`` if it is one of ``options`` (strings), else a ``ValueError`` listing them."""
    if not isinstance(x, str):
        raise TypeError(f"{name} must be one of {list(options)}, got {type(x).__name__} {x!r}")
    if x not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {x!r}")
    return x
