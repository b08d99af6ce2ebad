"""GPU SpMV for the MACKO format in Triton (the MACKO SpMV kernel of [P05]); imported only when asked for.

The paper's CUDA kernel gives one warp to a row: each lane loads 8 values and their 8 nibbles, a warp prefix sum
of ``Δ + 1`` rebuilds the columns, the lanes gather ``x`` and accumulate in fp32, and a warp reduction writes
``y[row]``. The Triton program below is the same per row: ``BLOCK // 8`` lanes of 8 entries (one warp of 32 lanes at
the default ``BLOCK = 256``, ``num_warps = 1``), a 16-byte load of the values and a 32-bit load of the nibbles per
lane, ``tl.cumsum`` for the warp scan and ``tl.sum`` for the reduction; program axis 1 runs over the batch.

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
    def macko_spmv_kernel(values_ptr, deltas_ptr, row_ptr_ptr, x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):  # pyright: ignore[reportInvalidTypeForm]
        # One program per (row, batch item). BLOCK entries per step, as BLOCK // 8 lanes of 8 entries each: with
        # BLOCK = 256 and one warp, this is the paper's warp (32 lanes, a 16-byte load of 8 fp16 values and one
        # 32-bit word of their 8 nibbles per lane).
        row = tl.program_id(0)
        b = tl.program_id(1)
        start = tl.load(row_ptr_ptr + row)
        end = tl.load(row_ptr_ptr + row + 1)
        LANES: tl.constexpr = BLOCK // 8  # pyright: ignore[reportInvalidTypeForm]
        lane = tl.arange(0, LANES)
        sub = tl.arange(0, 8)
        words = deltas_ptr.to(tl.pointer_type(tl.uint32))  # entry 8j + i is nibble i of word j (little endian)
        shift = (sub * 4).to(tl.uint32)
        acc = tl.zeros([LANES, 8], dtype=tl.float32)
        base = start * 0 - 1  # col_{-1} = -1 (int32)
        xb = x_ptr + b * n_cols
        # the paper's alignment: start at the row's first entry rounded down to a multiple of 8 and mask the
        # previous row's entries, so that every lane's 8 entries are one aligned vector; a lane whose 8 entries all
        # lie past the row is masked whole (the arrays are padded to a multiple of 16, so no load leaves them)
        for k0 in range((start // 8) * 8, end, BLOCK):
            k0 = tl.multiple_of(k0, 8)
            first = k0 + lane * 8
            live = first < end
            k = first[:, None] + sub[None, :]
            v = tl.load(values_ptr + k, mask=live[:, None], other=0.0).to(tl.float32)
            word = tl.load(words + first // 8, mask=live, other=0)
            d = ((word[:, None] >> shift[None, :]) & 15).to(tl.int32)
            m = (k >= start) & (k < end)
            inc = tl.where(m, d + 1, 0)  # col_k = col_{k-1} + 1 + delta_k
            lane_inc = tl.sum(inc, axis=1)
            # the warp scan: each lane's exclusive prefix over the lanes before it, then its own running sum
            cols = base + (tl.cumsum(lane_inc, axis=0) - lane_inc)[:, None] + tl.cumsum(inc, axis=1)
            xv = tl.load(xb + cols, mask=m, other=0.0).to(tl.float32)
            acc += tl.where(m, v * xv, 0.0)
            base += tl.sum(lane_inc, axis=0)
        tl.store(y_ptr + b * n_rows + row, tl.sum(tl.sum(acc, axis=1), axis=0))  # cast to y's dtype (fp32 sum)

    return macko_spmv_kernel


class TritonMacko:
    """A :class:`~icml26.papers.macko.MackoMatrix` on the GPU; ``obj(X)`` computes ``Y = X Wᵀ`` there (Alg. of [P05]).

    Args:
        matrix: the MACKO matrix.
        block: entries per program step, a power of two >= 16 (the paper's warp: 32 lanes x 8 = 256).
        num_warps: warps per program (one row); 1 with ``block=256`` is the paper's warp per row.
        interpret: run the kernel in Triton's interpreter on CPU tensors instead of compiling it for a GPU (needs
            ``TRITON_INTERPRET=1`` in the environment before triton is first imported).
    """

    def __init__(self, matrix: Any, *, block: int = 256, num_warps: int = 1, interpret: bool = False) -> None:
        if isinstance(block, bool) or not isinstance(block, int) or block < 16 or block & (block - 1):
            raise ValueError(f"block must be a power of two >= 16, got {block!r}")
        if isinstance(num_warps, bool) or not isinstance(num_warps, int) or not 1 <= num_warps <= 32 \
                or num_warps & (num_warps - 1):
            raise ValueError(f"num_warps must be a power of two in [1, 32], got {num_warps!r}")
        torch, triton, tl = _require(gpu=not interpret)
        self.kernel = _kernel(triton, tl, interpret=bool(interpret))
        self.torch = torch
        self.block = block
        self.num_warps = num_warps
        self.shape = matrix.shape
        self.device = torch.device("cpu" if interpret else "cuda")
        # fresh torch allocations (aligned): the kernel reads the packed nibbles as 32-bit words
        self.values, self.deltas, self.row_ptr = (torch.from_numpy(a).to(self.device, copy=True)
                                                  for a in (matrix.values, matrix.deltas, matrix.row_ptr))

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
            self.kernel[(r, X.shape[0])](self.values, self.deltas, self.row_ptr, X, Y, r, c, BLOCK=self.block,
                                          num_warps=self.num_warps)
        return Y


def triton_spmv(matrix: Any, X: np.ndarray) -> Any:
    """``Y = X Wᵀ`` on the GPU for ``X`` (B, C) on the host; the device copy of ``W`` is cached on the matrix."""
    if matrix._gpu is None:
        matrix._gpu = TritonMacko(matrix)
    torch = matrix._gpu.torch
    return matrix._gpu(torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32)))
