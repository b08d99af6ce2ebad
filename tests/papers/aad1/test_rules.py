"""[P24] rules on planted tables: each verdict for the right reason."""

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.aad1._rules import DIVERGED_LOG_RATIO, judge_collapse, judge_motion, judge_speed, judge_stability
from support.planted import load_planted

P = load_planted("aad1")
BARS = {c.id: c.bar_map for c in registry.get_paper("aad1").claims}


def test_motion_needs_every_bar() -> None:
    bars = BARS["motion_kept"]
    blurry = P.arm_rows(aad={"displacement_ratio": 1.0, "frame_error": 0.3})
    j = judge_motion(blurry["rows"], bars=bars)
    assert j.verdict is Verdict.FAILS and "frame error" in j.reason
    static = P.arm_rows(aad={"static_rate": [0.5, 0.6, 0.55]})
    assert judge_motion(static["rows"], bars=bars).verdict is Verdict.FAILS
    one = P.motion([1.0], n_seeds=1)
    assert judge_motion(one["rows"], bars=bars).verdict is Verdict.INCONCLUSIVE


def test_divergence_counts_as_instability() -> None:
    rows = P.stability([0.01, 0.01, 0.01])["rows"]
    for r in rows:
        if r["arm"] == "adv_only":
            r["diverged"] = True
    j = judge_stability(rows, bars=BARS["warmup_stability"])
    assert j.verdict is Verdict.HOLDS and j.measured["log_ratios"] == [DIVERGED_LOG_RATIO] * 3


def test_speed_is_timed_and_paired() -> None:
    j = judge_speed(P.speed(30.0)["rows"], bars=BARS["one_step_speed"])
    assert j.verdict is Verdict.HOLDS and j.timings and not j.measured
    assert judge_speed(P.speed(10.5, reps=2)["rows"], bars=BARS["one_step_speed"]).verdict is Verdict.INCONCLUSIVE


def test_stability_is_not_decided_on_frames_without_sprites() -> None:
    rows = P.stability([0.2, 0.3, 0.25])["rows"]
    bars = BARS["warmup_stability"]
    assert judge_stability(rows, bars=bars).verdict is Verdict.HOLDS
    for r in rows:
        if r["arm"] == "adv_only" and r["seed"] == 1:
            r["frame_error"] = 0.4  # a no-warm-up run that never learned to draw sprites
    j = judge_stability(rows, bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "adv_only seed 1" in j.reason
    assert j.measured["runs_without_sprites"] == 1
    low = P.stability([0.01, 0.02, 0.015])["rows"]
    for r in low:
        if r["arm"] == "aad":
            r["frame_error"] = 0.2
    assert judge_stability(low, bars=bars).verdict is Verdict.INCONCLUSIVE  # the gate binds both arms


def test_collapse_to_blank_frames_is_not_a_static_video() -> None:
    bars = BARS["causal_collapse"]
    rows = P.collapse([0.3, 0.35, 0.4])["rows"]
    assert judge_collapse(rows, bars=bars).verdict is Verdict.HOLDS
    for r in rows:
        if r["arm"] == "causal":
            r["frame_error"] = 0.53  # blank frames: the centroid does not move, but nothing is drawn
    j = judge_collapse(rows, bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "causal seed 0" in j.reason and j.measured["runs_without_sprites"] == 3
