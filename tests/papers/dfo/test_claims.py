"""The smoke claims of P14 (dfo) run and are deterministic; each verdict rule can hold and fail (planted rows)."""

import pytest

from icml26.claims import Context, Verdict
from icml26.papers.dfo._verdicts import (
    residual_flags,
    residual_verdict,
    robustness_flags,
    robustness_verdict,
    smoothness_verdict,
    worst_verdict,
)
from icml26.papers.dfo.claims import CLAIMS


def test_every_claim_has_smoke_and_small():
    assert {c.id for c in CLAIMS} == {"residual_minimisation", "smooth_velocities", "singular_robustness"}
    assert all({"smoke", "small"} <= set(c.budgets) for c in CLAIMS)


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.id == "smooth_velocities"], ids=lambda c: c.id)
def test_smoke_claim_deterministic(claim):
    # the conformance test runs every smoke claim twice; here only the cheapest one, to keep the suite short
    b = claim.budgets["smoke"]
    r1 = claim.check(b.config, Context(seeds=(0,), budget="smoke"))
    r2 = claim.check(b.config, Context(seeds=(0,), budget="smoke"))
    assert r1.measured == r2.measured
    assert r1.verdict.value in {"holds", "fails", "inconclusive"}
    assert r1.figures


# ---------------------------------------------------------------- verdict rules on planted rows (holds and fails)


def _res_row(r_dfo, r_trunc=1e-6, r_min=1e-15, r_tik=1e-4, f_norm=1.0):
    return {"r_dfo": r_dfo, "r_trunc": r_trunc, "r_min": r_min, "r_tikhonov": r_tik, "f_norm": f_norm}


def test_residual_rule_judges_against_the_truncated_minimum():
    at_trunc = _res_row(1.005e-6)  # at the truncated minimum, far above the LS minimum
    assert residual_flags(at_trunc) == {"a_ok": True, "b_ok": True, "a_ls": False}
    assert residual_verdict([at_trunc, _res_row(1e-15, r_trunc=1e-15)]) is Verdict.HOLDS
    # (a) fails: the history costs residual beyond the truncated minimum (2% > 1% + 1e-10 ||F||)
    assert residual_verdict([at_trunc, _res_row(1.02e-6)]) is Verdict.FAILS
    # the slack is relative to ||F||: 1e-10 ||F|| absorbs round-off only
    assert residual_flags(_res_row(5e-10, r_trunc=0.0, f_norm=10.0))["a_ok"]
    assert not residual_flags(_res_row(5e-10, r_trunc=0.0, f_norm=1.0))["a_ok"]
    # (b) fails: Tikhonov less than 10x DFO's residual in one cell
    assert residual_verdict([at_trunc, _res_row(1e-6, r_tik=9e-6)]) is Verdict.FAILS
    assert residual_verdict([]) is Verdict.FAILS


def test_smoothness_rule_holds_fails_inconclusive():
    v, est = smoothness_verdict([100.0, 120.0, 110.0], [1.0, 1.1, 0.9])
    assert v is Verdict.HOLDS and est.lo >= 10
    v, est = smoothness_verdict([6.0, 7.0, 5.0], [1.0, 1.0, 1.0])
    assert v is Verdict.FAILS and est.hi < 10
    v, est = smoothness_verdict([3.0, 16.0, 6.0, 11.0], [1.0, 1.0, 1.0, 1.0])  # point 9, CI straddles 10
    assert v is Verdict.INCONCLUSIVE and est.value < 10 < est.hi
    v, _ = smoothness_verdict([5.0], [1.0])  # one seed: a CI without spread decides nothing
    assert v is Verdict.INCONCLUSIVE
    v, est = smoothness_verdict([30.0, 1.0, 30.0, 1.0], [1.0, 1.0, 1.0, 1.0])  # point 15.5, CI reaches below 10
    assert v is Verdict.INCONCLUSIVE and est.lo < 10 <= est.value
    assert worst_verdict([Verdict.HOLDS, Verdict.HOLDS]) is Verdict.HOLDS
    assert worst_verdict([Verdict.HOLDS, Verdict.INCONCLUSIVE]) is Verdict.INCONCLUSIVE
    assert worst_verdict([Verdict.INCONCLUSIVE, Verdict.FAILS]) is Verdict.FAILS


def _rob_row(dfo, tsvd, lstsq):
    return {"err_dfo": dfo, "err_tsvd": tsvd, "err_lstsq": lstsq}


def test_robustness_rule_needs_every_cell_and_a_majority():
    inf = float("inf")
    worse = [_rob_row(1e-3, 1e-3, 5e-3), _rob_row(1e-3, 1e-3, inf)]  # lstsq worse / blew up
    tie = _rob_row(1e-3, 1e-3, 1e-3)
    assert robustness_flags(worse[1]) == {"ok": True, "lstsq_worse": True}
    assert robustness_verdict([*worse, tie]) is Verdict.HOLDS  # 2/3 > half
    assert robustness_verdict([*worse, tie, tie]) is Verdict.FAILS  # 2/4: not a strict majority
    assert robustness_verdict([*worse, _rob_row(1.2e-3, 1e-3, 5e-3)]) is Verdict.FAILS  # (i) DFO > 1.1x TSVD
    assert robustness_verdict([*worse, _rob_row(inf, inf, inf)]) is Verdict.FAILS  # DFO blew up
    assert robustness_verdict([]) is Verdict.FAILS
