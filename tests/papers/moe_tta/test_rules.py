"""The [P34] rules on planted episode tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.moe_tta._rules import (
    RULES,
    judge_confident_layers,
    judge_heldout_gain,
    judge_overadapts,
    judge_overhead,
    judge_switch,
)
from support.planted import load_planted

P = load_planted("moe_tta")
BARS = {c.id: c.bar_map for c in registry.get_paper("moe_tta").claims}


def test_every_claim_has_a_rule() -> None:
    assert set(RULES) == set(BARS)


def test_heldout_gain_against_the_three_point_bar() -> None:
    bars = BARS["heldout_gain"]
    held = judge_heldout_gain(**P.heldout(0.10), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["means"]["selected"] == pytest.approx(0.60)
    assert held.measured["episodes"] == 120  # the training-task rows are not judged
    # a real but small gain (1 point, tight CI) misses the 3-point bar: fails, not holds
    small = judge_heldout_gain(**P.heldout(0.01, spread=0.005), bars=bars)
    assert small.verdict is Verdict.FAILS and "misses" in small.reason
    # a CI straddling 0.03
    wide = judge_heldout_gain(**P.heldout(0.03, spread=0.3), bars=bars)
    assert wide.verdict is Verdict.INCONCLUSIVE and "straddles" in wide.reason


def test_too_few_seeds_is_inconclusive_whatever_the_numbers() -> None:
    for rule, planted in ((judge_heldout_gain, P.heldout(0.2, n_seeds=2)), (judge_switch, P.switch(0.2, n_seeds=1)),
                          (judge_confident_layers, P.layers(0.0, n_seeds=2)),
                          (judge_overadapts, P.ttt(-0.3, -0.3, n_seeds=2))):
        j = rule(**planted, bars=BARS[{judge_heldout_gain: "heldout_gain", judge_switch: "switch_readaptation",
                                      judge_confident_layers: "confident_layers",
                                      judge_overadapts: "full_ttt_overadapts"}[rule]])
        assert j.verdict is Verdict.INCONCLUSIVE and "seeds" in j.reason


def test_confident_layers_non_inferiority() -> None:
    bars = BARS["confident_layers"]
    assert judge_confident_layers(**P.layers(0.0), bars=bars).verdict is Verdict.HOLDS
    j = judge_confident_layers(**P.layers(-0.01), bars=bars)  # 1 point worse: within the 2-point margin
    assert j.verdict is Verdict.HOLDS and "non-inferior" in j.reason
    j = judge_confident_layers(**P.layers(-0.08), bars=bars)
    assert j.verdict is Verdict.FAILS and "inferior" in j.reason


def test_confident_layers_needs_a_reference_that_beats_no_adaptation() -> None:
    bars = BARS["confident_layers"]
    # near chance: δ on every layer gains 1 point over no adaptation, less than the 2-point margin, so being within
    # 2 points of it says nothing (no adaptation itself would pass): inconclusive, even for an identical selection
    for diff in (0.0, -0.08):
        j = judge_confident_layers(**P.layers(diff, ref=0.01), bars=bars)
        assert j.verdict is Verdict.INCONCLUSIVE and "not judged" in j.reason
        assert j.measured["held-out accuracy, all layers − none"]["call"] == "fails"
    # a reference gain whose CI straddles the margin is not enough either
    j = judge_confident_layers(**P.layers(0.0, ref=0.022, ref_spread=0.05), bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE
    assert j.measured["held-out accuracy, all layers − none"]["call"] == "inconclusive"
    # a clear reference gain: the non-inferiority verdict stands, with the gate's numbers in the reason
    j = judge_confident_layers(**P.layers(0.0, ref=0.05), bars=bars)
    assert j.verdict is Verdict.HOLDS and "beats no adaptation" in j.reason


def test_the_sensitivity_gate_is_the_margin() -> None:
    import dataclasses

    bars = dict(BARS["confident_layers"])
    bars["sensitivity"] = dataclasses.replace(bars["sensitivity"], value=0.01)
    with pytest.raises(ValueError, match="sensitivity"):
        judge_confident_layers(**P.layers(0.0), bars=bars)


def test_overadaptation_needs_both_parts() -> None:
    bars = BARS["full_ttt_overadapts"]
    both = judge_overadapts(**P.ttt(-0.2, -0.3), bars=bars)
    assert both.verdict is Verdict.HOLDS and both.measured["parts"] == {"accuracy": "holds", "context fit": "holds"}
    helps = judge_overadapts(**P.ttt(0.05, -0.3), bars=bars)  # full TTT answers better: no over-adaptation
    assert helps.verdict is Verdict.FAILS and helps.measured["parts"]["accuracy"] == "fails"
    underfit = judge_overadapts(**P.ttt(-0.2, 0.2), bars=bars)  # worse, but it fitted the prompt less: not over-
    assert underfit.verdict is Verdict.FAILS and underfit.measured["parts"]["context fit"] == "fails"


def test_switch_rule_signs() -> None:
    bars = BARS["switch_readaptation"]
    assert judge_switch(**P.switch(0.1), bars=bars).verdict is Verdict.HOLDS
    assert judge_switch(**P.switch(-0.1), bars=bars).verdict is Verdict.FAILS
    tie = judge_switch(**P.switch(0.0), bars=bars)
    assert tie.verdict is Verdict.INCONCLUSIVE


def test_overhead_is_timed_and_reports_the_plain_ratio() -> None:
    bars = BARS["overhead"]
    j = judge_overhead(**P.overhead(0.6), bars=bars)
    assert j.verdict is Verdict.HOLDS and not j.measured
    assert "s/token, rerouting / plain decoding" in j.timings and "plain greedy decoding" in j.reason
    assert j.timings["s/token, rerouting / plain decoding"]["estimate"] == pytest.approx(6.0, rel=0.1)
    assert judge_overhead(**P.overhead(1.5), bars=bars).verdict is Verdict.FAILS
    few = judge_overhead(rows=P.overhead(0.6)["rows"][:2], bars=bars)
    assert few.verdict is Verdict.INCONCLUSIVE and "repetitions" in few.reason
