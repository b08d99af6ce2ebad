"""The [P20] rules on planted run tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.chess_reasoning._rules import (
    RULES,
    judge_comparable,
    judge_faithful,
    judge_hallucination,
    judge_quality,
    judge_stability,
    judge_strength,
)
from support.planted import load_planted

P = load_planted("chess_reasoning")
BARS = {c.id: c.bar_map for c in registry.get_paper("chess_reasoning").claims}


def test_every_claim_has_a_rule_and_planted_rows() -> None:
    assert set(RULES) == set(BARS) == set(P.PLANTED)


def test_quality_must_rise_in_both_arms() -> None:
    up = {"sft_quality": [0.3, 0.3, 0.3], "rl_quality": [0.5, 0.6, 0.4]}
    flat = {"sft_quality": [0.3, 0.3, 0.3], "rl_quality": [0.4, 0.2, 0.35]}
    held = judge_quality(P.both(up, up)["rows"], bars=BARS["rl_raises_quality"])
    assert held.verdict is Verdict.HOLDS
    d = held.measured["bestmove"]["best-move: quality after RL - at SFT"]
    assert d["estimate"] == pytest.approx(0.2) and d["n"] == 3
    mixed = judge_quality(P.both(up, flat)["rows"], bars=BARS["rl_raises_quality"])
    assert mixed.verdict is Verdict.INCONCLUSIVE and mixed.measured["parts"] == {"bestmove": "holds",
                                                                                 "bestline": "inconclusive"}


def test_two_seeds_are_too_few() -> None:
    two = {"sft_quality": [0.1, 0.1], "rl_quality": [0.9, 0.9]}
    j = judge_quality(P.both(two, two)["rows"], bars=BARS["rl_raises_quality"])
    assert j.verdict is Verdict.INCONCLUSIVE and "only 2 paired seeds" in j.reason


def test_nothing_to_lower_is_inconclusive() -> None:
    zero = {"sft_any_illegal": [0.0, 0.0, 0.0], "rl_any_illegal": [0.0, 0.0, 0.0]}
    down = {"sft_any_illegal": [0.4, 0.3, 0.5], "rl_any_illegal": [0.1, 0.1, 0.1]}
    j = judge_hallucination(P.both(zero, down)["rows"], bars=BARS["rl_reduces_hallucination"])
    assert j.verdict is Verdict.INCONCLUSIVE and "nothing for RL to lower" in j.reason
    assert judge_hallucination(P.both(down, down)["rows"], bars=BARS["rl_reduces_hallucination"]).verdict \
        is Verdict.HOLDS


def test_faithfulness_needs_level_and_gap() -> None:
    bars = BARS["bestline_faithful"]
    bm = {"rl_faithful": [0.6, 0.6, 0.6]}
    high = {"rl_faithful": [0.85, 0.85, 0.85]}  # level met, gap 0.25 < 0.3: fails on the gap
    j = judge_faithful(P.both(bm, high)["rows"], bars=bars)
    assert j.verdict is Verdict.FAILS and j.measured["parts"] == {"level": "holds", "gap": "fails"}
    bm_low = {"rl_faithful": [0.1, 0.1, 0.1]}
    assert judge_faithful(P.both(bm_low, high)["rows"], bars=bars).verdict is Verdict.HOLDS
    e = judge_faithful(P.both(bm_low, high)["rows"], bars=bars).measured["gap"]
    assert e["faithfulness best-line - best-move after RL"]["estimate"] == pytest.approx(0.75)


def test_comparable_quality_is_a_two_sided_window() -> None:
    bars = BARS["comparable_quality"]
    floor = {"random_quality": [0.4, 0.4, 0.4]}
    bm = {"rl_quality": [0.5, 0.5, 0.5], **floor}
    above = {"rl_quality": [0.7, 0.7, 0.7], **floor}  # best-line far ahead: not "comparable" either
    j = judge_comparable(P.both(bm, above)["rows"], bars=bars)
    assert j.verdict is Verdict.FAILS and j.measured["parts"] == {"low": "holds", "high": "fails"}
    near = {"rl_quality": [0.44, 0.56, 0.5], **floor}  # CI [-0.06, 0.06]: straddles both edges
    assert judge_comparable(P.both(bm, near)["rows"], bars=bars).verdict is Verdict.INCONCLUSIVE
    low = {"rl_quality": [0.38, 0.35, 0.30], **floor}  # best-move under the floor, best-line above: still judged
    assert judge_comparable(P.both(low, above)["rows"], bars=bars).verdict is Verdict.FAILS


def test_comparable_at_the_floor_is_inconclusive() -> None:
    """Two arms that both play below a random legal move sit within 0.05 of each other without playing: the
    window would hold (and a gap would fail), the floor guard makes both inconclusive."""
    bars = BARS["comparable_quality"]
    floor = {"random_quality": [0.47, 0.47, 0.47]}
    bm = {"rl_quality": [0.06, 0.07, 0.08], **floor}
    bl = {"rl_quality": [0.08, 0.09, 0.10], **floor}
    j = judge_comparable(P.both(bm, bl)["rows"], bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "neither arm plays above a random legal move" in j.reason
    assert "the window alone: holds" in j.reason
    assert j.measured["window"]["parts"] == {"low": "holds", "high": "holds"}
    far = {"rl_quality": [0.30, 0.32, 0.31], **floor}
    j = judge_comparable(P.both(bm, far)["rows"], bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "the window alone: fails" in j.reason
    ok = {"random_quality": [0.05, 0.05, 0.05]}  # the same qualities above a lower floor: judged by the window
    assert judge_comparable(P.both({**bm, **ok}, {**bl, **ok})["rows"], bars=bars).verdict is Verdict.HOLDS


def test_stability_ratio_and_strength() -> None:
    bm = {"reward_jitter": [0.04, 0.04, 0.04]}
    bl = {"reward_jitter": [0.02, 0.02, 0.02]}
    j = judge_stability(P.both(bm, bl)["rows"], bars=BARS["bestline_stabler_rl"])
    assert j.verdict is Verdict.HOLDS
    assert j.measured["reward jitter best-line / best-move"]["estimate"] == pytest.approx(0.5)
    flat = {"reward_jitter": [0.0, 0.0, 0.0]}
    assert judge_stability(P.both(flat, bl)["rows"], bars=BARS["bestline_stabler_rl"]).verdict \
        is Verdict.INCONCLUSIVE
    own = {"vs_random_replaced": [0.1, 0.1, 0.1]}
    even = {"vs_random_score": [0.5, 0.5, 0.5], **own}  # an even score is not "beats"
    win = {"vs_random_score": [0.8, 0.9, 0.7], **own}
    s = judge_strength(P.both(win, even)["rows"], bars=BARS["beats_random"])
    assert s.verdict is Verdict.FAILS and s.measured["parts"] == {"bestmove": "holds", "bestline": "fails"}


def test_a_score_made_by_replaced_moves_cannot_hold() -> None:
    """With most of its moves replaced by random legal ones, a winning score is the fallback's, not the policy's."""
    bars = BARS["beats_random"]
    win = {"vs_random_score": [0.8, 0.9, 0.7]}
    mostly_random = {**win, "vs_random_replaced": [0.93, 0.92, 0.94]}
    j = judge_strength(P.both(mostly_random, mostly_random)["rows"], bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "random fallback" in j.reason
    own = {**win, "vs_random_replaced": [0.1, 0.2, 0.3]}
    assert judge_strength(P.both(own, own)["rows"], bars=bars).verdict is Verdict.HOLDS
    lose = {"vs_random_score": [0.1, 0.2, 0.1], "vs_random_replaced": [0.93, 0.92, 0.94]}
    assert judge_strength(P.both(lose, lose)["rows"], bars=bars).verdict is Verdict.FAILS
