"""The [P12] verdict rules on planted rows: both ways, and the undecided cases in between."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.oenn._rules import RULES, judge_commutant, judge_equivariance, judge_sbm, judge_uat
from support.planted import load_planted

PLANTED = load_planted("oenn").PLANTED
BARS = {c.id: c.bar_map for c in registry.get_paper("oenn").claims}


@pytest.mark.parametrize("claim", sorted(PLANTED))
def test_planted_both_ways(claim):
    p = PLANTED[claim]
    for holds, fails in ((p.holds, p.fails), *p.budget_variants):
        assert RULES[claim](**holds, bars=BARS[claim]).verdict is Verdict.HOLDS
        assert RULES[claim](**fails, bars=BARS[claim]).verdict is Verdict.FAILS


def test_commutant_undecided_rank_and_residual():
    mod = load_planted("oenn")
    bars = BARS["complete_characterization"]
    j = judge_commutant(mod.commutant_rows([(14, 14)], gap=10.0), bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "undecided" in j.reason
    assert judge_commutant(mod.commutant_rows([(14, 14)], residual=1e-6), bars=bars).verdict is Verdict.FAILS
    rows = mod.commutant_rows([(14, 14)])
    rows[0]["basis_rank"] = 13  # dependent elements: the count alone would not show an incomplete basis
    assert judge_commutant(rows, bars=bars).verdict is Verdict.FAILS
    assert judge_commutant([], bars=bars).verdict is Verdict.INCONCLUSIVE


def test_equivariance_skips_trivial_groups():
    mod = load_planted("oenn")
    rows = mod.equivariance_rows(1e-15, 0.0, cases=1)
    for r in rows:
        r["group_trivial"] = True
    assert judge_equivariance(rows, bars=BARS["exact_equivariance"]).verdict is Verdict.INCONCLUSIVE


def test_uat_needs_seeds_and_two_widths():
    mod = load_planted("oenn")
    bars = BARS["universal_approximation"]
    assert judge_uat(mod.uat_rows(0.5, 0.05, seeds=2), bars=bars).verdict is Verdict.INCONCLUSIVE
    one = [r for r in mod.uat_rows(0.5, 0.05) if r["width"] in (0, 4)]
    assert judge_uat(one, bars=bars).verdict is Verdict.INCONCLUSIVE
    straddle = mod.uat_rows(0.5, 0.05) + []
    for r in straddle:
        if r["width"] == 32:
            r["test_nmse"] = 0.5 / (3.0 if r["seed"] == 0 else 2.0 if r["seed"] == 1 else 6.0)
    assert judge_uat(straddle, bars=bars).verdict is Verdict.INCONCLUSIVE


def test_uat_guard_on_a_too_linear_target():
    mod = load_planted("oenn")
    bars = BARS["universal_approximation"]
    for trend in ((0.5, 0.05), (0.5, 0.4)):  # a trend that would hold, and one that would fail
        j = judge_uat(mod.uat_rows(*trend, linear=0.3), bars=bars)
        assert j.verdict is Verdict.INCONCLUSIVE and "too linear" in j.reason
        assert j.measured["linear_nmse_min"] == pytest.approx(0.3)
    no_reference = [r for r in mod.uat_rows(0.5, 0.05) if r["width"] > 0]
    j = judge_uat(no_reference, bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "linear" in j.reason
    assert judge_uat(mod.uat_rows(0.5, 0.05, linear=0.5), bars=bars).verdict is Verdict.HOLDS  # on the bar: meets it


def test_sbm_precondition_and_seeds():
    mod = load_planted("oenn")
    bars = BARS["heterophilic_sbm"]
    assert judge_sbm(mod.sbm_rows(0.85, 0.75, 0.65, seeds=2), bars=bars).verdict is Verdict.INCONCLUSIVE
    j = judge_sbm(mod.sbm_rows(0.85, 0.75, 0.65, homophily=0.3), bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "heterophilic" in j.reason
    mixed = judge_sbm(mod.sbm_rows(0.80, 0.80, 0.65), bars=bars)
    assert mixed.verdict is not Verdict.HOLDS
