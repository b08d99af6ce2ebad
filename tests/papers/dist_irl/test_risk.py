"""Distortion risk measures: closed forms (oracles), invariants, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from icml26.papers.dist_irl import (
    CVaR,
    Expectation,
    PowerDistortion,
    WangTransform,
    quantile_grid,
)

MEASURES = [CVaR(0.2), CVaR(1.0), WangTransform(0.75), PowerDistortion(2.0), Expectation()]


def test_worked_example_cvar_of_small_sample():
    # worst 20% of 10 equally likely outcomes 1..10 are {1, 2}: CVaR_0.2 = 1.5
    assert CVaR(0.2)(np.arange(1, 11)) == pytest.approx(1.5)
    assert Expectation()(np.arange(1, 11)) == pytest.approx(5.5)


@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.5])
def test_cvar_gaussian_closed_form_matches_quantile_integral(alpha):
    r = CVaR(alpha)
    q = 1.0 + 2.0 * stats.norm.ppf(quantile_grid(20000))
    assert r.from_quantiles(q) == pytest.approx(r.gaussian(1.0, 2.0), abs=2e-3)
    assert r.gaussian(1.0, 2.0) == pytest.approx(1.0 - 2.0 * stats.norm.pdf(stats.norm.ppf(alpha)) / alpha)


def test_wang_gaussian_is_mean_minus_eta_sigma():
    q = 1.0 + 2.0 * stats.norm.ppf(quantile_grid(20000))
    assert WangTransform(0.5).from_quantiles(q) == pytest.approx(1.0 - 0.5 * 2.0, abs=2e-3)


def test_power_2_is_expected_minimum_of_two_draws():
    # E[min(U1, U2)] = 1/3 for uniforms; E[min] of two N(0,1) = -1/sqrt(pi)
    u = quantile_grid(20000)
    assert PowerDistortion(2.0).from_quantiles(u) == pytest.approx(1 / 3, abs=1e-4)
    assert PowerDistortion(2.0).from_quantiles(stats.norm.ppf(u)) == pytest.approx(-1 / np.sqrt(np.pi), abs=1e-3)


def test_monte_carlo_matches_closed_form():
    z = np.random.default_rng(0).normal(0.5, 1.5, 200_000)
    for r in (CVaR(0.1), WangTransform(1.0)):
        assert r(z) == pytest.approx(r.gaussian(0.5, 1.5), abs=0.03)


@pytest.mark.parametrize("r", MEASURES, ids=lambda r: repr(r))
def test_weights_are_a_probability_vector_and_g_is_a_distortion(r):
    w = r.weights(37)
    assert np.all(w >= -1e-15) and w.sum() == pytest.approx(1.0)
    assert r.g(np.array([0.0]))[0] == pytest.approx(0.0) and r.g(np.array([1.0]))[0] == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=2, max_size=50), st.floats(-10, 10), st.floats(0.1, 10))
def test_translation_equivariance_positive_homogeneity_and_risk_aversion(xs, b, a):
    z = np.array(xs)
    for r in (CVaR(0.3), WangTransform(0.5), PowerDistortion(3.0)):
        assert r(a * z + b) == pytest.approx(a * r(z) + b, abs=1e-6 * (1 + np.abs(z).max() * a))
        assert r(z) <= z.mean() + 1e-9  # concave distortions are risk-averse


def test_tail_weights_give_the_cvar_gradient_weight():
    z = np.random.default_rng(1).normal(size=1000)
    psi = CVaR(0.2).tail_weights(z)
    var = np.sort(z)[199]
    np.testing.assert_allclose(psi, np.maximum(var - z, 0.0) / 0.2, atol=0.02)


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, "x"])
def test_bad_alpha(bad):
    with pytest.raises(ValueError, match="alpha"):
        CVaR(bad)


def test_bad_samples_and_params():
    with pytest.raises(ValueError, match="samples"):
        CVaR(0.2)([])
    with pytest.raises(ValueError, match="samples"):
        CVaR(0.2)([1.0, np.nan])
    with pytest.raises(ValueError, match="xi"):
        PowerDistortion(0.0)
    with pytest.raises(ValueError, match="n_quantiles"):
        quantile_grid(0)
    with pytest.raises(ValueError, match="tau"):
        CVaR(0.2).g(np.array([1.5]))


def test_parameters_accept_numpy_numbers_and_reject_bools():
    """Numpy scalars are numbers; a bool is not a distortion parameter."""
    assert WangTransform(np.float32(0.75)).gaussian(0.0, 1.0) == pytest.approx(-0.75)
    assert CVaR(np.float64(0.2)).gaussian(0.0, 1.0) == pytest.approx(CVaR(0.2).gaussian(0.0, 1.0))
    assert PowerDistortion(np.int64(2)).g(np.array([0.5]))[0] == pytest.approx(0.75)
    for make, name in ((PowerDistortion, "xi"), (WangTransform, "eta"), (CVaR, "alpha")):
        for bad in (True, np.bool_(True)):
            with pytest.raises(ValueError, match=name):
                make(bad)


@pytest.mark.parametrize("r", MEASURES, ids=lambda r: repr(r))
def test_gaussian_refuses_a_negative_std(r):
    """CVaR(0.2).gaussian(0.0, -1.0) once returned +1.3998: a negative spread read as a gain."""
    with pytest.raises(ValueError, match="std"):
        r.gaussian(0.0, -1.0)
    with pytest.raises(TypeError, match="mean"):
        r.gaussian("0", 1.0)
    assert r.gaussian(0.0, 0.0) == pytest.approx(0.0)


@pytest.mark.parametrize("bad", [[-0.1], [1.5], [0.5, np.nan], []])
def test_g_refuses_levels_outside_the_unit_interval(bad):
    with pytest.raises(ValueError, match="tau"):
        CVaR(0.2).g(np.array(bad, dtype=float))
    np.testing.assert_allclose(CVaR(0.2).g([0.0, 0.1, 0.2, 1.0]), [0.0, 0.5, 1.0, 1.0])
