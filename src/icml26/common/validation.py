"""Argument checks shared by the paper packages: a clear error naming the argument, never a silent wrong answer."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["int_at_least"]


def int_at_least(x: object, name: str, lo: int) -> int:
    """``x`` as a Python int.

    Raises:
        TypeError: naming ``name`` unless ``x`` is an integer (Python or numpy; ``bool`` is refused, since
            ``True`` would silently mean 1).
        ValueError: naming ``name`` if ``x < lo``.
    """
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(x).__name__} {x!r}")
    if x < lo:
        raise ValueError(f"{name} must be an int >= {lo}, got {x!r}")
    return int(x)
