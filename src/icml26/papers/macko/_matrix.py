"""``MackoMatrix``: a sparse matrix in the MACKO format of [P05] with CPU / GPU SpMV, save and load."""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from icml26.papers.macko import _format
from icml26.papers.macko._format import MackoFormatError
from icml26.papers.macko._kernels import check_isa, native_spmv, raw_reference_spmv

__all__ = ["MackoFormatError", "MackoMatrix"]

_FORMAT_TAG = "macko-spmv/2"  # /2: the file carries a sha256 of its arrays and shape


def _checksum(shape: tuple[int, int], values: np.ndarray, deltas: np.ndarray, row_ptr: np.ndarray) -> str:
    """sha256 over the shape and the three arrays (dtype, length and bytes of each)."""
    h = hashlib.sha256(f"{_FORMAT_TAG} {shape[0]} {shape[1]}".encode())
    for a in (values, deltas, row_ptr):
        h.update(f"|{a.dtype.str}:{a.size}|".encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _as_numpy(W: Any, name: str) -> np.ndarray:
    if type(W).__module__.startswith("torch"):
        import torch

        if not isinstance(W, torch.Tensor):
            raise TypeError(f"{name} must be a numpy array, a scipy.sparse matrix or a torch tensor, "
                            f"got {type(W).__name__}")
        W = W.detach().cpu()
        if W.dtype == torch.bfloat16:  # numpy has no bfloat16; fp32 holds every bf16 value exactly
            W = W.float()
        W = W.numpy()
    if not isinstance(W, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, a scipy.sparse matrix or a torch tensor, got {type(W).__name__}")
    return W


def _fp16_blocks(W: Any) -> tuple[tuple[int, int], Iterator[np.ndarray]]:
    """The shape of ``W`` and its fp16 row blocks, each converted (and range-checked) when it is encoded."""
    if sp.issparse(W):
        if W.ndim != 2:
            raise ValueError(f"W must be 2-D, got shape {W.shape}")
        csr: Any = sp.csr_array(W)
        csr.sum_duplicates()
        if csr.dtype not in (np.float16, np.float32, np.float64):
            raise TypeError(f"W must hold float16, float32 or float64 values, got {csr.dtype}")
        r, c = (int(n) for n in csr.shape)
        blocks = (_format.to_fp16(csr[lo : lo + _format.ROW_BLOCK].toarray(), "W", row0=lo)
                  for lo in range(0, r, _format.ROW_BLOCK))
        return (r, c), blocks
    W = _as_numpy(W, "W")
    if W.ndim != 2:
        raise ValueError(f"W must be 2-D, got shape {W.shape}")
    if W.dtype not in (np.float16, np.float32, np.float64):
        raise TypeError(f"W must be float16, float32 or float64, got {W.dtype}")
    r = W.shape[0]
    blocks = (_format.to_fp16(W[lo : lo + _format.ROW_BLOCK], "W", row0=lo) for lo in range(0, r, _format.ROW_BLOCK))
    return (int(W.shape[0]), int(W.shape[1])), blocks


_BATCH = 8  # columns of X per pass of the CPU kernel over W


class MackoMatrix:
    """A matrix ``W`` (R x C) stored in the MACKO format (the MACKO format of [P05]).

    Attributes:
        values: fp16 stored entries (nonzeros and padding zeros), length a multiple of 16.
        deltas: uint8, two 4-bit column deltas per byte aligned with ``values`` (entry ``2j`` = low nibble of byte j).
        row_ptr: int32 ``(R + 1,)``; row ``r`` owns entries ``row_ptr[r] .. row_ptr[r+1]-1``.
        shape: ``(R, C)``.

    Build one with :meth:`from_dense`; ``A @ x`` computes ``W x`` in fp32 accumulation.
    """

    __slots__ = ("_gpu", "_nnz", "deltas", "row_ptr", "shape", "values")

    def __init__(self, values: np.ndarray, deltas: np.ndarray, row_ptr: np.ndarray, shape: tuple[int, int]) -> None:
        """Wrap existing MACKO arrays; they are always validated (:class:`MackoFormatError` on any inconsistency).

        Args:
            values: ``v`` of the MACKO format of [P05], 1-D float16, length a multiple of 16.
            deltas: the 4-bit column deltas ``Δ``, two per uint8 byte, half as long as ``values``.
            row_ptr: int32 ``(R + 1,)`` row offsets, starting at 0 and non-decreasing.
            shape: ``(R, C)`` of ``W``.
        """
        self._init(values, deltas, row_ptr, shape, check=True)

    def _init(self, values: np.ndarray, deltas: np.ndarray, row_ptr: np.ndarray, shape: tuple[int, int], *,
              check: bool) -> None:
        self.shape = _format.check_shape(shape)
        self.values = values
        self.deltas = deltas
        self.row_ptr = row_ptr
        self._gpu: Any = None
        if check:
            _format.validate(values, deltas, row_ptr, self.shape)
        self._nnz = int(np.count_nonzero(values[: int(row_ptr[-1])]))

    @classmethod
    def _trusted(cls, values: np.ndarray, deltas: np.ndarray, row_ptr: np.ndarray,
                 shape: tuple[int, int]) -> MackoMatrix:
        """Internal fast path for arrays this package has just encoded itself (skips the format check)."""
        obj = cls.__new__(cls)
        obj._init(values, deltas, row_ptr, shape, check=False)
        return obj

    # ------------------------------------------------------------------------------------------ construction
    @classmethod
    def from_dense(cls, W: Any) -> MackoMatrix:
        """Compress a dense matrix into the MACKO format (the MACKO format of [P05]); lossless for fp16 input.

        Args:
            W: the weight matrix ``W`` (R x C): a float16/32/64 numpy array, a torch tensor (bfloat16 too) or a
                ``scipy.sparse`` matrix. Other dtypes are rounded to fp16 (the paper's ``b_val = 16``), row block by
                row block; a finite value beyond fp16's range (``|w| > 65504``) is a ``ValueError``, not an inf. An
                entry is stored when its fp16 value is nonzero (NaN and ±inf included; ``-0.0`` counts as zero and
                comes back as ``+0.0``).
        """
        shape, blocks = _fp16_blocks(W)
        values, deltas, row_ptr = _format.encode_blocks(blocks)
        return cls._trusted(values, deltas, row_ptr, shape)

    # ------------------------------------------------------------------------------------------ properties
    @property
    def nbytes(self) -> int:
        """Bytes of the format: ``2`` per stored entry (fp16) + ``0.5`` (4-bit delta) + ``4`` per row (+ 4)."""
        return int(self.values.nbytes + self.deltas.nbytes + self.row_ptr.nbytes)

    @property
    def nnz(self) -> int:
        """Number of nonzero entries of ``W`` (padding entries not counted)."""
        return self._nnz

    @property
    def n_stored(self) -> int:
        """Stored entries: nonzeros plus the explicit zero padding (without the tail alignment)."""
        return int(self.row_ptr[-1])

    @property
    def density(self) -> float:
        """Fraction of nonzero entries ``d = nnz / (R C)`` (1.0 for an empty shape)."""
        total = self.shape[0] * self.shape[1]
        return self._nnz / total if total else 1.0

    @property
    def dtype(self) -> np.dtype:
        """The value dtype (float16)."""
        return np.dtype(np.float16)

    def to_dense(self) -> np.ndarray:
        """The dense fp16 matrix (exact inverse of :meth:`from_dense` for fp16 input)."""
        return _format.decode(self.values, self.deltas, self.row_ptr, self.shape)

    def __repr__(self) -> str:
        return f"MackoMatrix(shape={self.shape}, density={self.density:.3f}, nbytes={self.nbytes})"

    # ------------------------------------------------------------------------------------------ products
    def _check_x(self, x: Any, name: str, batch: bool) -> np.ndarray:
        x = _as_numpy(x, name)
        if x.dtype not in (np.float16, np.float32, np.float64):
            raise ValueError(f"{name} must be a floating array (float16/32/64), got dtype {x.dtype}")
        c = self.shape[1]
        if batch:
            if x.ndim != 2 or x.shape[0] != c or x.shape[1] < 1:
                raise ValueError(f"{name} must have shape ({c}, B) with B >= 1, got {x.shape}")
        elif x.shape != (c,):
            raise ValueError(f"{name} must have shape ({c},), got {x.shape}")
        return x

    def _run(self, X: np.ndarray, device: str, kernel: str, isa: str | None, threads: int) -> np.ndarray:
        check_isa(isa)
        if device == "cuda":
            from icml26.papers.macko._triton import triton_spmv

            return triton_spmv(self, X)
        if device != "cpu":
            raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        X = np.ascontiguousarray(X, dtype=np.float32)
        if kernel == "reference":
            return raw_reference_spmv(self.values, self.deltas, self.row_ptr, self.shape, X)
        if kernel != "native":
            raise ValueError(f"kernel must be 'native' or 'reference', got {kernel!r}")
        if self.shape[0] == 0 or self.shape[1] == 0:
            return np.zeros((X.shape[0], self.shape[0]), dtype=np.float32)
        return native_spmv(self.values, self.deltas, self.row_ptr, self.shape, X, isa=isa, threads=threads)

    def matvec(self, x: Any, *, device: str = "cpu", kernel: str = "native", isa: str | None = None,
               threads: int = 1) -> np.ndarray:
        """``y = W x`` (the MACKO SpMV of [P05] on CPU; fp16 weights, fp32 accumulation).

        Args:
            x: ``(C,)`` float16/32/64 (converted to fp32).
            device: ``"cpu"`` (C++ kernel, numpy fallback) or ``"cuda"`` (Triton kernel; needs triton and a GPU).
            kernel: ``"native"`` or ``"reference"`` (the numpy oracle).
            isa: force ``"avx512"``, ``"avx2"`` or ``"scalar"``; None picks the best the CPU has.
            threads: CPU threads over rows.

        Returns:
            ``(R,)`` float32 (a torch tensor on the GPU for ``device="cuda"``).
        """
        x = self._check_x(x, "x", batch=False)
        return self._run(x[None, :], device, kernel, isa, threads)[0]

    def matmat(self, X: Any, *, device: str = "cpu", kernel: str = "native", isa: str | None = None,
               threads: int = 1) -> np.ndarray:
        """``Y = W X`` for a small batch (decode of B sequences): each 16-entry chunk of ``W`` is decoded once and used
        for up to 8 columns of ``X``; a larger batch runs in groups of 8 columns, one pass over ``W`` per group.

        Args:
            X: ``(C, B)`` with ``B >= 1``.
            device: as in :meth:`matvec`.
            kernel: as in :meth:`matvec`.
            isa: as in :meth:`matvec`.
            threads: as in :meth:`matvec`.

        Returns:
            ``(R, B)`` float32 (a torch tensor on the GPU for ``device="cuda"``).
        """
        X = self._check_x(X, "X", batch=True)
        Xt = np.ascontiguousarray(X.T)
        if device == "cuda" or Xt.shape[0] <= _BATCH:
            return self._run(Xt, device, kernel, isa, threads).T
        return np.concatenate([self._run(Xt[i:i + _BATCH], device, kernel, isa, threads)
                               for i in range(0, Xt.shape[0], _BATCH)]).T

    def __matmul__(self, x: Any) -> np.ndarray:
        x = _as_numpy(x, "x")
        return self.matvec(x) if x.ndim == 1 else self.matmat(x)

    # ------------------------------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write one uncompressed ``.npz`` archive (the three arrays, the shape, a format tag and a sha256 of them)
        at exactly ``path`` (the MACKO format of [P05]).

        No ``.npz`` suffix is appended, so :meth:`load` reads back the same ``path`` that was given here.
        """
        with open(Path(path), "wb") as fh:
            np.savez(fh, format=np.array(_FORMAT_TAG), shape=np.array(self.shape, dtype=np.int64),
                     values=self.values, deltas=self.deltas, row_ptr=self.row_ptr,
                     checksum=np.array(_checksum(self.shape, self.values, self.deltas, self.row_ptr)))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MackoMatrix:
        """Read a file written by :meth:`save` (the MACKO format of [P05]).

        A truncated, edited or foreign file raises :class:`MackoFormatError`: the sha256 stored with the arrays must
        match them, so an edit that keeps the arrays consistent (a changed row pointer) is refused too.
        """
        try:
            z = np.load(Path(path), allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise MackoFormatError(f"{path}: not a MACKO file (a single .npy array, not an .npz archive)")
            with z:
                keys = set(z.files)
                need = {"format", "shape", "values", "deltas", "row_ptr", "checksum"}
                if "format" in keys and str(z["format"]) != _FORMAT_TAG:
                    raise MackoFormatError(f"{path}: unknown format tag {str(z['format'])!r} (expected {_FORMAT_TAG!r})")
                if not need <= keys:
                    raise MackoFormatError(f"{path}: not a MACKO file (missing {sorted(need - keys)})")
                shape, stored = z["shape"], str(z["checksum"])
                arrays = z["values"], z["deltas"], z["row_ptr"]
        except MackoFormatError:
            raise
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError, TypeError, AttributeError) as exc:
            raise MackoFormatError(f"{path}: cannot read a MACKO file ({type(exc).__name__}: {exc})") from exc
        if shape.shape != (2,) or shape.dtype.kind not in "iu":
            raise MackoFormatError(f"{path}: bad shape record {shape!r}")
        dims = (int(shape[0]), int(shape[1]))
        if _checksum(dims, *arrays) != stored:
            raise MackoFormatError(f"{path}: checksum mismatch: the arrays or the shape were changed after saving")
        return cls(*arrays, dims)
