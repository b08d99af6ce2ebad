"""Argument checks for [P08]'s public functions: lists of view arrays, integer labels, fusion trees.

Every check raises a ``ValueError``/``TypeError`` whose message starts with the argument's name (see
:mod:`icml26.common.validation`, which these build on).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from icml26.common.validation import real_array

__all__ = ["check_labels", "check_views", "check_views_like"]


def check_views(views: Any, name: str = "views", *, n: int | None = None) -> list[np.ndarray]:
    """``views`` as a list of V >= 1 finite float64 arrays of shape (n, d_v), all with the same n.

    A sequence of 2-D arrays (views may differ in width) or one 3-D array (V views of equal width) is accepted.
    """
    if isinstance(views, (str, bytes)) or not isinstance(views, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a list of 2-D arrays (one per view), got {type(views).__name__}")
    if len(views) == 0:
        raise ValueError(f"{name} must hold at least one view, got none")
    out = [real_array(v, f"{name}[{i}]", ndim=2, dtype=np.float64) for i, v in enumerate(views)]
    rows = {v.shape[0] for v in out}
    if len(rows) != 1:
        raise ValueError(f"{name}: every view must have the same number of samples (rows), got {[v.shape[0] for v in out]}")
    if n is not None and out[0].shape[0] != n:
        raise ValueError(f"{name} must have {n} samples (rows) per view, got {out[0].shape[0]}")
    return out


def check_views_like(views: Any, widths: Sequence[int], name: str = "views") -> list[np.ndarray]:
    """``views`` checked as by :func:`check_views`, with ``len(widths)`` views of these widths (as in training)."""
    out = check_views(views, name)
    if len(out) != len(widths):
        raise ValueError(f"{name} must hold {len(widths)} views (as in training), got {len(out)}")
    bad = [i for i, (a, w) in enumerate(zip(out, widths)) if a.shape[1] != w]
    if bad:
        raise ValueError(f"{name}: views {bad} have widths {[out[i].shape[1] for i in bad]}, expected "
                         f"{[widths[i] for i in bad]} (as in training)")
    return out


def check_labels(labels: Any, name: str = "labels", *, n: int | None = None, n_classes: int | None = None
                 ) -> np.ndarray:
    """``labels`` as a 1-D int64 array of class indices >= 0 (and < ``n_classes``), of length ``n`` if given.

    Integer arrays and float arrays holding whole numbers are accepted; bools, NaN, fractions and strings are not.
    """
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"{name} must be an array of class indices, got {type(labels).__name__}")
    a = np.asarray(labels)
    if a.dtype.kind == "b":
        raise TypeError(f"{name} must hold integer class indices, got dtype bool")
    y = real_array(a, name, ndim=1)
    if not np.all(y == np.round(y)):
        raise ValueError(f"{name} must hold whole numbers (class indices), got fractions")
    if n is not None and y.shape[0] != n:
        raise ValueError(f"{name} must have length {n} (one per sample), got {y.shape[0]}")
    if y.min() < 0:
        raise ValueError(f"{name} must be >= 0 (class indices), got min {y.min():g}")
    if n_classes is not None and y.max() >= n_classes:
        raise ValueError(f"{name} must be < n_classes = {n_classes}, got max {y.max():g}")
    return y.astype(np.int64)
