"""The identification rule of claim 4 reaches every verdict on planted numbers, and a sabotaged bridge (β = 0: the F
test still passes, the number is wrong) cannot make the whole check hold."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from icml26.claims import Context, Verdict
from icml26.papers.ope_mnar import _fqe
from icml26.papers.ope_mnar import claims as C
from icml26.papers.ope_mnar._experiments import rmse_ratio_ci

GOOD = {"accept": 1.0, "refuse": 1.0, "bias_ratio": (0.0, 0.05), "rmse_ratio_rel": (0.3, 0.45),
        "bias_ratio_irr": (0.9, 1.1)}


@pytest.mark.parametrize(("change", "verdict", "part"), [
    ({}, Verdict.HOLDS, None),
    ({"bias_ratio": (0.8, 1.2)}, Verdict.FAILS, "bias"),  # bridge as biased as complete case
    ({"rmse_ratio_rel": (0.95, 1.05)}, Verdict.FAILS, "rmse_shrinks"),  # relevant RMSE does not fall with n
    ({"bias_ratio_irr": (0.05, 0.2)}, Verdict.FAILS, "irrelevant_biased"),  # unidentified number is accurate anyway
    ({"accept": 0.3}, Verdict.FAILS, "rates"),
    ({"bias_ratio": (0.1, 0.4)}, Verdict.INCONCLUSIVE, "bias"),  # CI straddles 0.25
    ({"rmse_ratio_rel": (0.5, 0.9)}, Verdict.INCONCLUSIVE, "rmse_shrinks"),
    ({"bias_ratio_irr": (0.1, 0.9)}, Verdict.INCONCLUSIVE, "irrelevant_biased"),
    ({"refuse": 0.8}, Verdict.INCONCLUSIVE, "rates"),
    ({"refuse": 0.8, "bias_ratio": (0.8, 1.2)}, Verdict.FAILS, "bias"),  # a failing part beats an inconclusive one
])
def test_identification_rule_on_planted_numbers(change, verdict, part):
    got, parts = C.identification_rule(**{**GOOD, **change})
    assert got == verdict
    if part is not None:
        assert parts[part] != "holds"
    assert all(v in ("holds", "fails", "inconclusive") for v in parts.values())


def test_rmse_ratio_ci_brackets_the_ratio():
    g = np.random.default_rng(0)
    e_small, e_big = g.normal(0, 1, 200), g.normal(0, 3, 200)
    est = rmse_ratio_ci(e_small, e_big)
    assert est.lo < est.value < est.hi and est.value == pytest.approx(np.sqrt(np.mean(e_small**2) / np.mean(e_big**2)))
    assert 0.25 < est.value < 0.45


TINY = C.OPEConfig(ns=(250, 2000), reps=4, n_mc=20_000)


def test_sabotaged_bridge_does_not_hold(monkeypatch):
    """β = 0 keeps the shadow-relevance F (computed from the data, not from β), so the rates alone would still hold."""
    real = _fqe.fit_bridge

    def zero_beta(*args, **kwargs):
        fit = real(*args, **kwargs)
        return dataclasses.replace(fit, beta=np.zeros_like(fit.beta))

    monkeypatch.setattr(_fqe, "fit_bridge", zero_beta)
    r = C.check_identification(TINY, Context(seeds=(0,)))
    assert r.measured["parts"]["rates"] == "holds"  # the F test alone cannot see the sabotage
    assert r.verdict == Verdict.FAILS, r.reason
    assert r.measured["parts"]["bias"] == "fails" and r.measured["parts"]["rmse_shrinks"] == "fails"
