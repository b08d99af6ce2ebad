"""The [P19] rules on planted measurements: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.inc_bpe._rules import growth_ratios, judge_eager, judge_exact, judge_flat, judge_speed
from support.planted import load_planted

P = load_planted("inc_bpe")
BARS = {c.id: c.bar_map for c in registry.get_paper("inc_bpe").claims}


def test_exact_rule_counts_every_mismatch() -> None:
    bars = BARS["exact_vs_tiktoken"]
    held = judge_exact(P.exact_rows(0), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["mismatches"] == 0 and held.measured["prefixes"] == 2332
    one = P.exact_rows(0)
    one[1]["prefix_mismatch"] = 1  # a single prefix of the second encoding
    failed = judge_exact(one, bars=bars)
    assert failed.verdict is Verdict.FAILS and failed.measured["mismatches"] == 1 and "o200k_base" in failed.reason


def test_flat_rule_judges_the_worst_input() -> None:
    bars = BARS["flat_per_byte"]
    rows = P.flat_rows({"a": 1.03, "letters": 1.41})
    assert growth_ratios(rows)[("letters", True, "inc_bpe")] == pytest.approx(1.41)
    held = judge_flat(rows, bars=bars)
    assert held.verdict is Verdict.HOLDS and not held.measured  # wall-clock numbers go to timings only
    assert held.timings["inc_bpe_max_ratio"] == pytest.approx(1.41) and held.timings["tiktoken_max_ratio"] == 4.0
    assert "4 of 4 inputs hold" in held.reason and "tiktoken up to 4" in held.reason
    failed = judge_flat(P.flat_rows({"a": 1.03, "letters": 1.6}), bars=bars)
    assert failed.verdict is Verdict.FAILS and "misses the bar <= 1.5 (ours)" in failed.reason
    assert "'letters'" in failed.reason
    noisy = [dict(r, ns_per_byte=r["ns_per_byte"] * (1.5 if r["rep"] % 2 else 0.7)) for r in rows]
    assert judge_flat(noisy, bars=bars).verdict is Verdict.INCONCLUSIVE  # a CI across the bar decides nothing
    few = [r for r in rows if r["rep"] < 2]
    assert judge_flat(few, bars=bars).verdict is Verdict.INCONCLUSIVE  # two timings per end: no usable CI
    toy = judge_flat(rows, bars=bars, decide=False)
    assert toy.verdict is Verdict.INCONCLUSIVE and "toy sizes" in toy.reason
    with pytest.raises(ValueError, match="no inc_bpe"):
        judge_flat([r for r in rows if r["impl"] != "inc_bpe"], bars=bars)


def test_speed_rule_holds_only_when_every_comparison_meets_the_bar() -> None:
    bars = BARS["speed_vs_hf"]
    assert judge_speed(**P.speed(), bars=bars).verdict is Verdict.HOLDS
    # a fast pipeline (a faster splitter) does not carry a BPE-vs-BPE comparison below the bar
    for slow in ({"words": 2.9}, {"pure": 1.0}, {"pipeline": 2.0}):
        j = judge_speed(**P.speed(**slow), bars=bars)
        assert j.verdict is Verdict.FAILS and f"{next(iter(slow))} speed-up over HF" in j.reason
    differ = judge_speed(**P.speed(differ=("words",)), bars=bars)  # outputs differ: not a drop-in
    assert differ.verdict is Verdict.FAILS and "not a drop-in" in differ.reason
    toy = judge_speed(**P.speed(), bars=bars, decide=False)
    assert toy.verdict is Verdict.INCONCLUSIVE and toy.timings and toy.measured == {"identical": P.SAME}
    with pytest.raises(KeyError):
        judge_speed({"pipeline": 28.0}, P.SAME, bars=bars)  # every comparison must be measured


def test_eager_rule_on_both_bars_and_exactness() -> None:
    bars = BARS["eager_delay"]
    held = judge_eager(56, 5.41, True, bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["max_pending"] == 56
    assert judge_eager(56, 17.0, True, bars=bars).verdict is Verdict.FAILS
    assert judge_eager(513, 5.0, True, bars=bars).verdict is Verdict.FAILS
    wrong = judge_eager(1, 0.5, False, bars=bars)
    assert wrong.verdict is Verdict.FAILS and "differ from the one-shot" in wrong.reason
