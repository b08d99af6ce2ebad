"""FFT Hankel operators against dense scipy.linalg.hankel (the oracle), and the Takagi / spectral initialisation."""

import numpy as np
import pytest
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.hankel._init import spectral_init, takagi_factor
from icml26.papers.hankel._ops import HankelOps
from icml26.papers.hankel._symmetric import generator


def _dense(x: np.ndarray, n1: int) -> np.ndarray:
    return sla.hankel(x[:n1], x[n1 - 1 :])


def _cplx(g: np.random.Generator, *shape: int) -> np.ndarray:
    return g.standard_normal(shape) + 1j * g.standard_normal(shape)


def _antidiag_sums(M: np.ndarray) -> np.ndarray:
    F = np.fliplr(M)  # anti-diagonal k of M is diagonal (n2 - 1 - k) of F
    return np.array([F.diagonal(M.shape[1] - 1 - k).sum() for k in range(sum(M.shape) - 1)])


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 80), r=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_apply_and_adjoint_match_dense(n: int, r: int, seed: int) -> None:
    g = np.random.default_rng(seed)
    ops = HankelOps(n)
    x = _cplx(g, n)
    Hd = _dense(x, ops.n1)
    assert Hd.shape == (ops.n1, ops.n2)
    V, U = _cplx(g, ops.n2, r), _cplx(g, ops.n1, r)
    np.testing.assert_allclose(ops.apply(x, V), Hd @ V, rtol=0, atol=1e-12 * np.abs(Hd).sum())
    np.testing.assert_allclose(ops.apply(x, U, transpose=True), Hd.T @ U, rtol=0, atol=1e-12 * np.abs(Hd).sum())
    M = U @ V.T
    scale = np.abs(M).sum()
    np.testing.assert_allclose(ops.adjoint(U, V), _antidiag_sums(M), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(ops.pinv(U, V) * ops.w, _antidiag_sums(M), rtol=0, atol=1e-12 * scale)


def test_weights_count_antidiagonal_entries_and_pinv_inverts_the_lift() -> None:
    for n in (7, 8):
        ops = HankelOps(n)
        np.testing.assert_array_equal(ops.w, _antidiag_sums(np.ones((ops.n1, ops.n2))))
        x = _cplx(np.random.default_rng(n), n)
        np.testing.assert_allclose(ops.pinv(_dense(x, ops.n1), np.eye(ops.n2)), x, atol=1e-13)
        assert ops.hankel_norm_sq(x) == pytest.approx(np.linalg.norm(_dense(x, ops.n1)) ** 2, rel=1e-12)


def test_generator_is_antidiagonal_average_of_ZZt() -> None:
    g = np.random.default_rng(3)
    ops = HankelOps(31)
    Z = _cplx(g, ops.n1, 3)
    np.testing.assert_allclose(generator(ops, Z), _antidiag_sums(Z @ Z.T) / ops.w, atol=1e-12)


def test_spectral_init_matches_dense_svd_and_takagi_factor_reproduces_the_lift() -> None:
    from icml26.papers.hankel import make_spectral_signal

    n, r = 63, 4
    x, _, _ = make_spectral_signal(n, r, kappa=1.0, seed=5)  # κ = 1: nearly equal singular values
    ops = HankelOps(n)
    Hd = _dense(x, ops.n1)
    init = spectral_init(ops, x, rank=r, rng=np.random.default_rng(0))
    np.testing.assert_allclose(init.s, np.linalg.svd(Hd, compute_uv=False)[:r], rtol=1e-10)
    Z = takagi_factor(init)
    np.testing.assert_allclose(Z @ Z.T, Hd, atol=1e-9 * np.abs(Hd).max())


def test_ops_rejects_short_length() -> None:
    with pytest.raises(ValueError, match="n must be"):
        HankelOps(2)


@pytest.mark.parametrize("n", [31, 32])
def test_apply_and_adjoint_reject_wrongly_sized_inputs(n: int) -> None:
    """A wrong row count would otherwise be zero-padded by the FFT into a plausible but wrong product."""
    ops = HankelOps(n)
    g = np.random.default_rng(0)
    x, V, U = _cplx(g, n), _cplx(g, ops.n2, 2), _cplx(g, ops.n1, 2)
    with pytest.raises(ValueError, match=r"x must have shape"):
        ops.apply(x[:-1], V)
    with pytest.raises(ValueError, match=r"x must have shape"):
        ops.apply(np.concatenate([x, x[:1]]), V)
    with pytest.raises(ValueError, match=rf"V must have shape \({ops.n2},\)"):
        ops.apply(x, _cplx(g, ops.n2 + 4, 2))
    with pytest.raises(ValueError, match=rf"V must have shape \({ops.n1},\)"):
        ops.apply(x, _cplx(g, ops.n1 + 1), transpose=True)
    with pytest.raises(ValueError, match="V must have shape"):
        ops.apply(x, V[None])  # 3-D
    with pytest.raises(ValueError, match=rf"U must have shape \({ops.n1},\)"):
        ops.adjoint(_cplx(g, ops.n1 + 4, 2), V)
    with pytest.raises(ValueError, match=rf"V must have shape \({ops.n2},\)"):
        ops.pinv(U, _cplx(g, ops.n2 - 1, 2))
    with pytest.raises(ValueError, match="U and V must have the same number of columns"):
        ops.adjoint(U[:, :1], V)
    with pytest.raises(ValueError, match="x must have shape"):
        ops.hankel_norm_sq(x[:1])
    # 1-D factors are single columns (unchanged behaviour)
    np.testing.assert_allclose(ops.apply(x, V[:, 0]), ops.apply(x, V[:, :1])[:, 0])
    np.testing.assert_allclose(ops.adjoint(U[:, 0], V[:, 0]), ops.adjoint(U[:, :1], V[:, :1]))
