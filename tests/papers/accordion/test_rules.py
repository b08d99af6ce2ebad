"""The [P25] rules on planted run tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.accordion._rules import judge_completeness, judge_gap, judge_kv, judge_throughput
from support.planted import load_planted

P = load_planted("accordion")
BARS = {c.id: c.bar_map for c in registry.get_paper("accordion").claims}
SFT = [(40.0, 75.0), (38.0, 72.0), (42.0, 78.0)]


def _gap(sft, rl):
    return judge_gap(P.gap_rows(sft, rl), bars=BARS["gap_vanishes"])


def test_a_closed_gap_holds_and_an_open_one_fails() -> None:
    held = _gap(SFT, [(80.0, 80.5), (79.0, 79.0), (81.0, 80.0)])
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("initial gap present")
    assert held.measured["sft_gap"] == [35.0, 34.0, 36.0] and held.measured["rl_gap"] == [0.5, 0.0, -1.0]
    open_ = _gap(SFT, [(50.0, 78.0), (52.0, 76.0), (48.0, 79.0)])
    assert open_.verdict is Verdict.FAILS


def test_without_an_initial_gap_nothing_can_fail() -> None:
    # the cold start did not create a gap: even a large gap after RL is not the paper's failure
    j = _gap([(70.0, 72.0), (71.0, 72.0), (69.0, 73.0)], [(50.0, 78.0), (52.0, 76.0), (48.0, 79.0)])
    assert j.verdict is Verdict.INCONCLUSIVE and "do not show the initial gap" in j.reason
    j = _gap([(70.0, 72.0), (71.0, 72.0), (69.0, 73.0)], [(80.0, 80.0)] * 3)
    assert j.verdict is Verdict.INCONCLUSIVE


def test_a_gap_closed_by_unfold_getting_worse_fails_fold_quality() -> None:
    # gap 0 after RL, but both modes fell to 30 %: Fold is far below the SFT model's Unfold accuracy
    j = _gap(SFT, [(30.0, 30.0), (31.0, 30.0), (29.0, 30.0)])
    assert j.verdict is Verdict.FAILS and j.measured["parts"]["fold quality"] == "fails"
    assert j.measured["parts"]["final gap"] == "holds"


def test_too_few_seeds_are_inconclusive() -> None:
    j = _gap(SFT[:2], [(80.0, 80.0), (80.0, 80.0)])
    assert j.verdict is Verdict.INCONCLUSIVE
    assert judge_gap([], bars=BARS["gap_vanishes"]).verdict is Verdict.INCONCLUSIVE
    c = judge_completeness(P.completeness_rows([0.4, 0.4], [0.9, 0.9]), bars=BARS["summary_completeness"])
    assert c.verdict is Verdict.INCONCLUSIVE


def test_completeness_rise_against_its_bar() -> None:
    bars = BARS["summary_completeness"]
    held = judge_completeness(P.completeness_rows([0.4, 0.45, 0.38], [0.95, 0.97, 0.93]), bars=bars)
    assert held.verdict is Verdict.HOLDS
    assert held.measured["rise"] == pytest.approx([0.55, 0.52, 0.55])
    near = judge_completeness(P.completeness_rows([0.4, 0.4, 0.4], [0.6, 0.75, 0.8]), bars=bars)  # CI over 0.3
    assert near.verdict is Verdict.INCONCLUSIVE and "straddles" in near.reason


def test_kv_ratio_and_well_formed_traces() -> None:
    bars = BARS["fold_kv"]
    held = judge_kv(P.kv_rows([52.0, 52.0, 53.0], [172.0, 172.0, 171.0]), bars=bars)
    assert held.verdict is Verdict.HOLDS
    assert held.measured["per_seed_ratio"] == pytest.approx([52 / 172, 52 / 172, 53 / 171])
    # short traces: a low ratio from rollouts that broke off is not a pass
    broken = judge_kv(P.kv_rows([30.0, 30.0, 30.0], [172.0, 172.0, 171.0], finished=0.5), bars=bars)
    assert broken.verdict is Verdict.FAILS and broken.measured["parts"]["well formed"] == "fails"
    assert judge_kv(P.kv_rows([52.0], [172.0]), bars=bars).verdict is Verdict.INCONCLUSIVE


def test_throughput_ratio_is_timed() -> None:
    bars = BARS["throughput"]
    held = judge_throughput(P.tps_rows([4000.0, 4200.0, 4100.0], [1000.0, 1010.0, 990.0]), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.timings
    slow = judge_throughput(P.tps_rows([1000.0, 1050.0, 1020.0], [1000.0, 1010.0, 990.0]), bars=bars)
    assert slow.verdict is Verdict.FAILS
