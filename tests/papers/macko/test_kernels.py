"""SpMV of [P05]: native kernels (every ISA this CPU has) against the numpy reference and dense products."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.macko import MackoMatrix, dense_fp16_gemv, native_available
from icml26.papers.macko._kernels import ISA_NAMES, _isa_code

ISAS = [None]
if native_available():
    ISAS += [ISA_NAMES[i] for i in range(_isa_code(None) + 1)]


def sparse(rows: int, cols: int, density: float, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed)
    w = g.standard_normal((rows, cols)).astype(np.float16)
    w[g.random((rows, cols)) >= density] = 0
    return w


def close(a: np.ndarray, b: np.ndarray, w: np.ndarray, x: np.ndarray) -> None:
    # fp32 accumulation: error bounded by ~ C * eps32 * sum |w||x|
    scale = np.abs(w.astype(np.float64)) @ np.abs(x.astype(np.float64)) + 1e-30
    assert np.all(np.abs(a.astype(np.float64) - b) <= 1e-5 * scale * max(1, w.shape[1]) ** 0.5 + 1e-30)


def structured_cases() -> list[np.ndarray]:
    g = np.random.default_rng(0)
    out = [np.ones((1, 1), np.float16), np.zeros((4, 9), np.float16), sparse(23, 67, 0.5, 1)]
    w = sparse(12, 301, 0.4, 2)
    w[3] = 0  # empty row
    w[5] = g.standard_normal(301)  # fully dense row
    w[7] = 0
    w[7, [0, 17, 50, 300]] = 1  # gaps 16 and 32 and more
    w[8] = 0
    w[8, [16, 49]] = 2  # leading gap 16, then 32
    out.append(w)
    out.append(sparse(33, 1000, 0.05, 3))  # long gaps: the gather path
    out.append(sparse(9, 8, 0.9, 4))  # lengths not multiples of 8
    out.append(np.full((3, 77), 0.5, np.float16))
    return out


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("case", range(7))
def test_matvec_matches_reference_and_dense(isa, case) -> None:
    w = structured_cases()[case]
    A = MackoMatrix.from_dense(w)
    x = np.random.default_rng(case).standard_normal(w.shape[1]).astype(np.float32)
    ref = A.matvec(x, kernel="reference")
    close(ref, w.astype(np.float64) @ x, w, x)
    close(A.matvec(x, isa=isa), ref.astype(np.float64), w, x)
    close(A @ x, ref.astype(np.float64), w, x)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("b", [1, 3, 5, 8, 9, 20])
def test_matmat_batches(isa, b) -> None:
    """Up to 8 columns share one pass over W; a larger batch runs in groups of 8 (9 = 8 + 1, 20 = 8 + 8 + 4)."""
    w = sparse(40, 203, 0.5, 5)
    A = MackoMatrix.from_dense(w)
    X = np.random.default_rng(b).standard_normal((203, b)).astype(np.float32)
    Y = A.matmat(X, isa=isa)
    assert Y.shape == (40, b)
    for j in range(b):
        close(Y[:, j], w.astype(np.float64) @ X[:, j], w, X[:, j])
    np.testing.assert_array_equal(A @ X, A.matmat(X))


@settings(max_examples=40, deadline=None)
@given(r=st.integers(1, 30), c=st.integers(1, 400), d=st.floats(0.0, 1.0), seed=st.integers(0, 2**31))
def test_matvec_property(r: int, c: int, d: float, seed: int) -> None:
    w = sparse(r, c, d, seed)
    A = MackoMatrix.from_dense(w)
    x = np.random.default_rng(seed).standard_normal(c).astype(np.float32)
    for isa in ISAS:
        close(A.matvec(x, isa=isa), w.astype(np.float64) @ x, w, x)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("b", [1, 2, 5, 8])
def test_x_windows_by_row_density(isa, b) -> None:
    """The AVX-512 kernel picks a 64-, 128- or 256-float x window per row from its mean chunk span (density >~ 0.36,
    ~0.14-0.36, below); rows of each kind, in both orders, with chunks that overflow the window (gathered), starting
    unaligned, and rows ending at the last column (the 256 window reads up to 255 floats past it)."""
    g = np.random.default_rng(b)
    cols = 1500
    dens = [0.5, 0.3, 0.2, 0.1, 0.05, 0.3, 0.6, 0.12, 0.35, 0.4, 0.25, 0.9]
    w = np.concatenate([sparse(3, cols, d, 100 + i) for i, d in enumerate(dens)])
    w[g.random(w.shape[0]) < 0.3, -1] = 1.0  # some rows end at the last column
    w[5, 700:1000] = 0  # a 300-column gap inside a 128-window row
    A = MackoMatrix.from_dense(w)
    X = g.standard_normal((cols, b)).astype(np.float32)
    Y = A.matmat(X, isa=isa)
    for j in range(b):
        close(Y[:, j], w.astype(np.float64) @ X[:, j], w, X[:, j])


@pytest.mark.parametrize("isa", ISAS)
def test_threads_give_same_result(isa) -> None:
    w = sparse(300, 500, 0.5, 6)
    A = MackoMatrix.from_dense(w)
    x = np.random.default_rng(6).standard_normal(500).astype(np.float32)
    np.testing.assert_array_equal(A.matvec(x, isa=isa, threads=1), A.matvec(x, isa=isa, threads=3))


@pytest.mark.parametrize("isa", ISAS)
def test_nan_inf_in_weights_propagate_as_dense(isa) -> None:
    w = sparse(6, 100, 0.5, 7)
    w[1, 10] = np.nan
    w[2, 99] = np.inf
    w[3, 5], w[3, 6] = np.inf, -np.inf
    A = MackoMatrix.from_dense(w)
    x = np.ones(100, np.float32)
    with np.errstate(invalid="ignore"):
        y, yd = A.matvec(x, isa=isa), w.astype(np.float32) @ x
    np.testing.assert_array_equal(np.isnan(y), np.isnan(yd))
    np.testing.assert_array_equal(np.isposinf(y), np.isposinf(yd))


def test_empty_shapes() -> None:
    assert MackoMatrix.from_dense(np.zeros((0, 4), np.float16)).matvec(np.zeros(4, np.float32)).shape == (0,)
    np.testing.assert_array_equal(MackoMatrix.from_dense(np.zeros((3, 0), np.float16)).matvec(np.zeros(0)), 0)


@pytest.mark.parametrize("isa", ISAS)
def test_dense_fp16_gemv(isa) -> None:
    # >= 8192 columns: the AVX-512 dispatch takes its 4-row blocks (+ a row tail); below, the AVX2 row loop
    for r, c in [(1, 1), (5, 17), (9, 64), (13, 200), (9, 8192 + 17)]:
        w = sparse(r, c, 1.0, r)
        x = np.random.default_rng(c).standard_normal(c).astype(np.float32)
        close(dense_fp16_gemv(w, x, isa=isa), w.astype(np.float64) @ x, w, x)
        for b in (3, 8):  # a batch shares one pass over W; each row of Y equals the single-vector product
            X = np.random.default_rng(c + b).standard_normal((b, c)).astype(np.float32)
            Y = dense_fp16_gemv(w, X, isa=isa)
            assert Y.shape == (b, r)
            for i in range(b):
                np.testing.assert_array_equal(Y[i], dense_fp16_gemv(w, X[i], isa=isa))
                close(Y[i], w.astype(np.float64) @ X[i], w, X[i])


def test_bad_x() -> None:
    A = MackoMatrix.from_dense(sparse(4, 10, 0.5, 8))
    with pytest.raises(ValueError, match=r"x must have shape \(10,\)"):
        A.matvec(np.zeros(9, np.float32))
    with pytest.raises(ValueError, match="x must be a floating array"):
        A.matvec(np.zeros(10, np.int64))
    with pytest.raises(ValueError, match=r"X must have shape \(10, B\)"):
        A.matmat(np.zeros((9, 3), np.float32))
    with pytest.raises(ValueError, match=r"X must have shape \(10, B\) with B >= 1"):
        A.matmat(np.zeros((10, 0), np.float32))
    with pytest.raises(ValueError, match="device must be"):
        A.matvec(np.zeros(10, np.float32), device="tpu")
    with pytest.raises(ValueError, match="threads must be"):
        A.matvec(np.zeros(10, np.float32), threads=0)
    if native_available():
        with pytest.raises(ValueError, match="isa must be one of"):
            A.matvec(np.zeros(10, np.float32), isa="neon")
    with pytest.raises(ValueError, match="x must be float32/float16"):
        dense_fp16_gemv(np.zeros((2, 3), np.float16), np.zeros(4, np.float32))


def test_cuda_without_gpu_is_a_clear_error() -> None:
    A = MackoMatrix.from_dense(sparse(4, 10, 0.5, 9))
    try:
        import torch
        import triton  # noqa: F401

        has_gpu = torch.cuda.is_available()
    except ImportError:
        has_gpu = False
    if has_gpu:  # the GPU path is checked against the reference
        y = A.matvec(np.ones(10, np.float32), device="cuda").cpu().numpy()
        np.testing.assert_allclose(y, A.matvec(np.ones(10, np.float32), kernel="reference"), rtol=1e-5, atol=1e-5)
    else:
        with pytest.raises((ImportError, RuntimeError), match="device='cuda' needs"):
            A.matvec(np.ones(10, np.float32), device="cuda")
