"""The [P30] rules on planted rows: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.unisparse._rules import (
    judge_baselines,
    judge_exact,
    judge_mqar,
    judge_perplexity,
    judge_recall,
    judge_speed,
)
from support.planted import load_planted

P = load_planted("unisparse")
BARS = {c.id: c.bar_map for c in registry.get_paper("unisparse").claims}


def test_mqar_rule_needs_a_model_that_solves_the_task() -> None:
    bars = BARS["mqar_accuracy"]
    held = judge_mqar(P.mqar_rows(30, 30), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["unisparse_density"] == 0.25
    unsolved = judge_mqar(P.mqar_rows(10, 10), bars=bars)  # 31 % full accuracy: no ratio is worth judging
    assert unsolved.verdict is Verdict.INCONCLUSIVE and "does not solve" in unsolved.reason
    dense = judge_mqar(P.mqar_rows(30, 30, density=0.5), bars=bars)
    assert dense.verdict is Verdict.FAILS and "density" in dense.reason
    few = judge_mqar(P.mqar_rows(30, 30, seeds=2), bars=bars)
    assert few.verdict is Verdict.INCONCLUSIVE and "only 2" in few.reason


def test_mqar_ratio_is_paired_and_straddles_when_close() -> None:
    j = judge_mqar(P.mqar_rows(30, 29), bars=BARS["mqar_accuracy"])  # ratio 0.967 < 0.99 in every unit
    assert j.verdict is Verdict.FAILS and "0.9667" in j.reason


def test_baselines_rule_is_non_inferiority_per_baseline() -> None:
    bars = BARS["beats_baselines"]
    assert judge_baselines(P.mqar_rows(30, 20, base=20), bars=bars).verdict is Verdict.HOLDS  # a tie is enough
    j = judge_baselines(P.mqar_rows(30, 20, base=28), bars=bars)
    assert j.verdict is Verdict.FAILS and "inferior" in j.reason and j.measured["parts"] == {"vs xattention": "fails"}
    assert judge_baselines(P.mqar_rows(30, 20), bars=bars).verdict is Verdict.INCONCLUSIVE  # no baseline run


def test_perplexity_rule() -> None:
    bars = BARS["lm_perplexity"]
    held = judge_perplexity(P.ppl_rows(0.001), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["ppl_ratio"] == pytest.approx(1.0011, abs=1e-4)
    assert judge_perplexity(P.ppl_rows(0.1), bars=bars).verdict is Verdict.FAILS
    assert judge_perplexity(P.ppl_rows(0.001, n=2), bars=bars).verdict is Verdict.INCONCLUSIVE


def test_recall_rule_and_unreached_densities() -> None:
    bars = BARS["mass_recall"]
    assert judge_recall(P.recall_rows(0.9, 0.8), bars=bars).verdict is Verdict.HOLDS
    assert judge_recall(P.recall_rows(0.7, 0.9), bars=bars).verdict is Verdict.FAILS
    rows = P.recall_rows(0.9, 0.8)
    rows[0]["recall"] = float("nan")  # UniSparse's curve misses density 0.3 in one window
    j = judge_recall(rows, bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and "does not reach" in j.reason


def test_exact_rule() -> None:
    bars = BARS["tau_one_exact"]
    assert judge_exact(P.exact_rows(1e-7), bars=bars).verdict is Verdict.HOLDS
    assert judge_exact(P.exact_rows(1e-7, share=0.9), bars=bars).verdict is Verdict.FAILS
    assert judge_exact(P.exact_rows(1e-2), bars=bars).verdict is Verdict.FAILS


def test_speed_rule_takes_the_best_length_and_keeps_times_out_of_measured() -> None:
    bars = BARS["gpu_speedup"]
    times = {**P.speed(3.0, 1.0)["times"], "8192": P.speed(1.2, 1.0)["times"]["32768"]}
    j = judge_speed(times, bars=bars)
    assert j.verdict is Verdict.HOLDS and "n = 32768" in j.reason and not j.measured
    assert judge_speed(P.speed(1.5, 1.0)["times"], bars=bars).verdict is Verdict.FAILS
    toy = judge_speed(P.speed(3.0, 1.0)["times"], bars=bars, decide=False)
    assert toy.verdict is Verdict.INCONCLUSIVE and "toy size" in toy.reason
