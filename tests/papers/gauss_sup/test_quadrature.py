"""E max by quadrature against closed forms, scipy.integrate.quad and Monte Carlo; gradients; invariants."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from icml26.papers.gauss_sup import (
    expected_max,
    expected_max_and_grad,
    expected_sum_max,
    expected_sum_max_and_grad,
    mc_expected_max,
    mc_expected_sum_max,
)


def clark(m1: float, m2: float, s1: float, s2: float) -> float:
    """E max of two independent Gaussians (Clark 1961): μ1Φ(α) + μ2Φ(−α) + θφ(α), θ² = σ1² + σ2²."""
    th = math.hypot(s1, s2)
    a = (m1 - m2) / th
    return m1 * stats.norm.cdf(a) + m2 * stats.norm.cdf(-a) + th * stats.norm.pdf(a)


def test_worked_example_iid_standard_normals():
    # E max of k iid N(0,1): 1/√π (k=2), 3/(2√π) (k=3), 1.16296 (k=5, tables)
    assert expected_max(np.zeros(2), np.ones(2)) == pytest.approx(1 / math.sqrt(math.pi), abs=1e-10)
    assert expected_max(np.zeros(3), np.ones(3)) == pytest.approx(1.5 / math.sqrt(math.pi), abs=1e-10)
    assert expected_max(np.zeros(5), np.ones(5)) == pytest.approx(1.162964, abs=1e-6)
    # the notes' anchor: 5 equal variances, no constant in the max
    assert expected_max(np.zeros(5), np.full(5, 1 / math.sqrt(5))) == pytest.approx(0.52009, abs=1e-5)


@pytest.mark.parametrize(("m1", "m2", "s1", "s2"), [(0.3, -0.2, 0.5, 1.2), (0.0, 0.0, 1.0, 1.0), (2.0, -1.0, 0.1, 0.3),
                                                    (0.3, -0.2, 1e-4, 1.2), (0.3, -0.2, 0.0, 1.2), (1.0, 1.0, 0.0, 0.5)])
def test_two_gaussians_closed_form(m1, m2, s1, s2):
    assert expected_max([m1, m2], [s1, s2]) == pytest.approx(clark(m1, m2, s1, s2), abs=1e-10)


def test_degenerate_cases():
    assert expected_max([0.7], [2.0]) == pytest.approx(0.7, abs=1e-12)
    assert expected_max([0.1, 0.5, -1.0], [0.0, 0.0, 0.0]) == 0.5
    # a constant far above every Gaussian: the max is that constant
    assert expected_max([100.0, 0.0], [0.0, 1.0]) == pytest.approx(100.0, abs=1e-12)


def test_against_scipy_quad():
    g = np.random.default_rng(0)
    for _ in range(3):
        mu, s = g.normal(size=6), g.uniform(0.01, 2.0, 6)
        s[2] = 0.0

        def cdf(t):
            return np.prod([stats.norm.cdf((t - m) / x) if x > 0 else float(t >= m) for m, x in zip(mu, s)])

        ref = (integrate.quad(lambda t: 1 - cdf(t), 0, np.inf, limit=400)[0]
               - integrate.quad(cdf, -np.inf, 0, limit=400)[0])
        assert expected_max(mu, s) == pytest.approx(ref, abs=1e-7)


def test_monte_carlo_agrees_with_quadrature():
    mu, s = np.array([0.1, 0.0, 0.3, -0.2, 0.05]), np.array([0.5, 0.3, 0.0, 0.7, 0.1])
    q = expected_max(mu, s)
    mc = mc_expected_max(mu, s, n_samples=200_000, seed=1)
    assert abs(mc.value - q) < 4 * mc.stderr
    mcc = mc_expected_max(mu, cov=np.diag(s**2), n_samples=200_000, seed=2)  # correlated path with Σ = I·σ²
    assert abs(mcc.value - q) < 4 * mcc.stderr
    sets = [[0, 1], [1, 2, 3], [4]]
    mcs = mc_expected_sum_max(mu, s, sets, n_samples=200_000, seed=3)
    assert abs(mcs.value - expected_sum_max(mu, s, sets)) < 4 * mcs.stderr
    assert mc_expected_max(mu, s, n_samples=1000, seed=5) == mc_expected_max(mu, s, n_samples=1000, seed=5)


def test_correlation_lowers_the_max():
    # perfectly correlated equal Gaussians: the max is one Gaussian, E = μ
    mc = mc_expected_max(np.zeros(3), cov=np.full((3, 3), 1 / 3), n_samples=20_000, seed=0)
    assert abs(mc.value) < 4 * mc.stderr + 1e-12


def test_gradient_matches_finite_differences():
    g = np.random.default_rng(1)
    mu, s = g.normal(size=5), g.uniform(0.1, 1.0, 5)
    _, grad = expected_max_and_grad(mu, s)
    h = 1e-6
    for i in range(5):
        e = np.zeros(5)
        e[i] = h
        fd = (expected_max(mu, s + e) - expected_max(mu, s - e)) / (2 * h)
        assert grad[i] == pytest.approx(fd, abs=1e-6)
    assert np.all(grad >= -1e-12)  # F is non-decreasing in every σ_i


def test_one_sided_gradient_of_a_tied_constant():
    mu, s = np.zeros(4), np.array([0.6, 0.8, 0.0, 0.0])
    v, grad = expected_max_and_grad(mu, s)
    e = np.array([0, 0, 1e-7, 0])
    assert grad[2] == pytest.approx((expected_max(mu, s + e) - v) / 1e-7, rel=1e-4)
    assert grad[2] == pytest.approx(stats.norm.pdf(0) / 4, rel=1e-9)  # φ(0)·P(both Gaussians ≤ 0)


def test_sum_max_is_the_sum_and_gradient_scatters():
    mu, s = np.array([0.1, -0.3, 0.2, 0.0]), np.array([0.4, 0.5, 0.6, 0.3])
    sets = [[0, 1, 1], [1, 2, 3], [3]]
    total = sum(expected_max(mu[list(set(x))], s[list(set(x))]) for x in sets)
    v, grad = expected_sum_max_and_grad(mu, s, sets)
    assert v == pytest.approx(total, abs=1e-12)
    assert expected_sum_max(mu, s, sets) == pytest.approx(total, abs=1e-12)
    assert grad[0] == pytest.approx(expected_max_and_grad(mu[[0, 1]], s[[0, 1]])[1][0], abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(-2, 2), st.floats(0.0, 2.0)), min_size=1, max_size=6), st.floats(-3, 3),
       st.floats(0.1, 3.0), st.randoms(use_true_random=False))
def test_invariants(pairs, shift, scale, rnd):
    mu = np.array([p[0] for p in pairs])
    s = np.array([p[1] for p in pairs])
    f = expected_max(mu, s)
    assert f >= mu.max() - 1e-9  # Jensen: E max >= max E
    assert expected_max(mu + shift, s) == pytest.approx(f + shift, abs=1e-8)  # shift equivariance
    assert expected_max(scale * mu, scale * s) == pytest.approx(scale * f, rel=1e-8, abs=1e-8)  # homogeneity
    perm = list(range(mu.size))
    rnd.shuffle(perm)
    assert expected_max(mu[perm], s[perm]) == pytest.approx(f, abs=1e-9)
    assert expected_max(mu, s * 1.1) >= f - 1e-9  # monotone in σ


@pytest.mark.parametrize(("args", "exc", "match"), [
    (([0.0, 1.0], [1.0, -0.1]), ValueError, "sigma must be >= 0"),
    (([0.0, np.nan], [1.0, 1.0]), ValueError, "mu must be finite"),
    (([0.0, 1.0], [1.0, np.inf]), ValueError, "sigma must be finite"),
    (([0.0, 1.0], [1.0, 1.0, 1.0]), ValueError, "same shape"),
    (([], []), ValueError, "mu must not be empty"),
    (([[0.0]], [[1.0]]), ValueError, "mu must be 1-dimensional"),
    ((["a"], [1.0]), TypeError, "mu must hold real numbers"),
    (([0.0, 1.0j], [1.0, 1.0]), TypeError, "mu must hold real numbers"),  # not silently its real part
    (([0.0, 1.0], [1.0, 1.0 + 0.5j]), TypeError, "sigma must hold real numbers"),
])
def test_bad_input_expected_max(args, exc, match):
    with pytest.raises(exc, match=match):
        expected_max(*args)


@pytest.mark.parametrize(("sets", "exc", "match"), [
    ([], ValueError, "at least one set"),
    ([[0], []], ValueError, r"sets\[1\] must be a non-empty"),
    ([[0, 5]], ValueError, r"sets\[0\] has indices outside"),
    ([[0.5]], TypeError, r"sets\[0\] must hold integer"),
    ("01", TypeError, "sets must be a sequence"),
])
def test_bad_input_sets(sets, exc, match):
    with pytest.raises(exc, match=match):
        expected_sum_max([0.0, 1.0], [1.0, 1.0], sets)


def test_bad_input_monte_carlo():
    with pytest.raises(ValueError, match="exactly one of sigma"):
        mc_expected_max([0.0], seed=0)
    with pytest.raises(ValueError, match="n_samples"):
        mc_expected_max([0.0], [1.0], n_samples=1, seed=0)
    with pytest.raises(ValueError, match="cov must be positive semi-definite"):
        mc_expected_max([0.0, 0.0], cov=[[1.0, 2.0], [2.0, 1.0]], seed=0)
    with pytest.raises(ValueError, match="cov must have shape"):
        mc_expected_max([0.0, 0.0], cov=np.eye(3), seed=0)
    with pytest.raises(ValueError, match="sets must be given"):
        mc_expected_sum_max([0.0], [1.0], seed=0)


@pytest.mark.parametrize(("batch", "exc"), [(0, ValueError), (-5, ValueError), (2.5, TypeError), (True, TypeError)])
def test_monte_carlo_rejects_bad_batch(batch, exc):
    # batch = 0 would never advance the block loop
    with pytest.raises(exc, match="batch must be an int"):
        mc_expected_max([0.0, 1.0], [1.0, 1.0], n_samples=10, seed=0, batch=batch)
    with pytest.raises(exc, match="batch must be an int"):
        mc_expected_sum_max([0.0, 1.0], [1.0, 1.0], [[0, 1]], n_samples=10, seed=0, batch=batch)


def test_monte_carlo_batch_does_not_change_the_draws():
    a = mc_expected_max([0.0, 0.5], [1.0, 0.3], n_samples=1000, seed=4, batch=7)
    b = mc_expected_max([0.0, 0.5], [1.0, 0.3], n_samples=1000, seed=4, batch=1000)
    assert a.n_samples == b.n_samples == 1000 and a.value == pytest.approx(b.value, rel=1e-12)


def test_monte_carlo_streams_the_same_draws_as_one_matrix():
    # oracle: all draws at once from the same generator; the streamed running mean and stderr must match it
    mu, s = np.array([0.1, -0.3, 0.2]), np.array([0.4, 1.0, 0.0])
    x = mu + np.random.default_rng(9).standard_normal((5000, 3)) * s
    y = x.max(axis=1)
    est = mc_expected_max(mu, s, n_samples=5000, seed=9, batch=333)
    assert est.value == pytest.approx(y.mean(), rel=1e-12)
    assert est.stderr == pytest.approx(y.std(ddof=1) / math.sqrt(y.size), rel=1e-9)
    sets = [[0, 1], [1, 2]]
    both = mc_expected_sum_max(mu, s, sets, n_samples=5000, seed=9, batch=333)
    assert both.value == pytest.approx((x[:, [0, 1]].max(axis=1) + x[:, [1, 2]].max(axis=1)).mean(), rel=1e-12)


def test_monte_carlo_memory_does_not_grow_with_n_samples():
    import tracemalloc

    mu = np.zeros(50)
    tracemalloc.start()
    mc_expected_max(mu, np.full(50, 0.1), n_samples=200_000, seed=0, batch=1000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5e6, f"peak {peak / 1e6:.1f} MB: the draws (80 MB in all) must not be kept"


def test_monte_carlo_refuses_an_absurd_request_before_drawing():
    import time

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="n_samples=1000000000000 .* max_draws"):
        mc_expected_max(np.zeros(4), np.ones(4), n_samples=10**12, seed=0)
    with pytest.raises(ValueError, match="n_samples"):
        mc_expected_sum_max(np.zeros(4), np.ones(4), [[0, 1]], n_samples=10**12, seed=0)
    assert time.perf_counter() - t0 < 1.0
    assert mc_expected_max(np.zeros(4), np.ones(4), n_samples=100, seed=0, max_draws=400).n_samples == 100
    with pytest.raises(ValueError, match="max_draws"):
        mc_expected_max(np.zeros(4), np.ones(4), n_samples=101, seed=0, max_draws=400)
    with pytest.raises(TypeError, match="seed"):
        mc_expected_max(np.zeros(4), np.ones(4), n_samples=100, seed=None)  # type: ignore[arg-type]
