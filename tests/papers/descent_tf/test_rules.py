"""The [P07] rules on planted run tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.descent_tf._rules import (
    gains,
    judge_in_distribution,
    judge_monotone,
    judge_ood,
    judge_perturbation,
    monotone_count,
)
from support.planted import load_planted

P = load_planted("descent_tf")
BARS = {c.id: c.bar_map for c in registry.get_paper("descent_tf").claims}


def test_monotone_count():
    assert monotone_count([1.0, 0.5, 0.5, 0.7, 0.2]) == (3, 4)
    assert monotone_count(P.BUMPY) == (2, 3)


def test_monotone_rule_needs_the_constrained_share_and_a_non_monotone_erm():
    bars = BARS["monotone_descent"]
    held = judge_monotone(P.run_rows(), bars=bars)
    assert held.verdict is Verdict.HOLDS
    assert held.measured["constrained_pairs"] == [18, 18] and held.measured["erm_pairs"] == [12, 18]
    assert held.measured["constrained_by_task"] == {"denoise": [9, 9], "rows": [9, 9]}
    both = judge_monotone(P.run_rows(erm=P.DESCENDING), bars=bars)
    assert both.verdict is Verdict.FAILS and "ERM non-increasing share = 1" in both.reason
    assert "1 of 2 parts hold" in both.reason  # what held is said too
    bumpy = judge_monotone(P.run_rows(con=P.BUMPY), bars=bars)
    assert bumpy.verdict is Verdict.FAILS and "constrained non-increasing share = 0.6667" in bumpy.reason


def test_monotone_with_one_seed_is_inconclusive():
    j = judge_monotone(P.run_rows(1), bars=BARS["monotone_descent"])
    assert j.verdict is Verdict.INCONCLUSIVE and "only 1 seeds" in j.reason and "constrained 6/6" in j.reason


def test_gains_are_relative_for_nmse_and_points_for_accuracy():
    rows = P.run_rows(gain=0.1, field="ood")
    assert gains(rows, "denoise", "ood") == pytest.approx([0.1] * 3)  # 0.2 → 0.18: 10 % lower NMSE
    assert gains(rows, "rows", "ood") == pytest.approx([0.1] * 3)  # 0.8 → 0.9 accuracy: 10 points
    assert gains(rows, "rows", "id") == [0.0] * 3
    with pytest.raises(ValueError, match="both a constrained and an erm run"):
        gains([r for r in rows if r["method"] != "erm"], "rows", "id")


def test_in_distribution_is_non_inferiority():
    bars = BARS["in_distribution"]
    assert judge_in_distribution(P.run_rows(gain=-0.015, field="id"), bars=bars).verdict is Verdict.HOLDS
    assert judge_in_distribution(P.run_rows(gain=0.2, field="id"), bars=bars).verdict is Verdict.HOLDS
    worse = judge_in_distribution(P.run_rows(gain=-0.05, field="id"), bars=bars)
    assert worse.verdict is Verdict.FAILS and "inferior within margin 0.02" in worse.reason
    straddle = judge_in_distribution(P.run_rows(gain=-0.02, field="id", spread=0.01), bars=bars)
    assert straddle.verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize(("judge", "claim", "field"), [(judge_perturbation, "perturbation_robustness", "perturbed"),
                                                       (judge_ood, "ood_generalization", "ood")])
def test_robustness_rules_need_every_task_and_three_seeds(judge, claim, field):
    bars = BARS[claim]
    held = judge(P.run_rows(gain=0.01, field=field), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("2 of 2 tasks hold")
    assert held.measured["gains_by_seed"]["rows"] == pytest.approx([0.01] * 3)
    mixed = judge(P.run_rows(gain=0.01, field=field, spread=0.02), bars=bars)  # seeds disagree in sign
    assert mixed.verdict is Verdict.INCONCLUSIVE and "straddles" in mixed.reason
    assert judge(P.run_rows(gain=-0.01, field=field), bars=bars).verdict is Verdict.FAILS
    rows = [r for r in P.run_rows(gain=0.01, field=field) if not (r["task"] == "rows" and r["method"] == "constrained")]
    rows += [{**r, "method": "constrained", field: r[field] - 0.05} for r in P.run_rows(field=field)
             if r["task"] == "rows" and r["method"] == "erm"]
    one_bad = judge(rows, bars=bars)
    assert one_bad.verdict is Verdict.FAILS and one_bad.measured["parts"] == {"denoise": "holds", "rows": "fails"}
    few = judge(P.run_rows(2, gain=0.01, field=field), bars=bars)
    assert few.verdict is Verdict.INCONCLUSIVE and "only 2" in few.reason
