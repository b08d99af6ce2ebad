"""The [P05] rules on planted measurements: each verdict comes out where it should, for the right reason."""

import math

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.macko._rules import (
    judge_e2e_memory,
    judge_e2e_speed,
    judge_memory,
    judge_spmv_speed,
    median_ratio,
)
from support.planted import load_planted

P = load_planted("macko")
BARS = {c.id: c.bar_map for c in registry.get_paper("macko").claims}


def test_memory_rule_on_both_bars() -> None:
    bars = BARS["memory_reduction"]
    held = judge_memory(0.6256, 0.800, bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("2 of 2 bars hold")
    assert held.measured["reduction_at_50"] == pytest.approx(1 / 0.6256)
    assert judge_memory(0.631, 0.80, bars=bars).verdict is Verdict.FAILS  # just above 0.63
    late = judge_memory(0.62, 0.74, bars=bars)  # breaks even too early
    assert late.verdict is Verdict.FAILS and "break-even" in late.reason
    assert judge_memory(0.62, math.nan, bars=bars).verdict is Verdict.INCONCLUSIVE  # never crosses in the grid


def test_spmv_rule_against_the_paper_low_end() -> None:
    bars = BARS["spmv_speedup_50"]
    held = judge_spmv_speed(**P.speed(1.5, 1.0), bars=bars)
    assert held.verdict is Verdict.HOLDS and not held.measured  # wall-clock numbers go to timings only
    (rec,) = held.timings.values()
    assert rec["estimate"] == pytest.approx(1.5, rel=0.02) and rec["bar"] == ">= 1.2"
    failed = judge_spmv_speed(**P.speed(0.97, 1.0), bars=bars)
    assert failed.verdict is Verdict.FAILS and "misses the bar >= 1.2 (paper)" in failed.reason
    # level with the bar: per-round ratios on both sides of 1.2, so the CI of the median straddles it
    mixed = {"dense_s": [1.1, 1.3, 1.15, 1.25, 1.2, 1.1, 1.3], "macko_s": [1.0] * 7, "baseline": "dense fp16"}
    assert judge_spmv_speed(**mixed, bars=bars).verdict is Verdict.INCONCLUSIVE
    few = judge_spmv_speed(**P.speed(1.5, 1.0, 2), bars=bars)
    assert few.verdict is Verdict.INCONCLUSIVE and "only 2" in few.reason
    toy = judge_spmv_speed(**P.speed(1.5, 1.0), bars=bars, decide=False)
    assert toy.verdict is Verdict.INCONCLUSIVE and "cache-resident" in toy.reason and toy.timings


def test_median_ratio_is_robust_to_one_slow_round() -> None:
    num = [2.0] * 11
    num[3] = 500.0  # one round disturbed by another process: a ratio of means would say ~47x
    est = median_ratio(num, [1.0] * 11)
    assert est.value == 2.0 and est.lo <= 2.0 <= est.hi
    with pytest.raises(ValueError, match="num and den"):
        median_ratio([1.0, 2.0], [1.0])


def test_e2e_memory_rule() -> None:
    bars = BARS["e2e_memory"]
    held = judge_e2e_memory(201_300_000, 126_100_000, bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["memory_reduction"] == pytest.approx(1.596, abs=1e-3)
    assert "201.3 -> 126.1 MB" in held.reason
    assert judge_e2e_memory(200, 140, bars=bars).verdict is Verdict.FAILS  # 1.43x


def test_e2e_speed_rule_needs_the_right_tokens_and_streaming_weights() -> None:
    bars = BARS["e2e_speed"]
    assert judge_e2e_speed(**P.e2e(2.0, 1.0), bars=bars).verdict is Verdict.HOLDS
    assert judge_e2e_speed(**P.e2e(1.0, 1.0), bars=bars).verdict is Verdict.FAILS
    wrong = judge_e2e_speed(**P.e2e(2.0, 1.0, agreement=0.75), bars=bars)  # fast, but other tokens
    assert wrong.verdict is Verdict.FAILS and "not the pruned model" in wrong.reason
    assert judge_e2e_speed(**P.e2e(2.0, 1.0, agreement=0.9), bars=bars).verdict is Verdict.HOLDS
    cached = judge_e2e_speed(**P.e2e(2.0, 1.0, weight_bytes=10 << 20), bars=bars)
    assert cached.verdict is Verdict.INCONCLUSIVE and cached.measured["weights_stream_from_memory"] is False
    toy = judge_e2e_speed(**P.e2e(2.0, 1.0), bars=bars, decide=False)
    assert toy.verdict is Verdict.INCONCLUSIVE and "not decided" in toy.reason


def test_measured_does_not_depend_on_wall_clock() -> None:
    bars = BARS["e2e_speed"]
    a, b = judge_e2e_speed(**P.e2e(2.0, 1.0), bars=bars), judge_e2e_speed(**P.e2e(1.0, 2.0), bars=bars)
    assert a.verdict != b.verdict and a.timings != b.timings
    assert a.measured == b.measured
