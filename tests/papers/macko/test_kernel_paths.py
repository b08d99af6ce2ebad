"""Every branch of the native SpMV kernels of [P05] against the numpy reference.

The AVX-512 kernel walks a row in blocks of four 16-entry chunks: the first block (row starting inside a chunk,
masked), whole blocks (unmasked steady state), the last block (masked), and the arrays' last chunks (8-byte delta
loads). A chunk's x values come from an aligned 64-float window, an unaligned one, or a gather (>= 64 columns).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.macko import MackoMatrix, native_available
from icml26.papers.macko._format import columns, unpack_deltas
from icml26.papers.macko._kernels import ISA_NAMES, _isa_code

ISAS = [ISA_NAMES[i] for i in range(_isa_code(None) + 1)] if native_available() else [None]


def check(w: np.ndarray, nb: int, seed: int) -> None:
    """matmat / matvec of every ISA equals the float64 reference within fp32 summation error."""
    A = MackoMatrix.from_dense(w)
    X = np.random.default_rng(seed).standard_normal((w.shape[1], nb)).astype(np.float32)
    ref = w.astype(np.float64) @ X.astype(np.float64)
    tol = 1e-5 * (np.abs(w.astype(np.float64)) @ np.abs(X.astype(np.float64))) * max(1, w.shape[1]) ** 0.5 + 1e-30
    np.testing.assert_allclose(A.matmat(X, kernel="reference"), ref, rtol=0, atol=np.max(tol))
    for isa in ISAS:
        Y = A.matmat(X, isa=isa) if nb > 1 else A.matvec(X[:, 0], isa=isa)[:, None]
        assert np.all(np.abs(Y - ref) <= tol), (isa, nb, float(np.max(np.abs(Y - ref) / tol)))


def gap_row(cols: int, gaps: list[int], start: int = 0) -> np.ndarray:
    """A row whose nonzeros are separated by the given gaps (cycled), first nonzero at `start`."""
    row = np.zeros(cols, np.float16)
    c, k = start, 0
    while c < cols:
        row[c] = 1 + (k % 7) * 0.25
        c += gaps[k % len(gaps)] + 1
        k += 1
    return row


def test_worked_chunk_offsets() -> None:
    # one row, columns 0, 16, 49 (gaps 0, 15, 32): the gap of 32 takes two padding entries (delta 15 each)
    w = np.zeros((1, 64), np.float16)
    w[0, [0, 16, 49]] = [1, 2, 3]
    A = MackoMatrix.from_dense(w)
    assert A.n_stored == 5
    np.testing.assert_array_equal(unpack_deltas(A.deltas)[:5], [0, 15, 15, 15, 0])
    np.testing.assert_array_equal(columns(A.deltas, A.row_ptr), [0, 16, 32, 48, 49])
    x = np.arange(64, dtype=np.float32)
    for isa in ISAS:
        assert A.matvec(x, isa=isa)[0] == 1 * 0 + 2 * 16 + 3 * 49


@pytest.mark.parametrize("nb", range(1, 9))
def test_batches_long_rows_one_pass(nb: int) -> None:
    # rows of 200-1500 entries: first, steady-state and last blocks, all three x paths, for every batch size
    g = np.random.default_rng(nb)
    rows = [np.where(g.random(1500) < d, g.standard_normal(1500), 0).astype(np.float16) for d in (0.9, 0.5, 0.3, 0.08)]
    rows += [gap_row(1500, [15]), gap_row(1500, [16]), gap_row(1500, [31, 0, 2]), gap_row(1500, [3], start=40)]
    rows += [np.zeros(1500, np.float16)]
    check(np.stack(rows), nb, seed=nb)


@pytest.mark.parametrize("gaps", [[0], [1], [3], [15], [16], [17], [32], [47], [4, 40], [0, 0, 0, 60], [200]])
def test_gap_patterns(gaps: list[int]) -> None:
    # every row shifted so that rows start at every offset inside a 16-entry chunk
    w = np.stack([gap_row(700, gaps, start=s) for s in range(0, 40, 3)])
    check(w, 1, seed=len(gaps))
    check(w, 3, seed=len(gaps))


def test_row_starting_after_wide_chunk_tail() -> None:
    # rows of 10 entries with gaps of 15: each next row starts mid-chunk after ~150 columns of deltas, so its
    # first window starts far before column 0 (the front padding of x)
    w = np.zeros((40, 160), np.float16)
    for r in range(40):
        w[r, 15::16] = r + 1
        w[r, 0] = (r % 3) * 0.5
    check(w, 1, seed=0)
    check(w, 8, seed=1)


def test_row_end_at_array_end_and_odd_lengths() -> None:
    for r, c in [(1, 1), (1, 17), (2, 33), (3, 63), (5, 65), (7, 129), (1, 1031)]:
        g = np.random.default_rng(r * c)
        w = np.where(g.random((r, c)) < 0.6, g.standard_normal((r, c)), 0).astype(np.float16)
        w[-1, -1] = 1.0  # the last row runs to the last column
        check(w, 1, seed=c)
        check(w, 5, seed=c)


def test_empty_rows_between_long_rows() -> None:
    g = np.random.default_rng(3)
    w = np.where(g.random((30, 900)) < 0.5, g.standard_normal((30, 900)), 0).astype(np.float16)
    w[::2] = 0
    check(w, 2, seed=3)


def test_x_extremes_reach_y_through_stored_entries() -> None:
    # large and tiny x values in every window position; exact integer arithmetic makes the expected value exact
    w = np.stack([gap_row(300, [k]) for k in range(20)])
    x = np.zeros(300, np.float32)
    x[::7] = 2.0**20
    x[3::7] = -(2.0**-20)
    A = MackoMatrix.from_dense(w)
    expect = (w.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)
    for isa in ISAS:
        np.testing.assert_allclose(A.matvec(x, isa=isa), expect, rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(r=st.integers(1, 12), c=st.integers(1, 1200), d=st.floats(0.0, 1.0), nb=st.integers(1, 8),
       seed=st.integers(0, 2**31))
def test_kernels_property(r: int, c: int, d: float, nb: int, seed: int) -> None:
    g = np.random.default_rng(seed)
    w = np.where(g.random((r, c)) < d, g.standard_normal((r, c)), 0).astype(np.float16)
    check(w, nb, seed)
