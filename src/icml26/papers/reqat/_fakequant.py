"""Block-scaled FP4 fake quantisation of [P11] (§2 of the notes): MXFP4, NVFP4 and the E1M2 KV cache, with the
straight-through estimator used by QAT.

A tensor is cut into blocks of ``scheme.block`` consecutive elements along its last axis (the reduction axis of the
matrix product it feeds; a short last block is padded with zeros, which change no block maximum). Per block:

- MXFP4 (OCP MX v1.0): X = 2^(floor(log2 amax_b) − emax) in E8M0; x̂ = X · E2M1(x / X).
- NVFP4: a float32 global scale g = amax / (max_elem · 448) and an E4M3 block scale s_b = E4M3(amax_b / (max_elem · g));
  x̂ = s_b g · E2M1(x / (s_b g)).

The element format is E2M1 for weights and activations and E1M2 for the KV cache (``scheme.kv_element``). The global
amax of NVFP4 is the whole tensor's for weights and each row's (token's) for activations and K/V (``per_row``): a
dynamic stand-in for the static per-tensor activation scale a deployment calibrates (our choice, see the card).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import choice
from icml26.papers.reqat._formats import E4M3, FORMATS, MiniFloat, e4m3_round, e8m0_scale, round_to_format

__all__ = ["MXFP4", "NONE", "NVFP4", "SCHEMES", "FP4Scheme", "fake_quant", "fp4_quantize", "resolve_scheme"]


@dataclass(frozen=True)
class FP4Scheme:
    """A microscaled FP4 format of [P11] (§2): element format, block size, block-scale format, global scale.

    ``block = 0`` is the no-quantisation scheme (:data:`NONE`): every quantiser is the identity.
    """

    name: str
    block: int
    scale: str  # "e8m0" (MX) | "e4m3" (NV) | "none"
    global_scale: bool
    element: str = "e2m1"
    kv_element: str = "e1m2"

    @property
    def quantises(self) -> bool:
        """Whether this scheme changes anything (False for :data:`NONE`)."""
        return self.block > 0


MXFP4 = FP4Scheme("mxfp4", block=32, scale="e8m0", global_scale=False)
NVFP4 = FP4Scheme("nvfp4", block=16, scale="e4m3", global_scale=True)
NONE = FP4Scheme("none", block=0, scale="none", global_scale=False)
SCHEMES: dict[str, FP4Scheme] = {s.name: s for s in (MXFP4, NVFP4, NONE)}


def resolve_scheme(scheme: str | FP4Scheme, name: str = "scheme") -> FP4Scheme:
    """``scheme`` as an :class:`FP4Scheme` of [P11] (a name of :data:`SCHEMES` or the object itself)."""
    if isinstance(scheme, FP4Scheme):
        return scheme
    return SCHEMES[choice(scheme, name, list(SCHEMES))]


def _blocks(x: Tensor, block: int) -> tuple[Tensor, int]:
    """``x`` as (..., n_blocks, block), zero-padded on the last axis; returns the padding too."""
    n = x.shape[-1]
    pad = (-n) % block
    if pad:
        x = torch.nn.functional.pad(x, (0, pad))
    return x.reshape(*x.shape[:-1], -1, block), pad


def _quantize(x: Tensor, scheme: FP4Scheme, elem: MiniFloat, per_row: bool) -> Tensor:
    """The dequantised value of ``x`` (float32 arithmetic, ``x``'s dtype out); no validation (hot path)."""
    if not scheme.quantises or x.numel() == 0:
        return x
    xb, pad = _blocks(x.float(), scheme.block)
    amax = xb.abs().amax(dim=-1, keepdim=True)  # (..., n_blocks, 1)
    if scheme.scale == "e8m0":
        step = e8m0_scale(amax, elem)  # a power of two: x / step is exact
    else:
        if scheme.global_scale:
            gmax = amax.amax(dim=-2, keepdim=True) if per_row else amax.amax()
            g = gmax / (elem.max_value * E4M3.max_value)
        else:
            g = torch.ones((), dtype=amax.dtype)
        step = e4m3_round(amax / (elem.max_value * g)) * g  # an all-zero row: 0/0, NaN, and no step > 0 below
    v = torch.where(step > 0, xb / step, torch.zeros((), dtype=xb.dtype))
    q = (round_to_format(v, elem) * step.nan_to_num(0.0)).reshape(*xb.shape[:-2], -1)
    if pad:
        q = q[..., : q.shape[-1] - pad]
    return q.to(x.dtype)


def _as_tensor(x: Any, name: str) -> Tensor:
    """A real, finite, non-empty floating tensor (numpy arrays and nested lists are converted)."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a tensor of real numbers, got {type(x).__name__}")
    if not isinstance(x, Tensor):
        a = np.asarray(x)
        if a.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {a.dtype}")
        x = torch.as_tensor(a.astype(np.float64))
    if x.is_complex() or not (x.is_floating_point() or x.dtype in (torch.int32, torch.int64, torch.bool)):
        raise TypeError(f"{name} must hold real numbers, got {x.dtype}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(x.shape)}")
    if x.ndim == 0:
        raise ValueError(f"{name} must have at least one dimension (blocks run along the last)")
    x = x if x.is_floating_point() else x.double()
    if not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} must be finite (got NaN or inf)")
    return x


def fp4_quantize(x: Tensor | np.ndarray | Sequence[Any], scheme: str | FP4Scheme, *, kind: str = "weight") -> Tensor:
    """Round-to-nearest block-scaled FP4 quantisation of ``x`` along its last axis ([P11] §2; PTQ's RTN).

    Args:
        x: a real tensor (or array); blocks run along the last axis.
        scheme: ``"mxfp4"``, ``"nvfp4"``, ``"none"`` or an :class:`FP4Scheme`.
        kind: ``"weight"`` (E2M1, NVFP4 global scale over the whole tensor), ``"activation"`` (E2M1, global scale
            per row) or ``"kv"`` (the scheme's KV element format, E1M2, global scale per row).

    Returns:
        The dequantised tensor (same shape and dtype): every block holds values of the element grid times its scale.
    """
    t = _as_tensor(x, "x")
    s = resolve_scheme(scheme)
    kind = choice(kind, "kind", ["weight", "activation", "kv"])
    elem = FORMATS[s.kv_element if kind == "kv" else s.element]
    return _quantize(t, s, elem, per_row=kind != "weight")


def fake_quant(x: Tensor, scheme: FP4Scheme, *, kind: str = "weight") -> Tensor:
    """Fake quantisation with the straight-through estimator ([P11] §2, QAT): the forward value is
    :func:`fp4_quantize`'s, the gradient passes unchanged (d x̂ / d x = I), as ``q(x) + (x − x.detach())``."""
    if not scheme.quantises:
        return x
    elem = FORMATS[scheme.kv_element if kind == "kv" else scheme.element]
    q = _quantize(x.detach(), scheme, elem, per_row=kind != "weight")
    return q + (x - x.detach())  # the value is q exactly, the gradient is the identity
