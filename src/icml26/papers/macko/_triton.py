"""GPU SpMV for the MACKO format in Triton (the MACKO SpMV kernel of [P05]); imported only when ``device="cuda"`` is asked for.

The paper's CUDA kernel gives one warp to a row: each lane loads 8 values and their 8 nibbles, a warp prefix sum
of ``Δ + 1`` rebuilds the columns, the lanes gather ``x`` and accumulate in fp32, and a warp reduction writes
``y[row]``. The Triton program below does the same per row with a ``BLOCK``-wide slice instead of a warp
(``tl.cumsum`` is the warp scan, ``tl.sum`` the reduction); program axis 1 runs over the batch.
Untested on a GPU in the session that wrote it: ``benchmarks/macko/gpu_check.py`` checks it against the reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["TritonMacko", "triton_spmv"]

_KERNEL: Any = None


def _require_gpu() -> tuple[Any, Any, Any]:
    try:
        import torch
    except ImportError as exc:
        raise ImportError("device='cuda' needs torch with CUDA: pip install 'icml26[torch,gpu]'") from exc
    try:
        import triton
        import triton.language as tl
    except ImportError as exc:
        raise ImportError("device='cuda' needs triton: pip install 'icml26[gpu]'") from exc
    if not torch.cuda.is_available():
        raise RuntimeError("device='cuda' needs a CUDA GPU, but torch.cuda.is_available() is False")
    return torch, triton, tl


def _build_kernel(triton: Any, tl: Any) -> Any:
    @triton.jit
    def macko_spmv_kernel(values_ptr, deltas_ptr, row_ptr_ptr, x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        b = tl.program_id(1)
        start = tl.load(row_ptr_ptr + row)
        end = tl.load(row_ptr_ptr + row + 1)
        offs = tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        base = start * 0 - 1  # col_{-1} = -1 (int32)
        xb = x_ptr + b * n_cols
        for k0 in range(start, end, BLOCK):
            k = k0 + offs
            m = k < end
            v = tl.load(values_ptr + k, mask=m, other=0.0).to(tl.float32)
            byte = tl.load(deltas_ptr + k // 2, mask=m, other=0).to(tl.int32)
            d = (byte >> ((k % 2) * 4)) & 15
            inc = tl.where(m, d + 1, 0)
            cols = base + tl.cumsum(inc, axis=0)  # col_k = col_{k-1} + 1 + delta_k (the warp scan)
            xv = tl.load(xb + cols, mask=m, other=0.0).to(tl.float32)
            acc += tl.where(m, v * xv, 0.0)
            base += tl.sum(inc, axis=0)
        tl.store(y_ptr + b * n_rows + row, tl.sum(acc, axis=0))

    return macko_spmv_kernel


class TritonMacko:
    """A :class:`~icml26.papers.macko.MackoMatrix` copied to the GPU; ``obj(X)`` computes ``Y = X Wᵀ`` on device.

    Args:
        matrix: the MACKO matrix.
        block: entries per program step (the paper: 32 lanes x 8 = 256).
    """

    def __init__(self, matrix: Any, *, block: int = 256) -> None:
        torch, triton, tl = _require_gpu()
        global _KERNEL
        if _KERNEL is None:
            _KERNEL = _build_kernel(triton, tl)
        if block < 16 or block & (block - 1):
            raise ValueError(f"block must be a power of two >= 16, got {block}")
        self.torch = torch
        self.block = int(block)
        self.shape = matrix.shape
        dev = torch.device("cuda")
        self.values = torch.from_numpy(matrix.values).to(dev)
        self.deltas = torch.from_numpy(matrix.deltas).to(dev)
        self.row_ptr = torch.from_numpy(matrix.row_ptr).to(dev)

    def __call__(self, X: Any) -> Any:
        """``X``: ``(B, C)`` CUDA tensor (any float dtype) -> ``(B, R)`` fp32 CUDA tensor."""
        torch = self.torch
        r, c = self.shape
        if X.ndim != 2 or X.shape[1] != c:
            raise ValueError(f"X must have shape (B, {c}), got {tuple(X.shape)}")
        X = X.to(device="cuda", dtype=torch.float32).contiguous()
        Y = torch.empty((X.shape[0], r), device="cuda", dtype=torch.float32)
        if r and X.shape[0]:
            _KERNEL[(r, X.shape[0])](self.values, self.deltas, self.row_ptr, X, Y, r, c, BLOCK=self.block)
        return Y


def triton_spmv(matrix: Any, X: np.ndarray) -> Any:
    """``Y = X Wᵀ`` on the GPU for ``X`` (B, C) on the host; the device copy of ``W`` is cached on the matrix."""
    if matrix._gpu is None:
        matrix._gpu = TritonMacko(matrix)
    torch = matrix._gpu.torch
    return matrix._gpu(torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32)))
