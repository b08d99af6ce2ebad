"""``MackoMatrix``: a sparse matrix in the MACKO format of [P05] with CPU / GPU SpMV, save and load."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from icml26.papers.macko import _format
from icml26.papers.macko._kernels import native_spmv, reference_spmv

__all__ = ["MackoFormatError", "MackoMatrix"]

_FORMAT_TAG = "macko-spmv/1"


class MackoFormatError(ValueError):
    """A MACKO file or array set that is truncated, tampered with or inconsistent.

    Raised when stored arrays violate the MACKO format of [P05] (fp16 values, aligned 4-bit deltas, row pointers).
    """


def _as_numpy(W: Any, name: str) -> np.ndarray:
    if type(W).__module__.startswith("torch"):
        W = W.detach().cpu().numpy()
    if not isinstance(W, np.ndarray):
        raise TypeError(f"{name} must be a numpy array or a torch tensor, got {type(W).__name__}")
    return W


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
        if not (isinstance(shape, tuple | list) and len(shape) == 2):
            raise MackoFormatError(f"shape must be a pair (R, C), got {shape!r}")
        self.values = values
        self.deltas = deltas
        self.row_ptr = row_ptr
        self.shape = (int(shape[0]), int(shape[1]))
        self._gpu: Any = None
        if check:
            self._validate()
        self._nnz = int(np.count_nonzero(values[: int(row_ptr[-1])]))

    @classmethod
    def _trusted(cls, values: np.ndarray, deltas: np.ndarray, row_ptr: np.ndarray,
                 shape: tuple[int, int]) -> MackoMatrix:
        """Internal fast path for arrays this package has just encoded itself (skips :meth:`_validate`)."""
        obj = cls.__new__(cls)
        obj._init(values, deltas, row_ptr, shape, check=False)
        return obj

    # ------------------------------------------------------------------------------------------ construction
    @classmethod
    def from_dense(cls, W: Any) -> MackoMatrix:
        """Compress a dense matrix into the MACKO format (the MACKO format of [P05]); lossless for fp16 input.

        Args:
            W: the weight matrix ``W`` (R x C), a float16 or float32 numpy array or torch tensor. fp32 values are
                rounded to fp16 (the paper's ``b_val = 16``); an entry is stored when its fp16 value is nonzero
                (NaN included; ``-0.0`` counts as zero and comes back as ``+0.0``).
        """
        W = _as_numpy(W, "W")
        if W.ndim != 2:
            raise ValueError(f"W must be 2-D, got shape {W.shape}")
        if W.dtype not in (np.float16, np.float32):
            raise TypeError(f"W must be float16 or float32, got {W.dtype}")
        w16 = np.ascontiguousarray(W, dtype=np.float16)
        values, deltas, row_ptr = _format.encode(w16)
        return cls._trusted(values, deltas, row_ptr, w16.shape)

    def _validate(self) -> None:
        v, d, rp, (r, c) = self.values, self.deltas, self.row_ptr, self.shape
        if not (isinstance(rp, np.ndarray) and rp.ndim == 1 and rp.size >= 1):
            raise MackoFormatError("row_ptr must be a 1-D int32 array of length R + 1")
        if r < 0 or c < 0:
            raise MackoFormatError(f"shape must be non-negative, got {self.shape}")
        if not (isinstance(v, np.ndarray) and v.dtype == np.float16 and v.ndim == 1):
            raise MackoFormatError("values must be a 1-D float16 array")
        if not (isinstance(d, np.ndarray) and d.dtype == np.uint8 and d.ndim == 1):
            raise MackoFormatError("deltas must be a 1-D uint8 array")
        if not (isinstance(rp, np.ndarray) and rp.dtype == np.int32 and rp.shape == (r + 1,)):
            raise MackoFormatError(f"row_ptr must be int32 of length R + 1 = {r + 1}")
        if v.size % _format.ALIGN or d.size * 2 != v.size:
            raise MackoFormatError(f"values must be a multiple of {_format.ALIGN} long and deltas half as long")
        if rp[0] != 0 or np.any(np.diff(rp) < 0) or rp[-1] > v.size or v.size - rp[-1] >= _format.ALIGN:
            raise MackoFormatError("row_ptr must start at 0, be non-decreasing and end within the last 16 entries")
        n = int(rp[-1])
        if n:
            cols = _format.columns(d, rp)
            last = rp[1:] - 1
            nonempty = np.diff(rp) > 0
            if c == 0 or np.any(cols[last[nonempty]] >= c):  # columns increase within a row: the last is the max
                raise MackoFormatError(f"a row's deltas run past column C = {c}")

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
        if device == "cuda":
            from icml26.papers.macko._triton import triton_spmv

            return triton_spmv(self, X)
        if device != "cpu":
            raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        X = np.ascontiguousarray(X, dtype=np.float32)
        if kernel == "reference":
            return reference_spmv(self.values, self.deltas, self.row_ptr, self.shape, X)
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
            X: ``(C, B)`` with ``B >= 1``. Other arguments as in :meth:`matvec`.
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
        """Write one uncompressed ``.npz`` archive (the three arrays, the shape and a format tag) at exactly ``path``.

        No ``.npz`` suffix is appended, so :meth:`load` reads back the same ``path`` that was given here.
        """
        with open(Path(path), "wb") as fh:
            np.savez(fh, format=np.array(_FORMAT_TAG), shape=np.array(self.shape, dtype=np.int64),
                     values=self.values, deltas=self.deltas, row_ptr=self.row_ptr)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MackoMatrix:
        """Read a file written by :meth:`save`; a truncated, tampered or foreign file raises :class:`MackoFormatError`."""
        try:
            with np.load(Path(path), allow_pickle=False) as z:
                keys = set(z.files)
                need = {"format", "shape", "values", "deltas", "row_ptr"}
                if not need <= keys:
                    raise MackoFormatError(f"{path}: not a MACKO file (missing {sorted(need - keys)})")
                if str(z["format"]) != _FORMAT_TAG:
                    raise MackoFormatError(f"{path}: unknown format tag {str(z['format'])!r}")
                shape = z["shape"]
                arrays = z["values"], z["deltas"], z["row_ptr"]
        except MackoFormatError:
            raise
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
            raise MackoFormatError(f"{path}: cannot read a MACKO file ({type(exc).__name__}: {exc})") from exc
        if shape.shape != (2,) or shape.dtype.kind not in "iu":
            raise MackoFormatError(f"{path}: bad shape record {shape!r}")
        return cls(*arrays, (int(shape[0]), int(shape[1])))
