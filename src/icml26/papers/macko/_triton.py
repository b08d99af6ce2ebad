"""GPU SpMV for the MACKO format in Triton (the MACKO SpMV kernel of [P05]); imported only when asked for.

The paper's CUDA kernel gives one warp to a row: each lane loads 8 values and their 8 nibbles, a warp prefix sum
of ``Δ + 1`` rebuilds the columns, the lanes gather ``x`` and accumulate in fp32, and a warp reduction writes
``y[row]``. The Triton program below does the same per row with a ``BLOCK``-wide slice instead of a warp
(``tl.cumsum`` is the warp scan, ``tl.sum`` the reduction); program axis 1 runs over the batch.

``interpret=True`` (with ``TRITON_INTERPRET=1`` set before triton is imported) runs the very same kernel in
Triton's interpreter on CPU tensors, no GPU needed: that is how CI checks the kernel's logic against the numpy
reference (in a subprocess). ``benchmarks/macko/gpu_session.sh`` checks and times the
compiled kernel on a GPU.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["TritonMacko", "triton_spmv"]

_KERNEL: Any = None


def _require(*, gpu: bool) -> tuple[Any, Any, Any]:
    try:
        import torch
    except ImportError as exc:
        raise ImportError("device='cuda' needs torch with CUDA: pip install 'icml26[torch,gpu]'") from exc
    try:
        import triton
        import triton.language as tl
    except ImportError as exc:
        raise ImportError("device='cuda' needs triton: pip install 'icml26[gpu]'") from exc
    if gpu and not torch.cuda.is_available():
        raise RuntimeError("device='cuda' needs a CUDA GPU, but torch.cuda.is_available() is False "
                           "(TritonMacko(..., interpret=True) runs the kernel on the CPU)")
    return torch, triton, tl


def _kernel(triton: Any, tl: Any, *, interpret: bool) -> Any:
    """The jitted kernel, defined once per process.

    Triton's interpreter is all or nothing: ``TRITON_INTERPRET=1`` must be in the environment before triton is
    first imported, and then every kernel of the process is interpreted.
    """
    global _KERNEL
    if interpret and os.environ.get("TRITON_INTERPRET", "0") != "1":
        raise RuntimeError("interpret=True needs TRITON_INTERPRET=1 in the environment before triton is first "
                           "imported (e.g. TRITON_INTERPRET=1 python your_script.py)")
    if _KERNEL is None:
        _KERNEL = _define(triton, tl)
    return _KERNEL


def _define(triton: Any, tl: Any) -> Any:
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
        tl.store(y_ptr + b * n_rows + row, tl.sum(acc, axis=0))  # cast to y's dtype (fp32 accumulation)

    return macko_spmv_kernel


class TritonMacko:
    """A :class:`~icml26.papers.macko.MackoMatrix` on the GPU; ``obj(X)`` computes ``Y = X Wᵀ`` there (Alg. of [P05]).

    Args:
        matrix: the MACKO matrix.
        block: entries per program step, a power of two >= 16 (the paper's warp: 32 lanes x 8 = 256).
        interpret: run the kernel in Triton's interpreter on CPU tensors instead of compiling it for a GPU (needs
            ``TRITON_INTERPRET=1`` in the environment before triton is first imported).
    """

    def __init__(self, matrix: Any, *, block: int = 256, interpret: bool = False) -> None:
        if isinstance(block, bool) or not isinstance(block, int) or block < 16 or block & (block - 1):
            raise ValueError(f"block must be a power of two >= 16, got {block!r}")
        torch, triton, tl = _require(gpu=not interpret)
        self.kernel = _kernel(triton, tl, interpret=bool(interpret))
        self.torch = torch
        self.block = block
        self.shape = matrix.shape
        self.device = torch.device("cpu" if interpret else "cuda")
        self.values = torch.from_numpy(matrix.values).to(self.device)
        self.deltas = torch.from_numpy(matrix.deltas).to(self.device)
        self.row_ptr = torch.from_numpy(matrix.row_ptr).to(self.device)

    @property
    def nbytes(self) -> int:
        """Bytes of the three arrays on the device."""
        return sum(t.numel() * t.element_size() for t in (self.values, self.deltas, self.row_ptr))

    def __call__(self, X: Any, *, out_dtype: Any = None) -> Any:
        """``X``: ``(B, C)`` tensor (fp16, bf16 or fp32; read as is, accumulated in fp32) -> ``(B, R)`` tensor.

        Args:
            X: the batch of input vectors, on the kernel's device (a CPU tensor is copied over).
            out_dtype: dtype of ``Y``; None = float32. The store casts the fp32 sum once.
        """
        torch = self.torch
        r, c = self.shape
        if not isinstance(X, torch.Tensor):
            raise TypeError(f"X must be a torch.Tensor, got {type(X).__name__}")
        if X.ndim != 2 or X.shape[1] != c:
            raise ValueError(f"X must have shape (B, {c}), got {tuple(X.shape)}")
        if X.dtype not in (torch.float16, torch.bfloat16, torch.float32):
            raise ValueError(f"X must be float16, bfloat16 or float32, got {X.dtype}")
        X = X.to(self.device).contiguous()
        Y = torch.empty((X.shape[0], r), device=self.device, dtype=out_dtype or torch.float32)
        if r and X.shape[0]:
            self.kernel[(r, X.shape[0])](self.values, self.deltas, self.row_ptr, X, Y, r, c, BLOCK=self.block)
        return Y


def triton_spmv(matrix: Any, X: np.ndarray) -> Any:
    """``Y = X Wᵀ`` on the GPU for ``X`` (B, C) on the host; the device copy of ``W`` is cached on the matrix."""
    if matrix._gpu is None:
        matrix._gpu = TritonMacko(matrix)
    torch = matrix._gpu.torch
    return matrix._gpu(torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32)))
