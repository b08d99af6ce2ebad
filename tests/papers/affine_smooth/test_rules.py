"""The [P26] rules on planted rows and on crafted curves: each verdict comes out where it should, for the right reason,
on both sides of each declared bar."""

import numpy as np
import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.affine_smooth import (
    LogisticRegression,
    estimate_affine_smoothness,
    make_separable_data,
    run_method,
    sign_gd,
)
from icml26.papers.affine_smooth._checks import compare_curves
from icml26.papers.affine_smooth._checks_affine import affine_row
from icml26.papers.affine_smooth._checks_rates import FAST, SLOW, lower_bound_row
from icml26.papers.affine_smooth._rules import judge_adaptive, judge_affine, judge_lower_bound, judge_sign_vs_gd
from support.planted import load_planted

P = load_planted("affine_smooth")
BARS = {c.id: c.bar_map for c in registry.get_paper("affine_smooth").claims}
SIGN = BARS["sign_gd_logistic"]

K, WINDOW = 1200, 400
k = np.arange(K + 1, dtype=float)
LINEAR, SUBLINEAR = -0.02 * k, -np.log1p(k)  # log f of f = e^{-0.02 k} and of f = 1/(1 + k)


def _sign(**changes):
    return judge_sign_vs_gd([{"seed": 0, **P.LINEAR_VS_GD, **changes}], bars=SIGN)


def test_both_sign_claims_declare_the_same_bars():
    assert BARS["sign_gd_logistic"] == BARS["sign_gd_softmax_pg"]


@pytest.mark.parametrize(("key", "ok", "bad"), [
    ("sign_rate", -5e-3, -4.9e-3), ("sign_persistence", 0.8, 0.79), ("gd_loglog_slope", -0.5, -0.49),
    ("gd_loglog_slope", -1.5, -1.51), ("speedup_decades", 3.0, 2.99)])
def test_sign_rule_on_each_side_of_each_bar(key, ok, bad):
    assert _sign(**{key: ok}).verdict is Verdict.HOLDS
    j = _sign(**{key: bad})
    assert j.verdict is Verdict.FAILS and "misses the bar" in j.reason


def test_sign_rule_undefined_persistence_is_inconclusive():
    j = _sign(sign_persistence=float("nan"))
    assert j.verdict is Verdict.INCONCLUSIVE and "undefined" in j.reason


def test_sign_rule_one_bad_seed_fails_the_claim():
    j = judge_sign_vs_gd(P.sign_rows(5, bad_seed=3), bars=SIGN)
    assert j.verdict is Verdict.FAILS and j.reason.startswith("4 of 5 seeds hold")
    assert j.measured["parts"]["seed 3"] == "fails" and j.measured["sign_rate"][3] == P.SUBLINEAR_VS_GD["sign_rate"]


def test_sign_rule_on_crafted_curves():
    """Oracle curves: e^{-0.02k} against 1/(1 + k) holds; sublinear sign GD fails three bars; linear GD fails one."""
    assert judge_sign_vs_gd([{"seed": 0, **compare_curves(LINEAR, SUBLINEAR, WINDOW)}], bars=SIGN).verdict is Verdict.HOLDS
    j = judge_sign_vs_gd([{"seed": 0, **compare_curves(SUBLINEAR, SUBLINEAR, WINDOW)}], bars=SIGN)
    assert j.verdict is Verdict.FAILS and "3 fails" in j.reason
    j = judge_sign_vs_gd([{"seed": 0, **compare_curves(2 * LINEAR, LINEAR, WINDOW)}], bars=SIGN)
    assert j.verdict is Verdict.FAILS and "GD log-log slope" in j.reason


def test_adaptive_rule_both_sides():
    bars = BARS["adaptive_two_layer"]
    assert judge_adaptive(P.adaptive_rows(3), bars=bars, methods=P.PINNED).verdict is Verdict.HOLDS
    j = judge_adaptive(P.adaptive_rows(3, persistence=0.74), bars=bars, methods=P.PINNED)
    assert j.verdict is Verdict.FAILS and "rmsprop_b2_0.9 persistence" in j.reason
    rows = P.adaptive_rows(3)
    rows[1]["adam_b2_0.9_rate"] = -4e-3  # one method on one seed just above the bar
    j = judge_adaptive(rows, bars=bars, methods=P.PINNED)
    assert j.verdict is Verdict.FAILS and j.measured["parts"] == {"seed 0": "holds", "seed 1": "fails", "seed 2": "holds"}


EPS = np.array([1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5])
ONE_OVER_K = -np.log1p(np.arange(200_001, dtype=float))  # iterations to ε ≈ 1/ε: slope 1
GEOMETRIC = -0.1 * np.arange(200, dtype=float)  # iterations to ε ≈ 10 log(1/ε): slope ≈ 0.15


def _lb(curves):
    rows = [lower_bound_row(m, curves.get(m, ONE_OVER_K if m in SLOW else GEOMETRIC), EPS) for m in (*SLOW, *FAST)]
    return judge_lower_bound(rows, bars=BARS["lower_bound"], slow=SLOW, fast=FAST)


def test_lower_bound_rule_on_crafted_curves():
    j = _lb({})
    assert j.verdict is Verdict.HOLDS
    assert j.measured["slopes"]["gd"] == pytest.approx(1.0, abs=0.02) and j.measured["slopes"]["adam"] < 0.25
    j = _lb({"gd": GEOMETRIC, "rmsprop": ONE_OVER_K, "adam": GEOMETRIC[:60]})  # adam stops at f = e^{-5.9} > 1e-5
    assert j.verdict is Verdict.FAILS
    assert {m for m, v in j.measured["parts"].items() if v == "fails"} == {"gd", "rmsprop", "adam"}
    assert "adam did not reach every ε" in j.reason


def test_lower_bound_rule_on_each_side_of_each_bar():
    bars = BARS["lower_bound"]

    def judge(slopes, reached=None):
        return judge_lower_bound(P.lower_bound_rows(slopes, reached), bars=bars, slow=SLOW, fast=FAST).verdict

    assert judge({"amsgrad": 0.75, "adam": 0.25}) is Verdict.HOLDS
    assert judge({"amsgrad": 0.74}) is Verdict.FAILS
    assert judge({"adam": 0.26}) is Verdict.FAILS
    assert judge({}, reached={"rmsprop": False}) is Verdict.FAILS
    assert judge({"gd": float("nan")}) is Verdict.INCONCLUSIVE  # fewer than 3 ε reached: no slope


def test_affine_rule_each_side_and_the_short_trajectory():
    bars = BARS["affine_smoothness"]
    assert judge_affine([P.affine_row(0, "softmax_pg", 0.9)], bars=bars).verdict is Verdict.HOLDS
    assert judge_affine([P.affine_row(0, "softmax_pg", 0.89)], bars=bars).verdict is Verdict.FAILS
    short = judge_affine([P.affine_row(0, "softmax_pg", 0.2, lo=-9.0)], bars=bars)  # f spans 8.7 decades
    assert short.verdict is Verdict.INCONCLUSIVE and "too short" in short.reason
    # a violated closed-form bound fails even on a short trajectory
    j = judge_affine([P.affine_row(0, "logistic", 0.97, lo=-9.0, violations=1)], bars=bars)
    assert j.verdict is Verdict.FAILS and "‖∇²f‖ > H1 f" in j.reason


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
    j = judge_affine([affine_row(0, "quadratic", fit, None)], bars=BARS["affine_smoothness"])
    assert j.verdict is Verdict.FAILS and "misses the bar >= 0.9" in j.reason


def test_affine_rule_on_a_real_logistic_trajectory(logistic_fit):
    p, fit = logistic_fit
    bars = BARS["affine_smoothness"]
    row = affine_row(0, "logistic", fit, p.smoothness_bound())
    assert row["bound_violations"] == 0 and judge_affine([row], bars=bars).verdict is Verdict.HOLDS
    bad = affine_row(0, "logistic", fit, 1e-3 * p.smoothness_bound())  # planted: a closed-form bound too small
    j = judge_affine([bad], bars=bars)
    assert bad["bound_violations"] > 0 and j.verdict is Verdict.FAILS and "‖∇²f‖ > H1 f" in j.reason
