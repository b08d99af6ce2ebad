"""The [P08] rules on planted rows: each verdict comes out where it should, for the right reason."""

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.emvc_purify._rules import (
    RULES,
    judge_baselines,
    judge_detection,
    judge_feb,
    judge_gain,
    judge_no_harm,
)
from support.planted import load_planted

P = load_planted("emvc_purify")
BARS = {c.id: c.bar_map for c in registry.get_paper("emvc_purify").claims}


def test_every_claim_has_a_rule() -> None:
    assert set(RULES) == set(BARS)


def test_detection_judges_boundary_cells_only_and_needs_three_seeds() -> None:
    bars = BARS["detection_f1"]
    rows = P.detect_rows({("digits", 0.2): 0.6}) + P.detect_rows({("digits", 0.2): 0.05}, kind="symmetric")
    j = judge_detection(rows, bars=bars)
    assert j.verdict is Verdict.HOLDS and list(j.measured["parts"]) == ["digits r=0.2"]
    near = judge_detection(P.detect_rows({("digits", 0.4): 0.40}, jitter=0.05), bars=bars)  # CI straddles the base rate
    assert near.verdict is Verdict.INCONCLUSIVE and "straddles" in near.reason
    two = judge_detection(P.detect_rows({("digits", 0.2): 0.9}, seeds=2), bars=bars)
    assert two.verdict is Verdict.INCONCLUSIVE and "only 2" in two.reason
    assert judge_detection(P.detect_rows({("digits", 0.2): 0.9}, kind="symmetric"), bars=bars).verdict \
        is Verdict.INCONCLUSIVE


def test_detection_reports_every_cell() -> None:
    j = judge_detection(P.PLANTED["detection_f1"].fails["rows"], bars=BARS["detection_f1"])
    assert j.verdict is Verdict.FAILS and j.measured["parts"]["digits r=0.4"] == "fails"
    assert "3 of 4 boundary-noise cells hold" in j.reason


def test_feb_gain_and_no_harm() -> None:
    assert judge_feb(P.feb_rows({0.4: (0.2, 0.2)}), bars=BARS["feb_kendall"]).verdict is not Verdict.HOLDS
    g = judge_gain(P.gain_rows({0.2: (0.8, 0.9), 0.4: (0.70, 0.71)}), bars=BARS["accuracy_gain"], rate=0.4)
    assert g.verdict is Verdict.FAILS  # the 20% rows are not what is judged
    assert judge_gain(P.gain_rows({0.2: (0.8, 0.9)}), bars=BARS["accuracy_gain"], rate=0.4).verdict \
        is Verdict.INCONCLUSIVE
    slight = judge_no_harm(P.no_harm_rows({"digits": (0.97, 0.963)}), bars=BARS["no_harm_clean"])
    assert slight.verdict is Verdict.HOLDS  # 0.7 points below, within the 1-point margin
    worse = judge_no_harm(P.no_harm_rows({"digits": (0.97, 0.955)}), bars=BARS["no_harm_clean"])
    assert worse.verdict is Verdict.FAILS and "inferior" in worse.reason


def test_baselines_cells_are_per_baseline() -> None:
    j = judge_baselines(P.baseline_rows({("digits", 0.4): (0.90, 0.85, 0.95)}), bars=BARS["beats_baselines"])
    assert j.verdict is Verdict.FAILS
    assert j.measured["parts"] == {"digits r=0.4 vs small_loss": "holds", "digits r=0.4 vs confident_learning": "fails"}
    tie = judge_baselines(P.baseline_rows({("digits", 0.4): (0.90, 0.90, 0.80)}), bars=BARS["beats_baselines"])
    assert tie.verdict is Verdict.INCONCLUSIVE
