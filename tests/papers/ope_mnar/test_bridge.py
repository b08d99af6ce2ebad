"""The bridge fit (ridge 2SLS) and the shadow-relevance diagnostic against closed forms and established formulas."""

import numpy as np
import pytest
from scipy import stats

from icml26.papers.ope_mnar import fit_bridge, shadow_relevance


def _design(n=400, gamma=2.0, noise=0.0, seed=0):
    g = np.random.default_rng(seed)
    s = g.standard_normal(n)
    r = s + g.standard_normal(n)
    z = 0.5 * s + gamma * r + noise * g.standard_normal(n)  # shadow: depends on R, not on η
    W = np.stack([np.ones(n), s], axis=1)
    return W, z[:, None], r[:, None], r, s


def test_2sls_recovers_the_bridge_exactly_on_noise_free_data():
    """Z = 0.5 S + 2 R  ⇒  b(S, Z) = (Z − 0.5 S) / 2 solves E[b | R, S] = R exactly (the notes' unit test)."""
    W, X, U, r, _ = _design()
    fit = fit_bridge(W, X, U, r, ridge=1e-12)
    np.testing.assert_allclose(fit.beta, [0.0, -0.25, 0.5], atol=1e-6)
    assert fit.n_complete == 400 and np.isfinite(fit.condition)


def test_just_identified_2sls_equals_the_iv_closed_form():
    """With dim ψ = dim φ the min-max / 2SLS solution is β = (Ψᵀ Φ)⁻¹ Ψᵀ R (simple IV), and the sample moment
    condition Ψᵀ(R − Φβ) = 0 of Eq. (B2) holds."""
    W, X, U, r, _ = _design(noise=1.0, seed=3)
    Phi, Psi = np.hstack([W, X]), np.hstack([W, U])
    fit = fit_bridge(W, X, U, r, ridge=0.0)
    iv = np.linalg.solve(Psi.T @ Phi, Psi.T @ r)
    np.testing.assert_allclose(fit.beta, iv, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(Psi.T @ (r - Phi @ fit.beta), 0.0, atol=1e-6 * len(r))


def test_bridge_is_unbiased_for_the_conditional_mean_with_noise():
    """With a noisy shadow (S' = 0.5 S + 2 R + ν) the fitted bridge still averages to E[R | S] on fresh data."""
    W, X, U, r, s = _design(n=20000, noise=1.0, seed=1)
    fit = fit_bridge(W, X, U, r, ridge=1e-8)
    b = np.hstack([W, X]) @ fit.beta
    slope = np.polyfit(s, b, 1)
    np.testing.assert_allclose(slope, [1.0, 0.0], atol=0.05)  # E[R | S] = S


def test_relevance_F_matches_the_nested_model_formula():
    W, X, _, r, _ = _design(n=300, gamma=0.1, noise=1.0, seed=2)
    F, p = shadow_relevance(W, X, r)
    # the textbook partial F from the two R²'s
    def r2(A):
        res = r - A @ np.linalg.lstsq(A, r, rcond=None)[0]
        return 1 - res @ res / np.sum((r - r.mean()) ** 2)
    r2w, r2f = r2(W), r2(np.hstack([W, X]))
    F_ref = ((r2f - r2w) / 1) / ((1 - r2f) / (300 - 3))
    assert F == pytest.approx(F_ref, rel=1e-9)
    assert p == pytest.approx(stats.f.sf(F_ref, 1, 297), rel=1e-9)


def test_relevance_p_values_are_uniform_under_irrelevance():
    pvals = []
    for seed in range(200):
        W, X, _, r, _ = _design(n=60, gamma=0.0, noise=1.0, seed=seed)
        pvals.append(shadow_relevance(W, X, r)[1])
    assert stats.kstest(pvals, "uniform").pvalue > 1e-3
    W, X, _, r, _ = _design(n=60, gamma=1.0, noise=1.0, seed=0)
    assert shadow_relevance(W, X, r)[0] > 10


def test_zero_rows_are_refused_not_fitted_as_beta_zero():
    """Zero complete cases once gave beta = 0 (a bridge that predicts a zero reward everywhere)."""
    with pytest.raises(ValueError, match="W has no rows"):
        fit_bridge(np.zeros((0, 2)), np.zeros((0, 1)), np.zeros((0, 1)), np.zeros(0), ridge=1e-6)


def test_bad_arguments_are_rejected_by_name():
    W, X, U, r, _ = _design(n=50)
    for ridge in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="ridge"):
            fit_bridge(W, X, U, r, ridge=ridge)
    with pytest.raises(TypeError, match="ridge"):
        fit_bridge(W, X, U, r, ridge="0.1")
    r_nan = r.copy()
    r_nan[3] = np.nan
    with pytest.raises(ValueError, match="r must be finite"):
        fit_bridge(W, X, U, r_nan, ridge=1e-6)
    with pytest.raises(ValueError, match="X must have one row per row of W"):
        fit_bridge(W, X[:-1], U, r, ridge=1e-6)
    with pytest.raises(ValueError, match="r must have one row"):
        fit_bridge(W, X, U, r[:-1], ridge=1e-6)
    with pytest.raises(ValueError, match="U must be 2-dimensional"):
        fit_bridge(W, X, U[:, 0], r, ridge=1e-6)
    with pytest.raises(TypeError, match="W must hold real numbers"):
        fit_bridge(W.astype(object), X, U, r, ridge=1e-6)


def test_shadow_relevance_refuses_fewer_rows_than_it_needs():
    W, X, _, r, _ = _design(n=3)  # W has 2 columns, X 1: the regression needs n >= 4
    with pytest.raises(ValueError, match=r"too few rows for the shadow-relevance test: n = 3, but it needs at least 4"):
        shadow_relevance(W, X, r)
    with pytest.raises(ValueError, match=r"n = 3"):
        fit_bridge(W, X, X, r, ridge=1e-6)
    W, X, _, r, _ = _design(n=4, noise=1.0)
    F, p = shadow_relevance(W, X, r)  # n = p + k + 1 is enough
    assert np.isfinite(F) and 0.0 <= p <= 1.0
