"""The [P32] rules on planted measurements: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.diff_smoothing._rules import judge_collapse, judge_countdown, judge_signs, judge_theorem
from support.planted import load_planted

P = load_planted("diff_smoothing")
BARS = {c.id: c.bar_map for c in registry.get_paper("diff_smoothing").claims}


@pytest.mark.parametrize(("distinct", "passk", "want"), [
    ([1.3, 1.4, 1.35], [0.71, 0.72, 0.70], Verdict.HOLDS),
    ([2.5, 2.6, 2.4], [0.71, 0.72, 0.70], Verdict.FAILS),  # more distinct answers: no collapse
    ([1.3, 1.4, 1.35], [0.90, 0.91, 0.92], Verdict.FAILS),  # fewer distinct answers but pass@16 rises
    ([1.3, 1.4, 1.35], [0.80, 0.86, 0.84], Verdict.INCONCLUSIVE),  # pass@16 change straddles 0
    ([1.3, 1.4, 1.35], [0.83, 0.84, 0.82], Verdict.FAILS),  # pass@16 unchanged: no loss of coverage at all
])
def test_collapse_rule(distinct, passk, want):
    j = judge_collapse(**P.collapse(distinct, passk), bars=BARS["vanilla_collapse"])
    assert j.verdict is want, j.reason


def test_collapse_needs_three_seeds():
    two = P.collapse([1.3, 1.4], [0.71, 0.72])
    two["base"] = {k: v[:2] for k, v in two["base"].items()}
    j = judge_collapse(**two, bars=BARS["vanilla_collapse"])
    assert j.verdict is Verdict.INCONCLUSIVE and "only 2" in j.reason


def test_theorem_rule_fails_on_one_counterexample_in_the_regime():
    bars = BARS["ds_improves_both"]
    held = judge_theorem(**P.theorem_grid(), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["cells_in_regime"] == 600
    beyond = next(r for r in held.measured["by_gamma_over_beta"] if r["gamma_over_beta"] == 2.0)
    assert beyond["losses_by_metric"]["entropy_correct"] == 67  # counted beyond the regime, never judged
    one = judge_theorem(**P.theorem_grid(counterexamples=1), bars=bars)
    assert one.verdict is Verdict.FAILS and "γ/β = 0.8: 1 of 200" in one.reason
    assert one.measured["worst_diff_in_regime"]["entropy_correct"] == pytest.approx(-0.004)


def test_theorem_rule_needs_the_improvement_itself():
    bars = BARS["ds_improves_both"]
    grid = P.theorem_grid()["grid"]
    flat = [{**row, "entropy_correct": [0.0] * len(row["entropy_correct"])} for row in grid]  # DS changes nothing
    j = judge_theorem(flat, bars=bars)
    assert j.verdict is Verdict.FAILS and j.measured["parts"] == {"no counterexample": "holds",
                                                                  "improvement seen": "fails"}
    rounding = [{**row, "pass@1": [-1e-14] * len(row["pass@1"])} for row in grid]  # float ties, not losses
    assert judge_theorem(rounding, bars=bars).measured["parts"]["no counterexample"] == "holds"
    outside_only = [row for row in grid if row["gamma_over_beta"] >= 1.0]
    assert judge_theorem(outside_only, bars=bars).verdict is Verdict.INCONCLUSIVE
    with pytest.raises(ValueError, match="common length"):
        judge_theorem([{**grid[0], "pass@1": [0.1]}], bars=bars)


def test_signs_rule():
    bars = BARS["entropy_heuristics"]
    held = judge_signs(**P.signs([0.45, 0.47, 0.43, 0.46]), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("10 of 10 predicted signs hold")
    wrong = judge_signs(**P.signs([0.30, 0.32, 0.28, 0.31]), bars=bars)
    assert wrong.verdict is Verdict.FAILS and "entropy_bonus − vanilla entropy_correct (+)" in wrong.reason
    open_ = judge_signs(**P.signs([0.38, 0.45, 0.36, 0.44]), bars=bars)  # bonus entropy change straddles 0
    assert open_.verdict is Verdict.INCONCLUSIVE
    preds = held.measured["predictions"]
    assert len(preds) == 10 and {p["predicted_sign"] for p in preds} == {1, -1}


def test_countdown_rule():
    bars = BARS["countdown_ds"]
    assert judge_countdown(**P.countdown([0.75, 0.76, 0.74]), bars=bars).verdict is Verdict.HOLDS
    assert judge_countdown(**P.countdown([0.65, 0.66, 0.64]), bars=bars).verdict is Verdict.FAILS
    assert judge_countdown(**P.countdown([0.60, 0.76, 0.80]), bars=bars).verdict is Verdict.INCONCLUSIVE
