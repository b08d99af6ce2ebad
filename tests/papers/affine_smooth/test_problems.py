"""The P26 objectives: finite-difference oracles, closed forms, log-domain accuracy, the affine bound, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.affine_smooth import (
    LogisticRegression,
    SoftmaxBandit,
    TwoLayerNet,
    log_softplus_neg,
    lower_bound_instance,
    make_separable_data,
)


def _problems():
    X, y = make_separable_data(30, 4, margin=0.2, seed=1)
    return {
        "logistic": LogisticRegression(X, y),
        "softmax": SoftmaxBandit(np.array([0.1, 0.9, 0.5, 0.3])),
        "two_layer": TwoLayerNet(X, y, width=6, seed=2, init_scale=1.0),
    }


def _fd_grad(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("name", ["logistic", "softmax", "two_layer"])
def test_grad_and_hess_vec_match_finite_differences(name):
    p = _problems()[name]
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.standard_normal(p.dim)
        np.testing.assert_allclose(p.grad(x), _fd_grad(p.loss, x), rtol=1e-6, atol=1e-9)
        v = rng.standard_normal(p.dim)
        fd_hv = (p.grad(x + 1e-6 * v) - p.grad(x - 1e-6 * v)) / 2e-6
        np.testing.assert_allclose(p.hess_vec(x, v), fd_hv, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", ["logistic", "softmax", "two_layer"])
def test_hessian_is_symmetric(name):
    p = _problems()[name]
    x = np.random.default_rng(4).standard_normal(p.dim)
    H = np.column_stack([p.hess_vec(x, e) for e in np.eye(p.dim)])
    np.testing.assert_allclose(H, H.T, atol=1e-12)


def test_logistic_closed_form_worked_example():
    p = lower_bound_instance()  # f(θ) = log(1 + e^{−θ})
    assert p.loss(np.array([0.0])) == pytest.approx(np.log(2.0), rel=1e-15)
    assert p.grad(np.array([0.0]))[0] == pytest.approx(-0.5, rel=1e-15)
    assert p.hess_vec(np.array([0.0]), np.array([1.0]))[0] == pytest.approx(0.25, rel=1e-15)
    # far out in the tail: f = e^{−θ}(1 − e^{−θ}/2 + …); log f = −θ to 1e-12 even where f underflows
    assert p.log_loss(np.array([50.0])) == pytest.approx(-50.0 + np.log1p(-np.exp(-50.0) / 2), abs=1e-14)
    assert p.log_loss(np.array([2000.0])) == pytest.approx(-2000.0, rel=1e-15)


@given(m=st.floats(-700, 3000))
@settings(max_examples=60, deadline=None)
def test_log_softplus_neg_matches_direct_formula(m):
    got = float(log_softplus_neg(np.array([m]))[0])
    with np.errstate(divide="ignore"):
        direct = np.log(np.logaddexp(0.0, -m))
    if np.isfinite(direct) and direct > -700:  # where the direct formula is representable it is the oracle
        assert got == pytest.approx(direct, rel=1e-12, abs=1e-12)
    else:
        assert got == pytest.approx(-m, rel=1e-15)


def test_log_loss_equals_log_of_loss():
    for p in _problems().values():
        x = np.random.default_rng(5).standard_normal(p.dim)
        assert p.log_loss(x) == pytest.approx(np.log(p.loss(x)), rel=1e-12)


@given(seed=st.integers(0, 10_000), scale=st.floats(0.0, 50.0))
@settings(max_examples=40, deadline=None)
def test_logistic_affine_smoothness_bound(seed, scale):
    """‖∇²f(θ)‖₂ ≤ H1 f(θ), H1 = max‖x_i‖², H0 = 0, at any θ (brute-force Hessian, eigvalsh)."""
    X, y = make_separable_data(12, 3, margin=0.1, seed=seed)
    p = LogisticRegression(X, y)
    th = scale * np.random.default_rng(seed).standard_normal(3)
    H = np.column_stack([p.hess_vec(th, e) for e in np.eye(3)])
    assert np.max(np.abs(np.linalg.eigvalsh(H))) <= p.smoothness_bound() * p.loss(th) * (1 + 1e-12) + 1e-300


def test_softmax_gradient_is_mei_formula_and_loss_is_gap():
    r = np.array([0.2, 1.0, 0.4])
    p = SoftmaxBandit(r)
    th = np.array([0.3, -0.1, 0.7])
    pi = np.exp(th) / np.exp(th).sum()
    assert p.loss(th) == pytest.approx(1.0 - pi @ r, rel=1e-14)
    np.testing.assert_allclose(p.grad(th), -pi * (r - pi @ r), rtol=1e-13)
    # huge logit on the best arm: f underflows, log f stays exact (−(θ* − θ_a) + log gap, summed)
    th = np.array([0.0, 1000.0, 0.0])
    expect = np.logaddexp(-1000.0 + np.log(0.8), -1000.0 + np.log(0.6))
    assert p.log_loss(th) == pytest.approx(expect, rel=1e-14)


def test_separable_data_has_the_margin():
    """Oracle: a hard-margin linear SVM (scikit-learn) through 0 finds ℓ2 margin ≥ the requested one."""
    svm = pytest.importorskip("sklearn.svm")
    X, y = make_separable_data(200, 7, margin=0.3, seed=0)
    clf = svm.LinearSVC(C=1e4, fit_intercept=False, loss="hinge", max_iter=200_000, tol=1e-8).fit(X, y)
    w = clf.coef_.ravel()
    assert np.all(y * (X @ w) > 0)
    assert np.min(y * (X @ w)) / np.linalg.norm(w) >= 0.3 * 0.98
    X2, y2 = make_separable_data(200, 7, margin=0.3, seed=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_two_layer_net_is_positively_homogeneous():
    """h(c·W) = c·h(W) for c > 0 (leaky ReLU), so the margins scale and f → 0 along a separating direction."""
    X, y = make_separable_data(20, 3, margin=0.2, seed=0)
    net = TwoLayerNet(X, y, width=4, seed=0, init_scale=1.0)
    _, _, m1 = net._parts(net.theta0)
    _, _, m3 = net._parts(3.0 * net.theta0)
    np.testing.assert_allclose(m3, 3.0 * m1, rtol=1e-13)


def test_bad_input_rejected():
    X, y = make_separable_data(10, 3, margin=0.1, seed=0)
    with pytest.raises(ValueError, match="y must have shape"):
        LogisticRegression(X, y[:5])
    with pytest.raises(ValueError, match="y must hold labels"):
        LogisticRegression(X, np.zeros(10))
    with pytest.raises(ValueError, match="finite"):
        LogisticRegression(np.where(X > 0, np.nan, X), y)
    with pytest.raises(ValueError, match="X must be 2-dimensional"):
        LogisticRegression(X[0], y)
    with pytest.raises(TypeError, match="X must hold real numbers"):
        LogisticRegression(X + 1j, y)  # the imaginary part is never silently dropped
    with pytest.raises(TypeError, match="y must hold real numbers"):
        LogisticRegression(X, y.astype(complex))
    p = LogisticRegression(X, y)
    with pytest.raises(ValueError, match=r"theta must have shape \(3\), got \(4,\)"):
        p.loss(np.zeros(4))
    with pytest.raises(ValueError, match="theta must be finite"):
        p.grad(np.array([0.0, np.inf, 0.0]))
    with pytest.raises(TypeError, match="theta must hold real numbers"):
        p.loss(np.zeros(3) + 1j)
    with pytest.raises(ValueError, match="v must have shape"):
        p.hess_vec(np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="unique best arm"):
        SoftmaxBandit([1.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="rewards"):
        SoftmaxBandit([1.0])
    with pytest.raises(ValueError, match="width"):
        TwoLayerNet(X, y, width=3, seed=0)
    with pytest.raises(ValueError, match="alpha"):
        TwoLayerNet(X, y, width=4, alpha=0.0, seed=0)
    with pytest.raises(ValueError, match="margin"):
        make_separable_data(10, 3, margin=-1.0, seed=0)
    with pytest.raises(ValueError, match="n must be"):
        make_separable_data(0, 3, margin=0.1, seed=0)


def test_wrong_types_name_the_argument():
    X, y = make_separable_data(10, 3, margin=0.1, seed=0)
    with pytest.raises(TypeError, match="margin"):
        make_separable_data(10, 3, margin="a", seed=0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="n must be an int"):
        make_separable_data(10.0, 3, margin=0.1, seed=0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="init_scale"):
        TwoLayerNet(X, y, width=4, seed=0, init_scale="a")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="alpha"):
        TwoLayerNet(X, y, width=4, alpha="a", seed=0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="width"):
        TwoLayerNet(X, y, width=4.0, seed=0)  # type: ignore[arg-type]


def test_seed_must_be_explicit():
    """``seed=None`` (fresh entropy, not reproducible) is refused; an int or a Generator is accepted."""
    X, y = make_separable_data(10, 3, margin=0.1, seed=0)
    with pytest.raises(TypeError, match="seed"):
        make_separable_data(10, 3, margin=0.1, seed=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        TwoLayerNet(X, y, width=4, seed=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        make_separable_data(10, 3, margin=0.1, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        TwoLayerNet(X, y, width=4, seed=-1)
    X2, _ = make_separable_data(10, 3, margin=0.1, seed=np.random.default_rng(0))
    np.testing.assert_array_equal(X, X2)
    a = TwoLayerNet(X, y, width=4, seed=np.random.default_rng(3)).theta0
    np.testing.assert_array_equal(a, TwoLayerNet(X, y, width=4, seed=3).theta0)
