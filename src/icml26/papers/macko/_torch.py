"""Torch inference layers: MACKO-backed ``MackoLinear`` and the dense fp16 baseline ``DenseFp16Linear`` ([P05]).

``TritonMackoLinear`` is the GPU counterpart of ``MackoLinear`` (the Triton kernel; activations stay on the device).
Imported only by :func:`~icml26.papers.macko.sparsify_linear` and the claims, never by the package core.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.common.validation import positive_int
from icml26.papers.macko._format import to_fp16
from icml26.papers.macko._kernels import dense_fp16_gemv
from icml26.papers.macko._matrix import MackoMatrix

__all__ = ["DenseFp16Linear", "MackoLinear", "TritonMackoLinear"]

_BATCH = 8  # the CPU kernel's batch (decode of up to 8 sequences in one pass over the weights)


class _Fp16Linear(torch.nn.Module):
    """Shared forward: flatten ``(..., C)`` to rows, apply ``_apply(X (B, C) fp32 numpy) -> (B, R)`` per 8 rows."""

    in_features: int
    out_features: int

    def __init__(self, bias: torch.Tensor | None, threads: int) -> None:
        super().__init__()
        self.threads = positive_int(threads, "threads")
        self.register_buffer("bias", None if bias is None else bias.detach().float().clone())

    def _apply_rows(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.in_features:
            raise ValueError(f"x must have last dimension {self.in_features}, got shape {tuple(x.shape)}")
        lead = x.shape[:-1]
        X = x.detach().reshape(-1, self.in_features).to(torch.float32).cpu().numpy()
        out = np.empty((X.shape[0], self.out_features), dtype=np.float32)
        for i in range(0, X.shape[0], _BATCH):
            out[i : i + _BATCH] = self._apply_rows(np.ascontiguousarray(X[i : i + _BATCH]))
        y = torch.from_numpy(out)
        bias = self.bias
        if isinstance(bias, torch.Tensor):
            y = y + bias
        return y.reshape(*lead, self.out_features).to(x.dtype)


class MackoLinear(_Fp16Linear):
    """``y = W x + b`` with ``W`` held as a :class:`MackoMatrix` (fp16 values, fp32 accumulation) - inference only.

    Args:
        weight: ``W`` (out_features, in_features); zeros are not stored (the MACKO format of [P05]).
        bias: optional ``b``.
        threads: CPU threads per SpMV.
    """

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None, *, threads: int = 1) -> None:
        super().__init__(bias, threads)
        self.matrix = MackoMatrix.from_dense(weight.detach())  # fp16 rounding checked: no silent inf
        self.out_features, self.in_features = self.matrix.shape

    def _apply_rows(self, X: np.ndarray) -> np.ndarray:
        if X.shape[0] == 1:
            return self.matrix.matvec(X[0], threads=self.threads)[None, :]
        return self.matrix.matmat(X.T, threads=self.threads).T

    @property
    def weight_nbytes(self) -> int:
        """Bytes of the stored weight (MACKO format)."""
        return self.matrix.nbytes

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, density={self.matrix.density:.3f}"


class DenseFp16Linear(_Fp16Linear):
    """``y = W x + b`` with dense fp16 ``W`` and our SIMD fp16 GEMV (fp32 accumulation): the fair dense baseline."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None, *, threads: int = 1) -> None:
        super().__init__(bias, threads)
        self.w16 = np.ascontiguousarray(to_fp16(weight.detach().float().cpu().numpy(), "weight"))
        self.out_features, self.in_features = self.w16.shape

    def _apply_rows(self, X: np.ndarray) -> np.ndarray:
        return dense_fp16_gemv(self.w16, X, threads=self.threads)

    @property
    def weight_nbytes(self) -> int:
        """Bytes of the stored weight (dense fp16)."""
        return int(self.w16.nbytes)


class TritonMackoLinear(torch.nn.Module):
    """``y = W x + b`` on the GPU with ``W`` in the MACKO format and the Triton SpMV of [P05] - inference only.

    Activations stay on the device in their own dtype (fp16/bf16/fp32); the kernel reads them as they are,
    accumulates in fp32 and writes ``y`` in the input's dtype.

    Args:
        weight: ``W`` (out_features, in_features); zeros are not stored.
        bias: optional ``b``.
        block: entries per Triton program step (see :class:`~icml26.papers.macko._triton.TritonMacko`).
        interpret: run the kernel in Triton's interpreter on the CPU (tests; no GPU needed).
    """

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None, *, block: int = 256,
                 interpret: bool = False) -> None:
        super().__init__()
        from icml26.papers.macko._triton import TritonMacko

        self.matrix = MackoMatrix.from_dense(weight.detach())
        self.out_features, self.in_features = self.matrix.shape
        self.kernel = TritonMacko(self.matrix, block=block, interpret=interpret)
        b = None if bias is None else bias.detach().float().to(self.kernel.device)
        self.register_buffer("bias", b)

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.in_features:
            raise ValueError(f"x must have last dimension {self.in_features}, got shape {tuple(x.shape)}")
        lead = x.shape[:-1]
        y = self.kernel(x.reshape(-1, self.in_features), out_dtype=x.dtype)
        bias = self.bias
        if isinstance(bias, torch.Tensor):
            y = y + bias.to(y.dtype)
        return y.reshape(*lead, self.out_features)

    @property
    def weight_nbytes(self) -> int:
        """Bytes of the stored weight (MACKO format)."""
        return self.matrix.nbytes

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, density={self.matrix.density:.3f}"
