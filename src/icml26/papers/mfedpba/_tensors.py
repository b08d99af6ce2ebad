"""Argument checks for tensors and arrays: torch tensors keep their graph (so gradients flow), array-likes go
through :mod:`icml26.common.validation`; every refusal names the argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import real_array

__all__ = ["as_labels", "as_tensor"]


def as_tensor(x: Any, name: str, *, ndim: int, shape: Sequence[int | None] | None = None,
              dtype: torch.dtype = torch.float32) -> Tensor:
    """``x`` as a finite real tensor with ``ndim`` dimensions (and ``shape``; ``None`` = any length), not empty.

    A floating-point tensor is returned as is (its dtype and autograd graph kept); anything else is checked as an
    array and converted to ``dtype``.
    """
    if isinstance(x, Tensor):
        if x.is_complex() or not (x.is_floating_point() or x.dtype in (torch.int32, torch.int64)):
            raise TypeError(f"{name} must be a real tensor, got dtype {x.dtype}")
        t = x if x.is_floating_point() else x.to(dtype)
        if t.ndim != ndim:
            raise ValueError(f"{name} must be {ndim}-dimensional, got shape {tuple(t.shape)}")
        if shape is not None and any(s is not None and s != u for s, u in zip(shape, t.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got {tuple(t.shape)}")
        if t.numel() == 0:
            raise ValueError(f"{name} must not be empty, got shape {tuple(t.shape)}")
        if not bool(torch.isfinite(t.detach()).all()):
            raise ValueError(f"{name} must be finite (got NaN or inf)")
        return t
    a = real_array(x, name, ndim=ndim, shape=shape)
    return torch.from_numpy(np.ascontiguousarray(a)).to(dtype)


def as_labels(y: Any, name: str, *, n: int | None = None, n_classes: int | None = None) -> Tensor:
    """``y`` as a 1-D int64 tensor of class labels in ``[0, n_classes)`` (of length ``n`` when given)."""
    if isinstance(y, Tensor):
        if y.is_floating_point() or y.is_complex() or y.dtype == torch.bool:
            raise TypeError(f"{name} must hold integer class labels, got dtype {y.dtype}")
        a = y.detach().cpu().numpy()
    else:
        a = np.asarray(y) if not isinstance(y, (str, bytes)) else y
        if isinstance(a, (str, bytes)) or a.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold integer class labels, got {type(y).__name__}")
        if a.dtype.kind == "b":
            raise TypeError(f"{name} must hold integer class labels, got dtype bool")
    a = real_array(a, name, ndim=1)
    if np.any(a != np.round(a)) or np.any(a < 0):
        raise ValueError(f"{name} must hold non-negative integer class labels")
    if n is not None and a.size != n:
        raise ValueError(f"{name} must have length {n} (one label per row), got {a.size}")
    if n_classes is not None and a.max() >= n_classes:
        raise ValueError(f"{name} has label {int(a.max())} >= n_classes = {n_classes}")
    return torch.from_numpy(a.astype(np.int64))
