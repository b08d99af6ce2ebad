"""SpMV kernels for the MACKO format [P05]: the numpy reference (oracle and fallback) and the native CPU kernels.

The native module ``_macko_native`` (C++, nanobind; AVX-512 / AVX2 / scalar chosen at run time) is optional: with
``ICML26_NO_EXT=1`` or when it was not built, every call falls back to the numpy reference.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import numpy as np

from icml26.common.validation import real_array
from icml26.papers.macko._format import check_shape, columns, row_of_entries, validate

__all__ = ["ISA_NAMES", "best_isa", "check_isa", "dense_fp16_gemv", "native_available", "native_spmv",
           "raw_reference_spmv", "reference_spmv"]

ISA_NAMES = {0: "scalar", 1: "avx2", 2: "avx512"}
_NATIVE: ModuleType | None | bool = False  # False: not yet looked up


def _native() -> ModuleType | None:
    global _NATIVE
    if _NATIVE is False:
        if os.environ.get("ICML26_NO_EXT"):
            _NATIVE = None
        else:
            try:
                from icml26.papers.macko import _macko_native  # type: ignore[attr-defined]

                _NATIVE = _macko_native
            except ImportError:
                _NATIVE = None
    return _NATIVE  # type: ignore[return-value]


def native_available() -> bool:
    """True when the C++ kernels are built and enabled (not disabled by ``ICML26_NO_EXT``).

    These are our CPU adaptation of [P05]'s one-warp-per-row SpMV kernel; without them the numpy reference runs.
    """
    return _native() is not None


def best_isa() -> str:
    """The instruction set the native kernels use on this CPU: ``"avx512"``, ``"avx2"``, ``"scalar"`` or ``"numpy"``.

    It selects the variant of our CPU adaptation of [P05]'s SpMV kernel (16-lane chunks instead of a warp per row).
    """
    mod = _native()
    return "numpy" if mod is None else ISA_NAMES[int(mod.best_isa())]


def check_isa(isa: object) -> str | None:
    """``isa`` if it is None or an instruction-set name of :data:`ISA_NAMES` (a clear error naming ``isa`` otherwise),
    whether or not the native kernels are built (the ISA variants of our CPU adaptation of [P05]'s kernel)."""
    if isa is None:
        return None
    names = sorted(ISA_NAMES.values())
    if not isinstance(isa, str):
        raise TypeError(f"isa must be one of {names} or None, got {type(isa).__name__} {isa!r}")
    if isa not in names:
        raise ValueError(f"isa must be one of {names} or None, got {isa!r}")
    return isa


def _isa_code(isa: str | None) -> int:
    mod = _native()
    assert mod is not None
    isa = check_isa(isa)
    if isa is None:
        return int(mod.best_isa())
    codes = {v: k for k, v in ISA_NAMES.items()}
    if codes[isa] > int(mod.best_isa()):
        raise ValueError(f"isa {isa!r} is not supported by this CPU (best: {best_isa()!r})")
    return codes[isa]


def raw_reference_spmv(
    values: np.ndarray, deltas: np.ndarray, row_ptr: np.ndarray, shape: tuple[int, int], X: np.ndarray
) -> np.ndarray:
    """:func:`reference_spmv` without the argument checks, for arrays already validated (MACKO SpMV of [P05])."""
    r, _ = shape
    n = int(row_ptr[-1])
    cols = columns(deltas, row_ptr)
    rows = row_of_entries(row_ptr)
    v = values[:n].astype(np.float64)
    out = np.empty((X.shape[0], r), dtype=np.float32)
    for b in range(X.shape[0]):
        prod = v * X[b].astype(np.float64)[cols]
        out[b] = np.bincount(rows, weights=prod, minlength=r)[:r]
    return out


def reference_spmv(values: np.ndarray, deltas: np.ndarray, row_ptr: np.ndarray, shape: tuple[int, int],
                   X: Any) -> np.ndarray:
    """Reference ``Y = X Wᵀ`` for ``W`` in MACKO format (numpy; products and sums in float64, result fp32).

    Implements the SpMV of the MACKO format of [P05] without any of its kernel tricks: decode every entry's column
    from the prefix sum of ``Δ + 1`` per row, then sum ``v_k · x[col_k]`` per row.

    Args:
        values: the fp16 stored entries. Inconsistent arrays raise
            :class:`~icml26.papers.macko.MackoFormatError` (a ``ValueError``) naming the array.
        deltas: the packed 4-bit column deltas (uint8, two per byte).
        row_ptr: the int32 row offsets ``(R + 1,)``.
        shape: ``(R, C)`` of ``W``.
        X: ``(B, C)`` real inputs (one vector per row; converted to fp32). NaN/inf in ``X`` reach ``Y`` only
            through stored entries, as in the kernels.

    Returns:
        ``(B, R)`` fp32.
    """
    dims = check_shape(shape)
    validate(values, deltas, row_ptr, dims)
    Xa = real_array(X, "X", ndim=2, shape=(None, dims[1]), dtype=np.float32, allow_empty=True, finite=False)
    return raw_reference_spmv(values, deltas, row_ptr, dims, Xa)


def native_spmv(
    values: np.ndarray,
    deltas: np.ndarray,
    row_ptr: np.ndarray,
    shape: tuple[int, int],
    X: np.ndarray,
    *,
    isa: str | None = None,
    threads: int = 1,
) -> np.ndarray:
    """``Y = X Wᵀ`` with the C++ kernel (``isa`` None = best available); falls back to :func:`reference_spmv`.

    ``X`` is ``(B, C)`` fp32 C-contiguous with ``1 <= B <= 8``. The GIL is released while the kernel runs.
    """
    check_isa(isa)
    mod = _native()
    if mod is None:
        return raw_reference_spmv(values, deltas, row_ptr, shape, X)
    code = _isa_code(isa)
    Y = np.empty((X.shape[0], shape[0]), dtype=np.float32)
    mod.spmv(values.view(np.uint16), deltas, row_ptr, int(shape[1]), X, Y, code, int(threads))
    return Y


def dense_fp16_gemv(W: np.ndarray, x: np.ndarray, *, isa: str | None = None, threads: int = 1) -> np.ndarray:
    """Dense ``y = W x`` for fp16 ``W`` with fp32 accumulation: our fair dense baseline (never numpy's fp16 matvec).

    The same bytes-per-weight argument as the bandwidth argument of [P05]: the dense fp16 GEMV reads ``2·R·C`` bytes.

    Args:
        W: ``(R, C)`` float16, C-contiguous.
        x: ``(C,)`` or ``(B, C)`` float32 (B <= 8 rows for a batch).
        isa: force ``"avx512"``, ``"avx2"`` or ``"scalar"``; None picks the best.
        threads: threads over rows.

    Returns:
        ``(R,)`` or ``(B, R)`` float32.
    """
    if not isinstance(W, np.ndarray) or W.dtype != np.float16 or W.ndim != 2:
        raise TypeError("W must be a 2-D float16 numpy array")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive int, got {threads!r}")
    check_isa(isa)
    xa = np.asarray(x)
    if xa.dtype not in (np.float32, np.float16) or xa.ndim not in (1, 2) or xa.shape[-1] != W.shape[1]:
        raise ValueError(f"x must be float32/float16 with last dimension {W.shape[1]}, got {xa.dtype} {xa.shape}")
    X = np.ascontiguousarray(np.atleast_2d(xa), dtype=np.float32)
    mod = _native()
    if mod is None:
        Y = (X @ W.T.astype(np.float32)).astype(np.float32)
    else:
        Y = np.empty((X.shape[0], W.shape[0]), dtype=np.float32)
        mod.dense_gemv(np.ascontiguousarray(W).view(np.uint16), X, Y, _isa_code(isa), int(threads))
    return Y[0] if xa.ndim == 1 else Y
