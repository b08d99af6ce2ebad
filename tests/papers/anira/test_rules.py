"""The [P23] rules on planted rows: each verdict where it should be, for the right reason."""

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.anira._rules import judge_alignment, judge_extrapolation, judge_timing
from support.planted import load_planted

P = load_planted("anira")
BARS = {c.id: c.bar_map for c in registry.get_paper("anira").claims}


def test_planted_rows_both_ways():
    rules = {"depth_tracks_difficulty": judge_alignment, "no_length_extrapolation": judge_extrapolation,
             "decision_timing": judge_timing}
    for cid, rule in rules.items():
        p = P.PLANTED[cid]
        assert rule(**p.holds, bars=BARS[cid]).verdict is Verdict.HOLDS
        assert rule(**p.fails, bars=BARS[cid]).verdict is Verdict.FAILS


def test_alignment_needs_every_variant_and_three_seeds():
    bars = BARS["depth_tracks_difficulty"]
    j = judge_alignment(P.rows({"rho": {"anira_e": [0.05, 0.1, 0.0], "*": [0.5, 0.6, 0.55]}}), bars=bars)
    assert j.verdict is Verdict.FAILS and "2 of 3 (task, method) pairs hold" in j.reason and "anira_e" in j.reason
    straddle = judge_alignment(P.rows({"rho": [0.2, 0.4, 0.5]}), bars=bars)
    assert straddle.verdict is Verdict.INCONCLUSIVE and "straddles" in straddle.reason
    one = judge_alignment(P.rows({"rho": [0.9]}, seeds=1), bars=bars)
    assert one.verdict is Verdict.INCONCLUSIVE and "only 1" in one.reason
    baselines_only = judge_alignment(P.rows({"rho": [0.9]}, methods=("fixed", "mod")), bars=bars)
    assert baselines_only.verdict is Verdict.INCONCLUSIVE and "no rows" in baselines_only.reason
    # a baseline beside the judged variants does not enter the verdict
    mixed = P.rows({"rho": [0.5, 0.6, 0.55]}) + P.rows({"rho": [0.0]}, methods=("fixed",))
    assert judge_alignment(mixed, bars=bars).verdict is Verdict.HOLDS


def test_extrapolation_is_not_judged_on_a_task_not_learned():
    bars = BARS["no_length_extrapolation"]
    j = judge_extrapolation(P.extrapolation([0.5, 0.6, 0.55], [0.1, 0.1, 0.1], [3.0] * 3, [4.0] * 3), bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "not learned in distribution" in j.reason
    less = judge_extrapolation(P.extrapolation([0.95] * 3, [0.3] * 3, [3.0, 3.1, 3.2], [2.0, 2.1, 2.2]), bars=bars)
    assert less.verdict is Verdict.FAILS and "OOD - ID mean depth" in less.reason  # fewer iterations on longer inputs
    drop = judge_extrapolation(P.extrapolation([0.95] * 3, [0.9] * 3, [3.0] * 3, [4.0] * 3), bars=bars)
    assert drop.verdict is Verdict.FAILS and "ID - OOD accuracy" in drop.reason
    measured = judge_extrapolation(**P.PLANTED["no_length_extrapolation"].holds, bars=bars).measured
    assert measured["parts"] == {"pointer anira_e": "holds", "pointer anira_o_act": "holds",
                                 "pointer anira_o_ponder": "holds"}


def test_timing_pairs_by_seed_and_needs_both_directions():
    bars = BARS["decision_timing"]
    only_state = judge_timing(P.timing([0.3] * 3, [0.3] * 3, [0.3] * 3, [0.8] * 3), bars=bars)
    assert only_state.verdict is Verdict.FAILS  # no static gap: R2_static(E) - R2_static(O) = 0 is not > 0
    assert "static" in only_state.reason and "2 of 4 comparisons hold" in only_state.reason
    no_online = judge_timing([r for r in P.timing([0.5] * 3, [0.3] * 3, [0.2] * 3, [0.8] * 3)
                              if r["method"] == "anira_e"], bars=bars)
    assert no_online.verdict is Verdict.INCONCLUSIVE and "no rows" in no_online.reason
    # pairing: seeds present for one side only are left out
    rows = [r for r in P.timing([0.5] * 3, [0.3] * 3, [0.2] * 3, [0.8] * 3) if not (r["seed"] == 2
                                                                                  and r["method"] != "anira_e")]
    j = judge_timing(rows, bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "only 2" in j.reason
    # rows of a task without the R^2 features (pointer chasing) are left out, not a KeyError
    mixed = P.timing([0.5] * 3, [0.3] * 3, [0.2] * 3, [0.8] * 3) + P.rows({"rho": [0.5]})
    assert judge_timing(mixed, bars=bars).verdict is Verdict.HOLDS
