"""Block-sparse causal attention in Triton for CUDA tensors ([P30]'s hardware-friendly GPU execution); imported only
when asked for.

One program per (query block, query head): it loads its query block once, walks the selected key blocks of its row in
the CSR layout of :meth:`BlockMask.to_csr` (ascending), and keeps a FlashAttention-style running max, sum and output
in registers; scores use ``exp2`` with the logit scale folded into log2(e). The sequence is padded to a multiple of
the block and the head dim to a power of two (zeros: they change no score and no kept output).

``TRITON_INTERPRET=1`` in the environment before triton is imported runs the same kernel in Triton's interpreter on
CPU tensors: that is how CI checks its logic against the reference (in a subprocess), for fp32 and fp16 inputs
(the interpreter mishandles bf16 tensors, so bf16 is checked on a GPU only). ``benchmarks/unisparse/gpu_session.sh``
checks and times the compiled kernel on a GPU.
"""

from __future__ import annotations

import os
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from icml26.papers.unisparse._mask import BlockMask

__all__ = ["triton_attention"]

_KERNEL: Any = None


def _require() -> tuple[Any, Any]:
    try:
        import triton
        import triton.language as tl
    except ImportError as exc:
        raise ImportError("backend='triton' needs triton: pip install 'icml26[gpu]'") from exc
    return triton, tl


def _define(triton: Any, tl: Any) -> Any:
    @triton.jit
    def bsa_kernel(q_ptr, k_ptr, v_ptr, o_ptr, row_ptr, cols, qk_scale, n, nb, group,  # pyright: ignore
                   D: tl.constexpr, BLOCK: tl.constexpr):  # pyright: ignore[reportInvalidTypeForm]
        i = tl.program_id(0)
        h = tl.program_id(1)
        g = h // group
        rows = i * BLOCK + tl.arange(0, BLOCK)
        feats = tl.arange(0, D)
        q = tl.load(q_ptr + (h * n + rows)[:, None] * D + feats[None, :])
        m_i = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
        l_i = tl.zeros([BLOCK], dtype=tl.float32)
        acc = tl.zeros([BLOCK, D], dtype=tl.float32)
        start = tl.load(row_ptr + h * nb + i)
        end = tl.load(row_ptr + h * nb + i + 1)
        for e in range(start, end):
            j = tl.load(cols + e)
            keys = j * BLOCK + tl.arange(0, BLOCK)
            k = tl.load(k_ptr + (g * n + keys)[:, None] * D + feats[None, :])
            v = tl.load(v_ptr + (g * n + keys)[:, None] * D + feats[None, :])
            s = tl.dot(q, tl.trans(k)) * qk_scale
            s = tl.where(keys[None, :] <= rows[:, None], s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, axis=1))
            alpha = tl.exp2(m_i - m_new)
            p = tl.exp2(s - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_new
        out = acc / l_i[:, None]
        tl.store(o_ptr + (h * n + rows)[:, None] * D + feats[None, :], out)

    return bsa_kernel


def triton_attention(q: Tensor, k: Tensor, v: Tensor, mask: BlockMask, *, scale: float,
                     num_warps: int = 4) -> Tensor:
    """[P30]'s block-sparse attention with the Triton kernel: ``q`` ``(hq, n, d)``, ``k``/``v`` ``(hkv, n, d)`` on one
    device (CUDA, or the CPU under ``TRITON_INTERPRET=1``), already checked by :func:`block_sparse_attention`.
    fp16/bf16 inputs are multiplied in their dtype with fp32 accumulation; others in fp32. Returns fp32."""
    global _KERNEL
    triton, tl = _require()
    interpret = os.environ.get("TRITON_INTERPRET", "0") == "1"
    if not q.is_cuda and not interpret:
        raise RuntimeError("the Triton kernel needs CUDA tensors (or TRITON_INTERPRET=1 set before triton is "
                           "imported, to run it on the CPU)")
    if mask.block < 16 or mask.block & (mask.block - 1):
        raise ValueError(f"the Triton kernel takes a power-of-two block >= 16, got {mask.block}")
    if _KERNEL is None:
        _KERNEL = _define(triton, tl)
    hq, n, d = q.shape
    d_pad = max(16, 1 << (d - 1).bit_length())
    n_pad = mask.nb * mask.block
    dtype = q.dtype if q.dtype in (torch.float16, torch.bfloat16) else torch.float32

    def padded(x: Tensor) -> Tensor:
        return F.pad(x.to(dtype), (0, d_pad - d, 0, n_pad - n)).contiguous()

    qp, kp, vp = padded(q), padded(k), padded(v)
    out = torch.empty((hq, n_pad, d_pad), dtype=torch.float32, device=q.device)
    row_ptr, cols = (t.to(q.device) for t in mask.to_csr())
    if cols.numel() == 0:
        cols = torch.zeros(1, dtype=torch.int32, device=q.device)
    _KERNEL[(mask.nb, hq)](qp, kp, vp, out, row_ptr, cols, float(scale) * 1.4426950408889634, n_pad, mask.nb,
                           hq // k.shape[0], D=d_pad, BLOCK=mask.block, num_warps=num_warps)
    return out[:, :n, :d]
