"""The [P15] rules on planted run tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.t2po._rules import judge_collapses, judge_low_info, judge_success, judge_think
from support.planted import load_planted

P = load_planted("t2po")
BARS = {c.id: c.bar_map for c in registry.get_paper("t2po").claims}
BASE = P.BASE


def _success(values):
    return judge_success(P.rows(values, "final_success"), bars=BARS["higher_success"], baselines=BASE)


def test_success_must_beat_every_baseline_in_every_seed() -> None:
    held = _success({"t2po": [0.8, 0.85, 0.9], "grpo": [0.6, 0.7, 0.65], "gigpo": [0.7, 0.75, 0.8]})
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("2 of 2 (environment, baseline) pairs hold")
    mixed = _success({"t2po": [0.8, 0.6, 0.9], "grpo": [0.6, 0.7, 0.65], "gigpo": [0.7, 0.75, 0.8]})  # one seed loses
    assert mixed.verdict is Verdict.INCONCLUSIVE and "straddles" in mixed.reason
    lost = _success({"t2po": [0.8, 0.85, 0.9], "grpo": [0.6, 0.7, 0.65], "gigpo": [0.9, 0.95, 0.95]})
    assert lost.verdict is Verdict.FAILS and lost.measured["parts"] == {"numberhunt vs grpo": "holds",
                                                                          "numberhunt vs gigpo": "fails"}
    d = held.measured["numberhunt vs grpo"]["numberhunt: T²PO − grpo final success"]
    assert d["estimate"] == pytest.approx(0.2) and d["n"] == 3


def test_too_few_paired_seeds_are_inconclusive() -> None:
    j = _success({"t2po": [0.9, 0.9], "grpo": [0.1, 0.1], "gigpo": [0.1, 0.1]})
    assert j.verdict is Verdict.INCONCLUSIVE and "only 2 paired seeds" in j.reason
    # seeds pair up: a seed only one arm ran is left out
    rows = P.rows({"t2po": [0.9, 0.9, 0.9], "grpo": [0.1, 0.1, 0.1, 0.1], "gigpo": [0.1, 0.1, 0.1]}, "final_success")
    assert judge_success(rows, bars=BARS["higher_success"], baselines=BASE).verdict is Verdict.HOLDS


def test_every_environment_is_judged() -> None:
    rows = (P.rows({"t2po": [0.9, 0.9, 0.9], "grpo": [0.1, 0.1, 0.1], "gigpo": [0.1, 0.1, 0.1]}, "final_success")
            + P.rows({"t2po": [0.1, 0.1, 0.1], "grpo": [0.5, 0.5, 0.5], "gigpo": [0.1, 0.1, 0.1]}, "final_success",
                     env="maze"))
    j = judge_success(rows, bars=BARS["higher_success"], baselines=BASE)
    assert j.verdict is Verdict.FAILS and j.measured["parts"]["maze vs grpo"] == "fails"
    assert j.measured["parts"]["maze vs gigpo"] == "fails"  # a tie in every seed is not "higher": CI [0, 0]


def test_ratio_rules_against_their_bars() -> None:
    bars = BARS["fewer_low_info_turns"]
    held = judge_low_info(P.rows({"t2po": [0.1, 0.12, 0.11], "grpo": [0.3, 0.32, 0.31], "gigpo": [0.25, 0.27, 0.26]},
                                 "low_info"), bars=bars, baselines=BASE)
    assert held.verdict is Verdict.HOLDS
    r = held.measured["numberhunt vs grpo"]["numberhunt: T²PO / grpo low-information turns per turn"]
    assert r["estimate"] == pytest.approx(0.33 / 0.93) and r["bar"] == "<= 0.7"
    near = judge_low_info(P.rows({"t2po": [0.2, 0.25, 0.15], "grpo": [0.3, 0.3, 0.3], "gigpo": [0.3, 0.3, 0.3]},
                                 "low_info"), bars=bars, baselines=BASE)  # ratio 0.67 [0.5, 0.83]
    assert near.verdict is Verdict.INCONCLUSIVE
    zero = judge_low_info(P.rows({"t2po": [0.0, 0.0, 0.0], "grpo": [0.0, 0.0, 0.0], "gigpo": [0.3, 0.3, 0.3]},
                                 "low_info"), bars=bars, baselines=BASE)
    assert zero.verdict is Verdict.INCONCLUSIVE and "grpo has no low-information turns" in zero.reason
    think = judge_think(P.rows({"t2po": [1.7, 1.7, 1.7], "grpo": [2.0, 2.0, 2.0], "gigpo": [1.0, 1.0, 1.0]}, "think"),
                        bars=BARS["fewer_think_tokens"], baselines=BASE)  # 0.85 vs GRPO: misses 0.8
    assert think.verdict is Verdict.FAILS and "misses the bar <= 0.8" in think.reason


def _collapse(values):
    return judge_collapses(P.rows(values, "collapsed"), bars=BARS["fewer_collapses"], baselines=BASE)


def test_no_collapse_in_either_arm_is_never_a_pass() -> None:
    j = _collapse({"t2po": [0, 0, 0], "grpo": [0, 0, 0], "gigpo": [0, 0, 0]})
    assert j.verdict is Verdict.INCONCLUSIVE and "no collapse in either arm" in j.reason
    held = _collapse({"t2po": [0, 0, 0], "grpo": [1, 1, 1], "gigpo": [1, 1, 1]})
    assert held.verdict is Verdict.HOLDS
    one = _collapse({"t2po": [0, 0, 0], "grpo": [1, 0, 0], "gigpo": [1, 1, 1]})  # 1 of 3: the CI touches 0
    assert one.verdict is Verdict.INCONCLUSIVE and one.measured["parts"]["numberhunt vs grpo"] == "inconclusive"
    worse = _collapse({"t2po": [1, 1, 1], "grpo": [0, 0, 0], "gigpo": [1, 1, 1]})
    assert worse.verdict is Verdict.FAILS and "fail bar < 0" in worse.reason
    tie = _collapse({"t2po": [1, 1, 1], "grpo": [1, 1, 1], "gigpo": [1, 1, 1]})  # both collapse always
    assert tie.verdict is Verdict.INCONCLUSIVE
