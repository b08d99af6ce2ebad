"""[P16] verdict rules on planted rows: both ways, too few seeds, nothing to recover."""

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.agent0vl._rules import RULES, judge_evolution, judge_recovery
from support.planted import load_planted

P = load_planted("agent0vl")
PLANTED, RISING, ORACLE, arm_rows = P.PLANTED, P.RISING, P.ORACLE, P.arm_rows
BARS = {c.id: c.bar_map for c in registry.get_paper("agent0vl").claims}


def test_planted_both_ways():
    for cid, p in PLANTED.items():
        assert RULES[cid](**p.holds, bars=BARS[cid]).verdict is Verdict.HOLDS, cid
        assert RULES[cid](**p.fails, bars=BARS[cid]).verdict is Verdict.FAILS, cid


def test_two_seeds_are_inconclusive():
    j = judge_evolution(arm_rows({"serc": RISING[:2]}), bars=BARS["self_evolution_gain"])
    assert j.verdict is Verdict.INCONCLUSIVE and "seeds" in j.reason


def test_a_falling_iteration_breaks_monotonicity():
    dip = [c[:2] + [c[1] - 0.05, c[3]] for c in RISING]
    j = judge_evolution(arm_rows({"serc": dip}), bars=BARS["self_evolution_gain"])
    assert j.verdict is Verdict.FAILS and j.measured["parts"]["iteration 2"] == "fails"
    assert j.measured["parts"]["overall"] == "holds"


def test_no_oracle_gain_is_nothing_to_recover():
    flat = [[c[0]] * 4 for c in ORACLE]
    j = judge_recovery(arm_rows({"serc": RISING, "oracle": flat}), bars=BARS["zero_reward_recovery"])
    assert j.verdict is Verdict.INCONCLUSIVE and "no gain to recover" in j.reason


def test_text_gap_without_the_trusting_arm_judges_the_plain_one():
    j = RULES["text_only_gains_less"](rows=arm_rows({"serc": RISING, "text_only": P.TEXT_FLAT}),
                                      bars=BARS["text_only_gains_less"])
    assert j.verdict is Verdict.HOLDS and "trusting" not in j.reason
