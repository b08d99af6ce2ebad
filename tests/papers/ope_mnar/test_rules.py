"""The [P36] rules on planted estimate tables: each verdict where it should be, for the right reason; and a sabotaged
bridge (beta = 0: the relevance F test still passes, the number is wrong) cannot make the identification check hold."""

import dataclasses

import numpy as np
import pytest

from icml26 import registry
from icml26.claims import Context, Verdict
from icml26.papers.ope_mnar import _fqe
from icml26.papers.ope_mnar._rules import (
    judge_consistency,
    judge_identification,
    judge_mar_biased,
    judge_missingness_policy,
    rmse_ratio_ci,
)
from icml26.papers.ope_mnar.claims import CLAIMS, OPEConfig
from support.planted import load_planted

P = load_planted("ope_mnar")
BARS = {c.id: c.bar_map for c in registry.get_paper("ope_mnar").claims}
H, F, I = Verdict.HOLDS, Verdict.FAILS, Verdict.INCONCLUSIVE


def test_consistency_rule():
    j = judge_consistency(**P._consistency(0.0), bars=BARS["consistency"])
    assert j.verdict is H and j.measured["rmse_bridge"] == pytest.approx([np.sqrt(500 / n) for n in P.NS])
    flat = judge_consistency(**P._consistency(0.0, rate=0.1), bars=BARS["consistency"])
    assert flat.verdict is F and flat.measured["parts"] == {"bias": "holds", "slope": "fails"}  # too slow a rate
    few = judge_consistency(rows=P.est_rows({"complete_case": -1.8, "bridge": 0.0}, n_seeds=1, reps=2), truth=P.TRUTH,
                            bars=BARS["consistency"])
    assert few.verdict is I and "only 2" in few.reason


def test_mar_rule_needs_the_mcar_control():
    bars = BARS["mar_biased"]
    assert judge_mar_biased(**P._mar(-1.8, -2.3), bars=bars).verdict is H
    one_vanishes = judge_mar_biased(**P._mar(-1.8, P.vanishing(-2.3)), bars=bars)
    assert one_vanishes.verdict is F and one_vanishes.measured["parts"]["mar_ipw stays biased"] == "fails"
    biased_control = judge_mar_biased(**P._mar(-1.8, -2.3, mcar=-1.0), bars=bars)
    assert biased_control.verdict is I and "the MCAR control failed" in biased_control.reason


def test_missingness_policy_rule():
    bars = BARS["missingness_policy"]
    held = judge_missingness_policy(**P._policy(0.0, 0.0), bars=bars)
    assert held.verdict is H and held.measured["delta"] == pytest.approx(-0.47)
    wrong_sign = judge_missingness_policy(**P._policy(0.0, -0.9), bars=bars)  # estimated Δ = +0.43
    assert wrong_sign.verdict is F and wrong_sign.measured["parts"] == {"bias": "holds", "contrast": "fails"}
    near = judge_missingness_policy(**P._policy(0.11, 0.11), bars=bars)  # bias 0.23 |Δ|: the CI straddles 0.25
    assert near.verdict is I and near.measured["parts"]["bias"] == "inconclusive"


def test_identification_rule_parts():
    bars = BARS["identification"]
    assert judge_identification(**P._ident(0.0), bars=bars).verdict is H
    j = judge_identification(**P._ident(0.0, accepted=False), bars=bars)  # the diagnostic refuses a relevant shadow
    assert j.verdict is F and j.measured["parts"]["relevant shadow accepted at n=500"] == "fails"
    j = judge_identification(**P._ident(0.0, irrelevant_bias=-0.1), bars=bars)  # unidentified, yet accurate
    assert j.verdict is F and j.measured["parts"]["irrelevant_biased"] == "fails"
    no_shrink = judge_identification(**P._ident(0.0, rate=0.0), bars=bars)  # the relevant RMSE does not fall with n
    assert no_shrink.verdict is F and no_shrink.measured["parts"]["rmse_shrinks"] == "fails"


def test_rmse_ratio_ci_brackets_the_ratio():
    g = np.random.default_rng(0)
    e_small, e_big = g.normal(0, 1, 200), g.normal(0, 3, 200)
    est = rmse_ratio_ci(e_small, e_big)
    assert est.lo < est.value < est.hi and est.value == pytest.approx(np.sqrt(np.mean(e_small**2) / np.mean(e_big**2)))
    assert 0.25 < est.value < 0.45


TINY = OPEConfig(ns=(250, 2000), reps=4, n_mc=20_000)


def test_sabotaged_bridge_does_not_hold(monkeypatch):
    """beta = 0 keeps the shadow-relevance F (computed from the data, not from beta), so the rates alone would hold."""
    real = _fqe.fit_bridge

    def zero_beta(*args, **kwargs):
        fit = real(*args, **kwargs)
        return dataclasses.replace(fit, beta=np.zeros_like(fit.beta))

    monkeypatch.setattr(_fqe, "fit_bridge", zero_beta)
    claim = next(c for c in CLAIMS if c.id == "identification")
    r = claim.check(TINY, Context(seeds=(0,), bars=BARS["identification"]))
    parts = r.measured["parts"]
    assert all(v == "holds" for k, v in parts.items() if "shadow" in k)  # the F test alone cannot see the sabotage
    assert r.verdict is F, r.reason
    assert parts["bias"] == "fails" and parts["rmse_shrinks"] == "fails"
