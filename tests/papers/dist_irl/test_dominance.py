"""FSD violation, dominance, mixture quantiles and standardised W1: oracles, invariants, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from icml26.papers.dist_irl import (
    CVaR,
    empirical_quantiles,
    first_order_dominates,
    fsd_violation,
    gaussian_mixture_quantiles,
    quantile_grid,
    standardized_wasserstein,
)


def test_worked_example_shifted_distribution():
    q = np.array([0.0, 1.0, 2.0, 3.0])
    assert fsd_violation(q, q + 1.0) == 0.0  # expert ahead everywhere
    assert fsd_violation(q + 1.0, q) == pytest.approx(1.0)  # learner ahead by 1 everywhere
    assert fsd_violation(np.array([0.0, 0.0, 0.0, 9.0]), np.zeros(4)) == pytest.approx(9 / 4)
    # CVaR_0.25 weights only the lowest cell
    assert fsd_violation(np.array([0.0, 0.0, 0.0, 9.0]), np.zeros(4), risk_measure=CVaR(0.25)) == 0.0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=3, max_size=40), st.lists(st.floats(-50, 50), min_size=3, max_size=40))
def test_violation_zero_iff_dominance(a, b):
    qa, qb = empirical_quantiles(a, 16), empirical_quantiles(b, 16)
    v = fsd_violation(qb, qa)
    assert v >= 0
    assert (v == 0) == first_order_dominates(a, b, n_quantiles=16)


def test_violation_is_w1_when_one_side_dominates():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, 5000), rng.normal(0, 1, 5000) + 0.7
    v = fsd_violation(empirical_quantiles(b, 200), empirical_quantiles(a, 200))
    assert v == pytest.approx(stats.wasserstein_distance(a, b), abs=0.05)


def test_mixture_quantiles_match_scipy_and_monte_carlo():
    taus = quantile_grid(9)
    q = gaussian_mixture_quantiles(np.array([1.0]), np.array([2.0]), np.array([3.0]), taus)
    np.testing.assert_allclose(q, stats.norm.ppf(taus, 2.0, 3.0), atol=1e-9)
    w, m, s = np.array([0.3, 0.7]), np.array([-1.0, 4.0]), np.array([0.5, 2.0])
    qm = gaussian_mixture_quantiles(w, m, s, taus)
    cdf = (w * stats.norm.cdf((qm[:, None] - m) / s)).sum(axis=1)
    np.testing.assert_allclose(cdf, taus, atol=1e-9)


def test_standardized_w1_is_affine_invariant_and_zero_on_truth():
    m, s = np.array([0.0, 1.0]), np.array([0.1, 2.0])
    np.testing.assert_allclose(standardized_wasserstein((3 * m - 2, 3 * s), (m, s)), 0.0, atol=1e-12)
    d = standardized_wasserstein((m, np.zeros(2)), (m, s))
    assert np.all(d > 0.1)


def test_standardized_w1_matches_scipy_on_samples():
    rng = np.random.default_rng(0)
    ml, sl, mt, st_ = np.array([0.0, 1.0]), np.array([1.0, 1.0]), np.array([0.0, 2.0]), np.array([0.5, 1.0])
    d = standardized_wasserstein((ml, sl), (mt, st_))

    def std(m, s):
        mean = m.mean()
        sc = np.sqrt(np.mean(s**2 + m**2) - mean**2)
        return (m - mean) / sc, s / sc

    (a, b), (c, e) = std(ml, sl), std(mt, st_)
    for k in range(2):
        ref = stats.wasserstein_distance(rng.normal(a[k], b[k], 100_000), rng.normal(c[k], e[k], 100_000))
        assert d[k] == pytest.approx(ref, abs=0.02)


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        fsd_violation([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="quantiles_policy"):
        fsd_violation([], [])
    with pytest.raises(TypeError, match="risk_measure"):
        fsd_violation([1.0], [1.0], risk_measure="cvar")
    with pytest.raises(ValueError, match="weights"):
        gaussian_mixture_quantiles(np.array([0.5, 0.6]), np.zeros(2), np.ones(2), np.array([0.5]))
    with pytest.raises(ValueError, match="taus"):
        gaussian_mixture_quantiles(np.array([1.0]), np.zeros(1), np.ones(1), np.array([1.0]))
    with pytest.raises(ValueError, match="standardise"):
        standardized_wasserstein((np.zeros(2), np.zeros(2)), (np.zeros(2), np.ones(2)))


@pytest.mark.parametrize(("tol", "err"), [(float("nan"), ValueError), (-0.1, ValueError), (float("inf"), ValueError),
                                          (True, TypeError), ("0", TypeError)])
def test_first_order_dominates_rejects_bad_tol(tol, err):
    """A NaN or negative tolerance would silently give a wrong answer."""
    with pytest.raises(err, match="tol"):
        first_order_dominates([1.0, 2.0], [0.0, 1.0], tol=tol)
    assert first_order_dominates([1.0, 2.0], [0.0, 1.0], tol=np.float32(0.0))


def test_fsd_violation_rejects_unsorted_quantiles():
    with pytest.raises(ValueError, match=r"quantiles_policy must be non-decreasing"):
        fsd_violation([3.0, 1.0, 2.0], [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"quantiles_expert must be non-decreasing"):
        fsd_violation([0.0, 1.0, 2.0], [2.0, 1.0, 0.0])
    # ties and rounding-level decreases are quantiles all the same
    assert fsd_violation([1.0, 1.0, 2.0 - 1e-13, 2.0], [1.0, 1.0, 2.0, 2.0]) == 0.0
