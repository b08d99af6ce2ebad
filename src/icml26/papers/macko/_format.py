"""The MACKO storage format (the MACKO format of [P05]): fp16 values, 4-bit column deltas aligned with them, row pointers.

Encoding of one row (our words, the paper's construction):
    the stored entries of a row are its nonzeros in column order, plus explicit zero *padding* entries;
    entry ``k`` has a 4-bit delta ``Δ_k`` = the number of zero columns skipped before it, so its column is
    ``col_k = col_{k-1} + 1 + Δ_k`` with ``col_{-1} = -1``;
    a gap of ``g >= 16`` zero columns cannot be written in 4 bits, so it is bridged by ``g // 16`` padding entries
    (value 0, ``Δ = 15``) - the "explicit zero padding" of the paper.
Two deltas share a byte (entry ``2j`` in the low nibble of byte ``j``), so byte ``j`` holds the deltas of values
``2j`` and ``2j+1``: the arrays are *mutually aligned*. ``row_ptr`` (int32, ``R + 1``) delimits the rows. The arrays
are padded with (value 0, Δ 0) entries to a multiple of :data:`ALIGN` entries that belong to no row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["ALIGN", "FP16_MAX", "MAX_GAP", "MackoFormatError", "columns", "decode", "encode", "encode_blocks",
           "row_of_entries", "to_fp16", "unpack_deltas", "validate"]

ALIGN = 16  # entries; the paper pads to 8, we pad to 16 so that a 16-lane AVX-512 load of any aligned chunk is in bounds
MAX_GAP = 15  # largest gap a 4-bit delta can express
ROW_BLOCK = 1024  # rows encoded per numpy block (bounds the int64 temporaries to ~ block * C * 16 bytes)
FP16_MAX = 65504.0  # the largest finite fp16 value; a finite weight beyond it would become inf


class MackoFormatError(ValueError):
    """A MACKO file or array set that is truncated, tampered with or inconsistent.

    Raised when stored arrays violate the MACKO format of [P05] (fp16 values, aligned 4-bit deltas, row pointers).
    """


def to_fp16(block: np.ndarray, name: str, *, row0: int = 0) -> np.ndarray:
    """``block`` (a float array) rounded to fp16 (the paper's ``b_val = 16``); a finite value that fp16 cannot hold
    is a ``ValueError`` naming ``name`` (numpy would silently turn it into inf). ``row0`` offsets reported rows."""
    if block.dtype == np.float16:
        return block
    with np.errstate(over="ignore", invalid="ignore"):
        b16 = block.astype(np.float16)
    bad = np.isinf(b16) & np.isfinite(block)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = (idx[0] + row0, *idx[1:])
        raise ValueError(f"{name}: {int(bad.sum())} finite value(s) exceed the fp16 range |w| <= {FP16_MAX:g} "
                         f"(e.g. {float(block[idx]):.6g} at {where}); fp16 would store them as inf: rescale first")
    return b16


def _encode_block(vals16: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Encode a block of rows; returns (values fp16, deltas uint8 unpacked, per-row entry counts)."""
    rows, cols = np.nonzero(vals16 != 0)  # +0.0 and -0.0 are zeros (not stored); NaN is stored; row-major order
    r = vals16.shape[0]
    if rows.size == 0:
        return np.zeros(0, np.float16), np.zeros(0, np.uint8), np.zeros(r, np.int64)
    first = np.ones(rows.size, dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    prev = np.empty_like(cols)
    prev[0] = -1
    prev[1:] = cols[:-1]
    prev[first] = -1
    gap = cols - prev - 1  # zero columns skipped before each nonzero
    pads = gap // (MAX_GAP + 1)  # padding entries bridging a gap >= 16
    per = pads + 1
    end = np.cumsum(per)  # one past the slot of each nonzero
    n = int(end[-1])
    values = np.zeros(n, dtype=np.float16)
    deltas = np.full(n, MAX_GAP, dtype=np.uint8)  # every slot not a nonzero is padding with delta 15
    slot = end - 1
    values[slot] = vals16[rows, cols]
    deltas[slot] = (gap - (MAX_GAP + 1) * pads).astype(np.uint8)
    counts = np.bincount(rows, weights=per, minlength=r).astype(np.int64)
    return values, deltas, counts


def encode(w16: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Encode a 2-D fp16 array into ``(values fp16, deltas uint8 packed, row_ptr int32)`` (the MACKO format of [P05]).

    Args:
        w16: the weight matrix ``W`` (R x C, float16, C-contiguous or not).
    """
    return encode_blocks(w16[lo : lo + ROW_BLOCK] for lo in range(0, w16.shape[0], ROW_BLOCK))


def encode_blocks(blocks: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`encode` of the matrix whose consecutive row blocks (fp16, equal column counts) ``blocks`` yields."""
    vals, dels, counts = [], [], []
    for block in blocks:
        v, d, k = _encode_block(block)
        vals.append(v)
        dels.append(d)
        counts.append(k)
    r = int(sum(k.size for k in counts))
    values = np.concatenate(vals) if vals else np.zeros(0, np.float16)
    deltas = np.concatenate(dels) if dels else np.zeros(0, np.uint8)
    row_ptr = np.zeros(r + 1, dtype=np.int64)
    if r:
        np.cumsum(np.concatenate(counts), out=row_ptr[1:])
    if row_ptr[-1] >= 2**31 - ALIGN:
        raise ValueError(f"W has too many stored entries ({row_ptr[-1]}) for int32 row pointers")
    total = -(-values.size // ALIGN) * ALIGN  # tail padding: (value 0, delta 0) entries belonging to no row
    values = np.concatenate([values, np.zeros(total - values.size, np.float16)])
    deltas = np.concatenate([deltas, np.zeros(total - deltas.size, np.uint8)])
    packed = (deltas[0::2] | (deltas[1::2] << 4)).astype(np.uint8)
    return values, packed, row_ptr.astype(np.int32)


def unpack_deltas(packed: np.ndarray) -> np.ndarray:
    """The 4-bit deltas, one uint8 per stored entry (entry ``2j`` is the low nibble of byte ``j``)."""
    out = np.empty(packed.size * 2, dtype=np.uint8)
    out[0::2] = packed & 0x0F
    out[1::2] = packed >> 4
    return out


def row_of_entries(row_ptr: np.ndarray) -> np.ndarray:
    """The row index of every stored entry ``0 .. row_ptr[-1]-1``."""
    counts = np.diff(row_ptr.astype(np.int64))
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def columns(packed: np.ndarray, row_ptr: np.ndarray) -> np.ndarray:
    """The column of every stored entry (``col_k = col_{k-1} + 1 + Δ_k``, ``col = -1`` at each row start)."""
    n = int(row_ptr[-1])
    inc = unpack_deltas(packed)[:n].astype(np.int64) + 1
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    cs = np.cumsum(inc)
    starts = row_ptr[:-1].astype(np.int64)
    base = np.where(starts > 0, cs[np.maximum(starts - 1, 0)], 0)  # cumulative increment before each row
    return cs - np.repeat(base, np.diff(row_ptr.astype(np.int64))) - 1


def decode(values: np.ndarray, packed: np.ndarray, row_ptr: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Inverse of :func:`encode`: the dense fp16 matrix (padding entries store 0 and vanish)."""
    r, c = shape
    out = np.zeros((r, c), dtype=np.float16)
    n = int(row_ptr[-1])
    if n:
        cols = columns(packed, row_ptr)
        rows = row_of_entries(row_ptr)
        real = values[:n] != 0
        out[rows[real], cols[real]] = values[:n][real]
    return out


def check_shape(shape: Any) -> tuple[int, int]:
    """``shape`` as ``(R, C)`` non-negative Python ints (:class:`MackoFormatError` naming ``shape`` otherwise)."""
    ok = isinstance(shape, (tuple, list)) and len(shape) == 2 and all(
        isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) and s >= 0 for s in shape)
    if not ok:
        raise MackoFormatError(f"shape must be a pair (R, C) of non-negative ints, got {shape!r}")
    return int(shape[0]), int(shape[1])


def validate(values: Any, deltas: Any, row_ptr: Any, shape: tuple[int, int]) -> None:
    """Check that the three arrays are a MACKO matrix of ``shape`` (the MACKO format of [P05]).

    Raises :class:`MackoFormatError` naming the array at fault: wrong dtype or length, row pointers that do not
    start at 0, decrease or run past the entries, or a row whose deltas run past column ``C``.
    """
    r, c = shape
    if not (isinstance(values, np.ndarray) and values.dtype == np.float16 and values.ndim == 1):
        raise MackoFormatError("values must be a 1-D float16 array")
    if not (isinstance(deltas, np.ndarray) and deltas.dtype == np.uint8 and deltas.ndim == 1):
        raise MackoFormatError("deltas must be a 1-D uint8 array")
    if not (isinstance(row_ptr, np.ndarray) and row_ptr.dtype == np.int32 and row_ptr.shape == (r + 1,)):
        raise MackoFormatError(f"row_ptr must be a 1-D int32 array of length R + 1 = {r + 1}")
    if values.size % ALIGN or deltas.size * 2 != values.size:
        raise MackoFormatError(f"values must be a multiple of {ALIGN} long and deltas half as long")
    rp = row_ptr
    if rp[0] != 0 or np.any(np.diff(rp) < 0) or rp[-1] > values.size or values.size - rp[-1] >= ALIGN:
        raise MackoFormatError("row_ptr must start at 0, be non-decreasing and end within the last 16 entries")
    if int(rp[-1]):
        cols = columns(deltas, rp)
        last = rp[1:] - 1
        nonempty = np.diff(rp) > 0
        if c == 0 or np.any(cols[last[nonempty]] >= c):  # columns increase within a row: the last is the max
            raise MackoFormatError(f"a row's deltas run past column C = {c}")
