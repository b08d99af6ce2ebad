"""run_method, rates, iterations-to-ε, Hessian norms and the affine fit of P26: oracles, closed forms, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from icml26.papers.affine_smooth import (
    LogisticRegression,
    estimate_affine_smoothness,
    gd,
    hessian_norm,
    iterations_to_eps,
    linear_rate,
    lower_bound_instance,
    make_separable_data,
    rmsprop,
    run_method,
    sign_gd,
)
from icml26.papers.affine_smooth._analysis import _affine_envelope


def test_sign_gd_on_lower_bound_instance_is_closed_form():
    """θ_k = η k exactly, so f_k = log(1 + e^{−ηk}) and k(ε) = ⌈−log(e^ε − 1)/η⌉: O(log 1/ε)."""
    eta = 0.25
    tr = run_method(lower_bound_instance(), sign_gd(lr=eta), iters=400, keep=5)
    k = np.arange(tr.log_f.size)
    np.testing.assert_allclose(tr.log_f, np.log(np.logaddexp(0, -eta * k)), rtol=1e-12)
    eps = np.array([1e-2, 1e-4, 1e-8])
    expect = np.ceil(-np.log(np.expm1(eps)) / eta).astype(int)
    np.testing.assert_array_equal(iterations_to_eps(tr.log_f, eps), expect)
    np.testing.assert_allclose(tr.thetas[:, 0], eta * tr.kept_steps)


def test_gd_on_lower_bound_instance_needs_order_one_over_eps():
    """GD on log(1 + e^{−θ}): e^{θ_k} ≈ η k, so k(ε) ≈ 1/(η ε): ten times smaller ε, ten times more steps."""
    tr = run_method(lower_bound_instance(), gd(lr=2.0), iters=6000)
    k1, k2 = iterations_to_eps(tr.log_f, [1e-2, 1e-3])
    assert 8.0 < k2 / k1 < 12.0
    assert k2 == pytest.approx(1 / (2.0 * 1e-3), rel=0.1)


def test_linear_rate_recovers_geometric_slope_and_iterations_brute_force():
    log_f = np.log(3.0) + np.arange(100) * np.log(0.97)
    assert linear_rate(log_f, window=30) == pytest.approx(np.log(0.97), rel=1e-12)
    rng = np.random.default_rng(0)
    lf = np.cumsum(rng.normal(-0.1, 0.5, 300))
    eps = np.exp(np.array([-1.0, -5.0, -12.0, -700.0]))
    brute = [next((k for k in range(lf.size) if lf[k] <= np.log(e)), -1) for e in eps]
    np.testing.assert_array_equal(iterations_to_eps(lf, eps), brute)


def test_hessian_norm_matches_eigvalsh():
    A = np.random.default_rng(1).standard_normal((6, 6))
    H = A + A.T
    got = hessian_norm(lambda v: H @ v, 6, iters=2000)
    assert got == pytest.approx(np.max(np.abs(np.linalg.eigvalsh(H))), rel=1e-6)


def test_affine_envelope_matches_linprog_on_well_scaled_points():
    """Oracle: scipy's LP solver where values are O(1) (where its tolerances are fine)."""
    rng = np.random.default_rng(2)
    for _ in range(20):
        fs = rng.uniform(0.01, 3.0, 15)
        hs = rng.uniform(0.0, 2.0) + rng.uniform(0.0, 1.5) * fs + rng.uniform(-0.5, 0.5, 15)
        hs = np.maximum(hs, 0.05)
        a, b = _affine_envelope(fs, hs)
        w = np.where(hs > 0, 1.0 / np.where(hs > 0, hs, 1.0), 0.0)
        res = linprog([w.sum(), w @ fs], A_ub=-np.column_stack([np.ones_like(fs), fs]), b_ub=-hs,
                      bounds=[(0, None), (0, None)], method="highs")
        assert a * w.sum() + b * (w @ fs) == pytest.approx(res.fun, rel=1e-7, abs=1e-9)
        assert np.all(a + b * fs >= hs * (1 - 1e-9))


def test_estimate_affine_smoothness_on_logistic_trajectory():
    X, y = make_separable_data(60, 4, margin=0.2, seed=0)
    p = LogisticRegression(X, y)
    tr = run_method(p, sign_gd(lr=0.2), iters=1500, keep=15)
    fit = estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, tr.thetas)
    assert fit.f.min() < 1e-20 and fit.f.max() > 0.5  # a long range of f
    assert fit.L0 < 1e-6 * fit.hess_norm.max()  # H0 ≈ 0
    assert fit.L1 <= p.smoothness_bound()  # the closed-form H1 covers it
    assert 0.9 < fit.loglog_slope < 1.1
    assert fit.mu > 0


def test_adaptive_run_is_deterministic_and_log_domain():
    X, y = make_separable_data(40, 4, margin=0.2, seed=0)
    p = LogisticRegression(X, y)
    a = run_method(p, rmsprop(lr=0.1, beta2=0.9), iters=3000)
    b = run_method(p, rmsprop(lr=0.1, beta2=0.9), iters=3000)
    np.testing.assert_array_equal(a.log_f, b.log_f)
    assert a.log_f[-1] < np.log(1e-20)
    assert a.log_f[-1] == pytest.approx(np.log(p.loss(a.theta)), rel=1e-10)  # f still representable here


def test_run_method_floor_and_bad_input():
    tr = run_method(lower_bound_instance(), sign_gd(lr=1.0), iters=10_000, log_f_floor=-50.0)
    assert tr.stopped_early and tr.log_f[-1] < -50.0 and tr.log_f.size < 100
    p = lower_bound_instance()
    with pytest.raises(ValueError, match="iters"):
        run_method(p, gd(lr=1.0), iters=0)
    with pytest.raises(ValueError, match="theta0 must have shape"):
        run_method(p, gd(lr=1.0), iters=5, theta0=np.zeros(2))
    with pytest.raises(ValueError, match="theta0 must be finite"):
        run_method(p, gd(lr=1.0), iters=5, theta0=np.array([np.nan]))
    with pytest.raises(TypeError, match="method"):
        run_method(p, "gd", iters=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="window"):
        linear_rate([0.0, -1.0], window=1)
    with pytest.raises(ValueError, match="eps"):
        iterations_to_eps([0.0, -1.0], [0.0])
    with pytest.raises(ValueError, match="trajectory"):
        estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, np.zeros((1, 1)))
    with pytest.raises(ValueError, match="trajectory must be finite"):
        estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, np.array([[0.0], [np.inf]]))


def test_power_iteration_needs_at_least_one_step():
    """Power iteration needs iters >= 1 (0 is refused); on H = 3·I (norm 3) and diag(1, −5) (norm 5) it is exact."""
    assert hessian_norm(lambda v: 3.0 * v, 4, iters=1) == pytest.approx(3.0, rel=1e-12)
    assert hessian_norm(lambda v: np.array([1.0, -5.0]) * v, 2, iters=200) == pytest.approx(5.0, rel=1e-9)
    with pytest.raises(ValueError, match="iters must be an int >= 1"):
        hessian_norm(lambda v: 3.0 * v, 4, iters=0)
    p = lower_bound_instance()
    pts = np.array([[0.0], [2.0]])
    with pytest.raises(ValueError, match="power_iters must be an int >= 1"):
        estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, pts, power_iters=0)
    fit = estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, pts, power_iters=1)  # 1-D: one step is exact
    s = 1.0 / (1.0 + np.exp(-pts[:, 0]))
    np.testing.assert_allclose(fit.hess_norm, s * (1.0 - s), rtol=1e-12)


def test_int_arguments_refuse_bools():
    p = lower_bound_instance()
    with pytest.raises(TypeError, match="iters must be an int"):
        run_method(p, gd(lr=0.1), iters=True)
    with pytest.raises(TypeError, match="keep must be an int"):
        run_method(p, gd(lr=0.1), iters=3, keep=True)
    with pytest.raises(TypeError, match="window must be an int"):
        linear_rate([0.0, -1.0, -2.0], window=True)
    with pytest.raises(TypeError, match="dim must be an int"):
        hessian_norm(lambda v: v, True)
    with pytest.raises(TypeError, match="iters must be an int"):
        hessian_norm(lambda v: v, 2, iters=True)
    with pytest.raises(TypeError, match="seed must be an int"):
        hessian_norm(lambda v: v, 2, seed=False)
    with pytest.raises(TypeError, match="power_iters must be an int"):
        estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, np.array([[0.0], [1.0]]), power_iters=True)
    assert run_method(p, gd(lr=0.1), iters=np.int64(3)).log_f.size == 4  # numpy ints stay accepted


def test_linear_rate_refuses_a_window_longer_than_the_series():
    """A window past the series is a caller's error (the checks pass ``min(window, len)`` for a run that stopped early)."""
    log_f = np.log(0.9) * np.arange(50)
    assert linear_rate(log_f, window=50) == pytest.approx(np.log(0.9), rel=1e-12)
    with pytest.raises(ValueError, match=r"window must be at most len\(log_f\) = 50, got 1000"):
        linear_rate(log_f, window=1000)
    with pytest.raises(ValueError, match="window must be at most"):
        linear_rate([0.0], window=2)


def test_iterations_to_eps_refuses_nan_and_divergence_and_accepts_zero_loss():
    with pytest.raises(ValueError, match="log_f must not hold NaN"):
        iterations_to_eps(np.full(5, np.nan), [1e-3])
    with pytest.raises(ValueError, match="log_f must not hold NaN or \\+inf"):
        iterations_to_eps([0.0, np.inf, -1.0], [1e-3])
    with pytest.raises(ValueError, match="eps must be finite"):
        iterations_to_eps([0.0, -1.0], [np.inf])
    with pytest.raises(TypeError, match="log_f must hold real numbers"):
        iterations_to_eps(np.array([0.0, -1.0]) + 1j, [1e-3])
    np.testing.assert_array_equal(iterations_to_eps([0.0, -2.0, -np.inf], [0.5, 1e-300]), [1, 2])  # f = 0 reaches all
    np.testing.assert_array_equal(iterations_to_eps([0.0, -1.0], [1e-3]), [-1])  # never reached
