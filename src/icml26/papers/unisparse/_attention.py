"""Block-sparse causal attention of [P30]: exact softmax attention restricted to the key blocks a mask selects.

Three implementations of one function: the native CPU kernel (C++, nanobind: ``_unisparse_native``), the Triton
kernel for CUDA tensors (``_triton.py``) and a torch reference, which is the oracle of the tests and the fallback when
the extension is absent (``ICML26_NO_EXT=1``, or a block size / head dim the kernel does not take).
"""

from __future__ import annotations

import math
import os
from types import ModuleType
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from icml26.common.validation import choice, int_at_least, real
from icml26.papers.unisparse._mask import BlockMask, as_heads

__all__ = ["BACKENDS", "block_sparse_attention", "full_attention", "native_available", "reference_attention"]

BACKENDS = ("auto", "native", "triton", "reference")
_NATIVE: ModuleType | None | bool = False  # False: not looked up yet


def _native() -> ModuleType | None:
    global _NATIVE
    if _NATIVE is False:
        _NATIVE = None
        if not os.environ.get("ICML26_NO_EXT"):
            try:
                from icml26.papers.unisparse import _unisparse_native  # type: ignore[attr-defined]

                _NATIVE = _unisparse_native
            except ImportError:
                _NATIVE = None
    return _NATIVE  # type: ignore[return-value]


def native_available() -> bool:
    """True when the C++ kernel of [P30]'s block-sparse attention is built and not disabled (``ICML26_NO_EXT``)."""
    return _native() is not None


def _check_qkv(q: Any, k: Any, v: Any) -> tuple[Tensor, Tensor, Tensor]:
    qt, kt, vt = as_heads(q, "q"), as_heads(k, "k"), as_heads(v, "v")
    if kt.shape != vt.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(kt.shape)} and {tuple(vt.shape)}")
    if qt.shape[1:] != kt.shape[1:]:
        raise ValueError(f"q and k must share (n, d), got q {tuple(qt.shape)} and k {tuple(kt.shape)}")
    if qt.shape[0] % kt.shape[0]:
        raise ValueError(f"the heads of q ({qt.shape[0]}) must be a multiple of the heads of k ({kt.shape[0]})")
    if len({qt.device, kt.device, vt.device}) != 1:
        raise ValueError("q, k and v must be on one device")
    return qt, kt, vt


def full_attention(q: Any, k: Any, v: Any, *, scale: float | None = None) -> Tensor:
    """Dense causal softmax attention (torch SDPA), the reference [P30] is compared with; grouped-query heads allowed.

    Args:
        q: ``(hq, n, d)`` queries.
        k: ``(hkv, n, d)`` keys, ``hq`` a multiple of ``hkv``.
        v: ``(hkv, n, d)`` values.
        scale: the logit scale (default ``1 / sqrt(d)``).
    """
    qt, kt, vt = _check_qkv(q, k, v)
    s = 1.0 / math.sqrt(qt.shape[-1]) if scale is None else real(scale, "scale", lo=0.0, lo_open=True)
    g = qt.shape[0] // kt.shape[0]
    kt, vt = kt.repeat_interleave(g, dim=0), vt.repeat_interleave(g, dim=0)
    return F.scaled_dot_product_attention(qt[None], kt[None].to(qt.dtype), vt[None].to(qt.dtype), is_causal=True,
                                          scale=s)[0]


def reference_attention(q: Tensor, k: Tensor, v: Tensor, mask: BlockMask, *, scale: float) -> Tensor:
    """Torch reference of [P30]'s block-sparse attention (fp32, query block by query block); arguments as in
    :func:`block_sparse_attention`, already checked. Used as the oracle and the fallback."""
    hq, n, _ = q.shape
    g = hq // k.shape[0]
    b = mask.block
    out = torch.empty_like(q, dtype=torch.float32)
    qf, kf, vf = q.float(), k.float(), v.float()
    blocks = mask.blocks.cpu()
    for h in range(hq):
        kh, vh = kf[h // g], vf[h // g]
        for i in range(mask.nb):
            rows = torch.arange(i * b, min(n, (i + 1) * b))
            sel = torch.nonzero(blocks[h, i])[:, 0]
            keys = (sel[:, None] * b + torch.arange(b)[None]).flatten()
            keys = keys[keys < n]
            logits = (qf[h, rows] @ kh[keys].T) * scale
            logits = logits.masked_fill(keys[None] > rows[:, None], float("-inf"))
            out[h, rows] = torch.softmax(logits, dim=-1) @ vh[keys]
    return out


def _native_attention(mod: ModuleType, q: Tensor, k: Tensor, v: Tensor, mask: BlockMask, *, scale: float,
                      threads: int) -> Tensor:
    hq, n, d = q.shape
    b = mask.block
    n_pad, d_pad = mask.nb * b, -(-d // 16) * 16

    def padded(x: Tensor) -> Tensor:
        x = x.detach().to(torch.float32)
        if (n_pad, d_pad) != (n, d):
            x = F.pad(x, (0, d_pad - d, 0, n_pad - n))
        return x.contiguous()

    qp, kp, vp = padded(q), padded(k), padded(v)
    out = torch.empty((hq, n_pad, d_pad), dtype=torch.float32)
    row_ptr, cols = mask.to_csr()
    mod.attention(qp.numpy(), kp.numpy(), vp.numpy(), row_ptr.numpy(), cols.numpy(), out.numpy(), b, float(scale),
                  int(mod.best_isa()), threads)
    return out[:, :n, :d]


def block_sparse_attention(q: Any, k: Any, v: Any, mask: BlockMask, *, scale: float | None = None,
                           backend: str = "auto", threads: int | None = None) -> Tensor:
    """Causal softmax attention of each query over the keys of its selected blocks only ([P30], block-level sparse
    attention: O_i = softmax(Q_i K_selᵀ · scale) V_sel, the causal mask inside the diagonal block).

    Args:
        q: ``(hq, n, d)`` queries (torch tensor or numpy array).
        k: ``(hkv, n, d)`` keys; query head h reads key head ``h // (hq // hkv)`` (grouped-query attention).
        v: ``(hkv, n, d)`` values.
        mask: a :class:`BlockMask` with ``hq`` heads and length ``n``, e.g. from :func:`unisparse_mask`.
        scale: the logit scale (default ``1 / sqrt(d)``).
        backend: ``"auto"`` (the Triton kernel for CUDA tensors, the native CPU kernel when built and the block size is
            a multiple of 16, else the reference), ``"native"``, ``"triton"`` or ``"reference"``.
        threads: CPU threads of the native kernel (default: ``torch.get_num_threads()``).

    Returns:
        ``(hq, n, d)`` in ``q``'s dtype (computed in fp32), on ``q``'s device. With :meth:`BlockMask.full` it is full
        causal attention up to rounding.
    """
    qt, kt, vt = _check_qkv(q, k, v)
    if not isinstance(mask, BlockMask):
        raise TypeError(f"mask must be a BlockMask, got {type(mask).__name__}")
    if mask.heads != qt.shape[0] or mask.n != qt.shape[1]:
        raise ValueError(f"mask is for {mask.heads} heads and n={mask.n}; q has {qt.shape[0]} heads and n={qt.shape[1]}")
    backend = choice(backend, "backend", BACKENDS)
    s = 1.0 / math.sqrt(qt.shape[-1]) if scale is None else real(scale, "scale", lo=0.0, lo_open=True)
    nthreads = torch.get_num_threads() if threads is None else int_at_least(threads, "threads", 1)
    if backend == "auto":
        if qt.is_cuda:
            backend = "triton"
        elif _native() is not None and mask.block % 16 == 0 and mask.block <= 256 and qt.shape[-1] <= 256:
            backend = "native"
        else:
            backend = "reference"
    if backend == "triton":
        from icml26.papers.unisparse._triton import triton_attention

        return triton_attention(qt, kt, vt, mask, scale=s).to(qt.dtype)
    if qt.is_cuda:
        raise ValueError(f"backend {backend!r} runs on the CPU; q is on {qt.device}")
    if backend == "native":
        mod = _native()
        if mod is None:
            raise RuntimeError("the native kernel is not built (or ICML26_NO_EXT is set): use backend='reference'")
        if mask.block % 16 or mask.block > 256 or qt.shape[-1] > 256:
            raise ValueError(f"the native kernel takes a block that is a multiple of 16 up to 256 and d <= 256, got "
                             f"block={mask.block}, d={qt.shape[-1]}")
        return _native_attention(mod, qt, kt, vt, mask, scale=s, threads=nthreads).to(qt.dtype)
    return reference_attention(qt, kt, vt, mask, scale=s).to(qt.dtype)
