"""The [P35] rules on planted tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.toast._rules import judge_budget, judge_coupling, judge_tcs, judge_throughput
from support.planted import load_planted

P = load_planted("toast")
BARS = {c.id: c.bar_map for c in registry.get_paper("toast").claims}


def _tcs(tcs, rand=P.RAND, mag=P.MAG, dense=P.DENSE, ratio=0.5):
    return judge_tcs(P.tcs_rows(dense, tcs, rand, mag), bars=BARS["tcs_training_free"], ratio=ratio)


def test_tcs_rule_both_ways_and_per_part():
    held = _tcs(P.GOOD_TCS)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("3 of 3 parts hold")
    assert held.measured["mean_accuracy"]["tcs"]["0.5"] == pytest.approx(sum(P.GOOD_TCS) / 3)
    cheap_but_no_better = _tcs(P.GOOD_TCS, rand=[97.0, 96.6, 97.3])  # random costs less than TCS
    assert cheap_but_no_better.verdict is Verdict.FAILS and "vs random" in cheap_but_no_better.reason
    assert cheap_but_no_better.measured["parts"] == {"TCS cost": "holds", "vs random": "fails", "vs magnitude": "holds"}
    straddle = _tcs([96.8, 95.0, 97.0])  # drops 0.2, 1.5, 0.2: the CI straddles 1 pt
    assert straddle.verdict is Verdict.INCONCLUSIVE and "straddles" in straddle.reason


def test_tcs_rule_reads_only_the_judged_ratio_and_needs_seeds():
    rows = P.tcs_rows(P.DENSE, P.GOOD_TCS, P.RAND, P.MAG) + [
        r for r in P.tcs_rows(P.DENSE, P.BAD_TCS, P.RAND, P.MAG, ratio=0.9) if r["method"] != "dense"]
    assert judge_tcs(rows, bars=BARS["tcs_training_free"], ratio=0.5).verdict is Verdict.HOLDS
    assert judge_tcs(rows, bars=BARS["tcs_training_free"], ratio=0.9).verdict is Verdict.FAILS
    two = judge_tcs(P.tcs_rows(P.DENSE[:2], P.GOOD_TCS[:2], P.RAND[:2], P.MAG[:2]), bars=BARS["tcs_training_free"],
                    ratio=0.5)
    assert two.verdict is Verdict.INCONCLUSIVE and "only 2" in two.reason
    none = judge_tcs(P.tcs_rows(P.DENSE, P.GOOD_TCS, P.RAND, P.MAG), bars=BARS["tcs_training_free"], ratio=0.7)
    assert none.verdict is Verdict.INCONCLUSIVE


def test_coupling_rule_is_non_inferiority_against_every_variant():
    v = P.VARIANTS
    assert judge_coupling(P.coupling_rows(P.COUPLED), bars=BARS["coupled_pruning"], variants=v).verdict is Verdict.HOLDS
    worse = judge_coupling(P.coupling_rows(P.WORSE), bars=BARS["coupled_pruning"], variants=v)
    assert worse.verdict is Verdict.FAILS and worse.measured["parts"]["vs average"] == "fails"
    assert worse.measured["parts"]["vs independent"] == "holds"
    slightly = {**P.COUPLED, "coupled": [95.5, 95.4, 96.2]}  # −0.6 on two seeds vs average: CI straddles −0.5
    j = judge_coupling(P.coupling_rows(slightly), bars=BARS["coupled_pruning"], variants=v)
    assert j.verdict is Verdict.INCONCLUSIVE and j.measured["parts"]["vs average"] == "inconclusive"
    assert j.measured["mean_accuracy"]["coupled"]["oneshot"] == pytest.approx(95.7 - 5.0)
    missing = judge_coupling(P.coupling_rows(P.COUPLED), bars=BARS["coupled_pruning"], variants=("k_only",))
    assert missing.verdict is Verdict.INCONCLUSIVE


def test_budget_rule_needs_both_the_macs_and_the_accuracy():
    good, bad = [96.5, 96.9, 96.3], [94.0, 94.2, 93.8]
    ft = [97.0, 97.2, 96.8]
    held = judge_budget(P.budget_rows(ft, good), bars=BARS["accuracy_efficiency"])
    assert held.verdict is Verdict.HOLDS and held.measured["mac_reduction"] == pytest.approx(0.35)
    assert held.measured["dense_ft_minus_dense"][0] == pytest.approx(0.5)
    light = judge_budget(P.budget_rows(ft, good, macs_toast=750), bars=BARS["accuracy_efficiency"])
    assert light.verdict is Verdict.FAILS and light.measured["parts"] == {"MACs": "fails", "accuracy": "holds"}
    assert judge_budget(P.budget_rows(ft, bad), bars=BARS["accuracy_efficiency"]).verdict is Verdict.FAILS
    rows = P.budget_rows(ft, good)
    rows[1]["macs_toast"] = 640
    assert "not fixed" in judge_budget(rows, bars=BARS["accuracy_efficiency"]).reason


def test_throughput_rule_puts_time_in_timings():
    fast = judge_throughput(P.times([2.0, 2.1, 1.9], [0.9, 0.92, 0.88]), bars=BARS["throughput"], macs_dense=4.6,
                            macs_toast=2.7)
    slow = judge_throughput(P.times([2.0, 2.1, 1.9], [1.5, 1.55, 1.45]), bars=BARS["throughput"], macs_dense=4.6,
                            macs_toast=2.7)
    assert fast.verdict is Verdict.HOLDS and slow.verdict is Verdict.FAILS
    assert fast.measured == slow.measured == {"mac_ratio": pytest.approx(4.6 / 2.7)}
    assert fast.timings != slow.timings
    one = judge_throughput(P.times([2.0], [1.0]), bars=BARS["throughput"], macs_dense=2.0, macs_toast=1.0)
    assert one.verdict is Verdict.INCONCLUSIVE
