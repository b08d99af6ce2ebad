"""Argument checks shared by the RL helpers: numpy arrays and torch tensors in, the same kind out.

Every helper of :mod:`icml26.common.rl` that is written with array arithmetic only accepts either a numpy array (or
anything ``np.asarray`` takes: computed in float64) or a torch tensor (computed in its own floating dtype; an integer
or bool tensor becomes the default float dtype), so a numpy trainer and a torch trainer call the same function.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from icml26.common import validation

__all__ = ["as_float", "is_tensor", "same_shape", "zeros_like"]


def is_tensor(x: object) -> bool:
    """Whether ``x`` is a torch tensor (without importing torch when it is not loaded)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def as_float(x: Any, name: str, *, min_ndim: int = 1, max_ndim: int | None = None, finite: bool = True) -> Any:
    """``x`` as a float64 numpy array, or a floating torch tensor; refused (naming ``name``) when it is empty, has
    fewer than ``min_ndim`` (or more than ``max_ndim``) dimensions, is complex, holds strings, or is not finite."""
    if is_tensor(x):
        import torch

        if x.is_complex():
            raise TypeError(f"{name} must hold real numbers, got a {x.dtype} tensor")
        t = x if x.is_floating_point() else x.to(torch.get_default_dtype())
        if t.ndim < min_ndim or (max_ndim is not None and t.ndim > max_ndim):
            raise ValueError(f"{name} must have {min_ndim}..{max_ndim or 'any'} dimensions, got shape {tuple(t.shape)}")
        if t.numel() == 0:
            raise ValueError(f"{name} must not be empty, got shape {tuple(t.shape)}")
        if finite and not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} must be finite (got NaN or inf)")
        return t
    dims = range(min_ndim, (max_ndim if max_ndim is not None else 32) + 1)
    return validation.real_array(x, name, ndim=tuple(dims), finite=finite)


def same_shape(a: Any, b: Any, names: tuple[str, str]) -> None:
    """A ``ValueError`` naming both arguments unless ``a`` and ``b`` have one shape and are of one kind."""
    if is_tensor(a) != is_tensor(b):
        raise TypeError(f"{names[0]} and {names[1]} must both be numpy arrays or both torch tensors")
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{names[0]} and {names[1]} must have the same shape, got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")


def zeros_like(x: Any) -> Any:
    """Zeros of ``x``'s shape and kind."""
    if is_tensor(x):
        import torch

        return torch.zeros_like(x)
    return np.zeros_like(x)
