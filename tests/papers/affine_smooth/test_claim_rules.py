"""The verdict rules of the P26 claim checks, on planted curves and fits: each can say holds, fails (and, for the
assumption, inconclusive). Fast: no full run, only crafted curves and short trajectories."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.claims import Verdict
from icml26.papers.affine_smooth import (
    LogisticRegression,
    estimate_affine_smoothness,
    make_separable_data,
    run_method,
    sign_gd,
)
from icml26.papers.affine_smooth.claims import (
    FAST,
    SLOW,
    _affine_fails,
    _affine_row,
    _affine_verdict,
    _compare_curves,
    _lower_bound_fails,
    _lower_bound_row,
    _sign_fails,
)

K, WINDOW = 1200, 400
k = np.arange(K + 1, dtype=float)
LINEAR, SUBLINEAR = -0.02 * k, -np.log1p(k)  # log f of f = e^{-0.02 k} and of f = 1/(1 + k)


def _sign_row(s, g):
    return {"seed": 0, **_compare_curves(s, g, WINDOW)}


def test_sign_rule_holds_on_linear_vs_one_over_k():
    assert _sign_fails([_sign_row(LINEAR, SUBLINEAR)]) == []


def test_sign_rule_fails_when_sign_gd_is_sublinear():
    msg = "; ".join(_sign_fails([_sign_row(SUBLINEAR, SUBLINEAR)]))
    assert "sign-GD rate" in msg and "persistence" in msg and "decades below GD" in msg


def test_sign_rule_fails_when_gd_is_not_sublinear():
    msg = "; ".join(_sign_fails([_sign_row(2 * LINEAR, LINEAR)]))
    assert "GD log-log slope" in msg


EPS = np.array([1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5])
ONE_OVER_K = -np.log1p(np.arange(200_001, dtype=float))  # iterations to ε ≈ 1/ε: slope 1
GEOMETRIC = -0.1 * np.arange(200, dtype=float)  # iterations to ε ≈ 10 log(1/ε): slope ≈ 0.15


def _by(curves):
    return {m: _lower_bound_row(m, curves.get(m, ONE_OVER_K if m in SLOW else GEOMETRIC), EPS) for m in (*SLOW, *FAST)}


def test_lower_bound_rule_holds_on_planted_rates():
    by = _by({})
    assert by["gd"]["slope"] == pytest.approx(1.0, abs=0.02)
    assert by["adam"]["slope"] < 0.25
    assert _lower_bound_fails(by) == []


def test_lower_bound_rule_fails_on_swapped_or_unfinished_runs():
    fails = _lower_bound_fails(_by({"gd": GEOMETRIC, "rmsprop": ONE_OVER_K, "adam": GEOMETRIC[:60]}))
    assert [f.split(":")[0] for f in fails] == ["gd", "rmsprop", "adam"]  # adam stops at f = e^{-5.9} > 1e-5


def _quadratic_fit():
    """f = ½ θᵀAθ, A = diag(1, 2, 3): ‖∇²f‖ = 3 everywhere, so the log-log slope on f is 0 (H0 > 0, not H1 f)."""
    a = np.array([1.0, 2.0, 3.0])
    thetas = np.array([(1.0 - 0.3 * a) ** j for j in range(0, 61, 5)])  # GD with η = 0.3 from θ0 = 1
    return estimate_affine_smoothness(lambda t: 0.5 * t @ (a * t), lambda t: a * t, lambda t, v: a * v, thetas)


@pytest.fixture(scope="module")
def logistic_fit():
    X, y = make_separable_data(50, 5, margin=0.1, seed=0)
    p = LogisticRegression(X, y)
    tr = run_method(p, sign_gd(lr=0.1), iters=3000, keep=12)
    return p, estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, tr.thetas, seed=0)


def test_affine_rule_fails_on_a_quadratic():
    fit = _quadratic_fit()
    assert np.log10(fit.f.max() / fit.f.min()) > 10 and abs(fit.loglog_slope) < 1e-6
    fails, short = _affine_fails([_affine_row(0, "quadratic", fit, None)], 10.0)
    assert _affine_verdict(fails, short) is Verdict.FAILS and fails[0].endswith("< 0.9")


def test_affine_rule_holds_then_inconclusive_then_fails_on_logistic(logistic_fit):
    p, fit = logistic_fit
    row = _affine_row(0, "logistic", fit, p.smoothness_bound())
    assert _affine_verdict(*_affine_fails([row], 10.0)) is Verdict.HOLDS
    assert _affine_verdict(*_affine_fails([row], 1e6)) is Verdict.INCONCLUSIVE  # planted: demand 1e6 decades
    bad = _affine_row(0, "logistic", fit, 1e-3 * p.smoothness_bound())  # planted: a closed-form bound too small
    fails, short = _affine_fails([bad], 10.0)
    assert _affine_verdict(fails, short) is Verdict.FAILS and "‖∇²f‖ > H1 f" in fails[0]
