"""The [P13] rules on planted rows: each verdict comes out where it should, for the right reason."""

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.token_pricing._rules import judge_bound, judge_ic, judge_margin, judge_overcharge, judge_profitable
from support.planted import load_planted

P = load_planted("token_pricing")
BARS = {c.id: c.bar_map for c in registry.get_paper("token_pricing").claims}


def test_overcharge_needs_both_parts_and_three_seeds() -> None:
    bars = BARS["plausible_overcharge"]
    held = judge_overcharge(P.outputs(P.GOOD_OC), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["parts"] == {"plausible_share": "holds",
                                                                       "mean_overcharge": "holds"}
    # often plausible but by a sliver: the share holds, the mean overcharge does not
    thin = judge_overcharge(P.outputs([[0.005, 0.004, 0.006, 0.0]] * 3), bars=bars)
    assert thin.verdict is Verdict.FAILS and thin.measured["parts"]["plausible_share"] == "holds"
    one = judge_overcharge(P.outputs(P.GOOD_OC[:1]), bars=bars)
    assert one.verdict is Verdict.INCONCLUSIVE and "only 1 seeds" in one.reason
    assert judge_overcharge([], bars=bars).verdict is Verdict.INCONCLUSIVE


def test_profit_is_a_timed_ratio() -> None:
    j = judge_profitable(P.costs(P.GOOD_COST), bars=BARS["heuristic_profitable"])
    assert j.verdict is Verdict.HOLDS and "revenue_over_cost" in j.timings and not j.measured
    mixed = judge_profitable(P.costs([[(2.0, 1.0), (0.0, 1.0), (0.1, 1.0)]] * 3), bars=BARS["heuristic_profitable"])
    assert mixed.verdict is Verdict.INCONCLUSIVE and "straddles" in mixed.reason


def test_ic_fails_on_any_deviation_of_any_tokenizer() -> None:
    bars = BARS["char_pricing_ic"]
    assert judge_ic(P.tokenizers(0.0, 1.2), bars=bars).verdict is Verdict.HOLDS
    bad = judge_ic(P.tokenizers(1e-9, 1.2), bars=bars)
    assert bad.verdict is Verdict.FAILS and "b: per-char" in bad.reason
    flat = judge_ic(P.tokenizers(0.0, 1.0), bars=bars)
    assert flat.verdict is Verdict.FAILS and "b: per-token" in flat.reason


def test_margin_band_both_sides() -> None:
    bars = BARS["margin_preserving"]
    assert judge_margin(P.held_out(P.GOOD_REV), bars=bars).verdict is Verdict.HOLDS
    low = judge_margin(P.held_out([[(90.0, 100.0), (91.0, 101.0), (89.0, 99.0)]] * 3), bars=bars)
    assert low.verdict is Verdict.FAILS
    wide = judge_margin(P.held_out([[(100.0, 100.0), (50.0, 101.0), (150.0, 99.0)]] * 3), bars=bars)
    assert wide.verdict is Verdict.INCONCLUSIVE


def test_bound_counts_only_decided_searches() -> None:
    bars = BARS["brute_force_bound"]
    # an unfinished search below the heuristic decides nothing; one already at or above it does
    rows = P.strings([(5, 4)]) + P.strings([(2, 3)], complete=False) + P.strings([(4, 3)], complete=False)
    j = judge_bound(rows, bars=bars)
    assert j.verdict is Verdict.HOLDS and j.reason.startswith("2 of 2 strings")
    none = judge_bound(P.strings([(2, 3)], complete=False), bars=bars)
    assert none.verdict is Verdict.INCONCLUSIVE
    assert judge_bound(P.strings([(3, 4)]), bars=bars).verdict is Verdict.FAILS
