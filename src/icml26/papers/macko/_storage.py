"""Storage of MACKO and of the formats it is compared with (the storage analysis of [P05]).

Bits per stored entry: ``b_val + b_Δ = 16 + 4``; per row: 32 (row pointer). For an i.i.d. mask of density ``d`` a
gap of ``g`` zeros needs ``floor(g / 16)`` padding entries, and ``E[floor(G/16)] = Σ_k P(G >= 16k) = z / (1 - z)``
with ``z = (1 - d)^16`` (row-end effects ignored), so the expected effective density is
``d_eff = (b_val + b_Δ) / b_val · d · (1 + z / (1 - z))`` relative to dense fp16.
"""

from __future__ import annotations

import numpy as np

from icml26.common.validation import int_at_least, real, real_array

__all__ = [
    "break_even_density",
    "csr_bytes",
    "dense_fp16_bytes",
    "macko_expected_bytes",
]


def _check(rows: object, cols: object) -> tuple[int, int]:
    return int_at_least(rows, "rows", 0), int_at_least(cols, "cols", 0)


def dense_fp16_bytes(rows: int, cols: int) -> int:
    """Bytes of the dense fp16 matrix: ``2 R C``.

    The dense fp16 baseline of [P05]'s memory claim (the denominator of its effective density ``d_eff``).
    """
    r, c = _check(rows, cols)
    return 2 * r * c


def macko_expected_bytes(rows: int, cols: int, density: float) -> float:
    """Expected MACKO bytes for an i.i.d. mask of density ``d`` (storage analysis of [P05]; padding term ``z/(1-z)``).

    Args:
        rows: ``R``.
        cols: ``C``.
        density: ``d``, fraction of nonzeros.
    """
    rows, cols = _check(rows, cols)
    density = real(density, "density", lo=0.0, hi=1.0)
    if density == 0.0:
        return 4.0 * (rows + 1)
    z = (1.0 - density) ** 16
    stored = rows * cols * density * (1.0 + z / (1.0 - z))
    return 2.5 * stored + 4.0 * (rows + 1)


def csr_bytes(rows: int, cols: int, nnz: int, *, value_bytes: int = 2, index_bytes: int = 4) -> int:
    """CSR bytes: ``nnz (value + index) + 4 (R + 1)`` (fp16 + int32 by default; scipy fp32 is ``value_bytes=4``).

    The CSR baseline of [P05]'s storage analysis (about ``3d`` of dense fp16 with int32 indices, ``2d`` with int16).
    """
    rows, cols = _check(rows, cols)
    nnz = int_at_least(nnz, "nnz", 0, hi=rows * cols)
    value_bytes = int_at_least(value_bytes, "value_bytes", 1)
    index_bytes = int_at_least(index_bytes, "index_bytes", 1)
    return nnz * (value_bytes + index_bytes) + 4 * (rows + 1)


def break_even_density(densities: np.ndarray, ratios: np.ndarray) -> float:
    """The density where a format's bytes equal dense fp16 bytes (ratio = 1), by linear interpolation.

    The break-even density of [P05]'s storage analysis (about 0.8 for MACKO; CSR's is reported beside it).

    Args:
        densities: increasing densities.
        ratios: format bytes / dense fp16 bytes at those densities (increasing).

    Returns:
        The crossing density, ``nan`` when the ratios never cross 1 inside the range.
    """
    d = real_array(densities, "densities", ndim=1)
    q = real_array(ratios, "ratios", ndim=1)
    if d.shape != q.shape or d.size < 2:
        raise ValueError(f"densities and ratios must be of equal length >= 2, got {d.size} and {q.size}")
    if not np.all(np.diff(d) > 0):
        raise ValueError("densities must be strictly increasing")
    above = np.nonzero(q >= 1.0)[0]
    if above.size == 0 or above[0] == 0:
        return float("nan")
    i = int(above[0])
    return float(d[i - 1] + (1.0 - q[i - 1]) * (d[i] - d[i - 1]) / (q[i] - q[i - 1]))
