"""[P38] rules on planted rows: each way, the oracle gate, the seed floor, exceptions counted against the harness."""

import importlib.util
from pathlib import Path

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.mcp_persona._rules import judge_gap, judge_harness, rates

_spec = importlib.util.spec_from_file_location("planted_mcp_persona", Path(__file__).with_name("planted.py"))
planted = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(planted)
BARS = {c.id: c.bar_map for c in registry.get_paper("mcp_persona").claims}


def test_gap_holds_and_fails_as_planted():
    assert judge_gap(**planted.gap("blind", 0.125, 1.0), bars=BARS["blind_gap"]).verdict is Verdict.HOLDS
    assert judge_gap(**planted.gap("blind", 0.75, 0.75), bars=BARS["blind_gap"]).verdict is Verdict.FAILS


def test_gap_needs_three_seeds_and_a_perfect_oracle():
    few = planted.gap("llm", 0.0, 0.5, seeds=2)
    assert judge_gap(**few, bars=BARS["llm_gap"]).verdict is Verdict.INCONCLUSIVE
    rows = planted.episodes("oracle", 0.9, 1.0) + planted.episodes("llm", 0.0, 0.5)
    j = judge_gap(rows, bars=BARS["llm_gap"], agent="llm")
    assert j.verdict is Verdict.INCONCLUSIVE and "oracle failed" in j.reason


def test_an_agent_that_solves_no_task_leaves_the_gap_unmeasured():
    j = judge_gap(**planted.gap("llm", 0.0, 0.0), bars=BARS["llm_gap"])
    assert j.verdict is Verdict.INCONCLUSIVE and "cannot use the tools" in j.reason
    one = planted.gap("llm", 0.0, 0.125)  # a single success is enough to judge
    assert "cannot use the tools" not in judge_gap(**one, bars=BARS["llm_gap"]).reason


def test_gap_fails_when_fuzzified_tasks_are_easier():
    j = judge_gap(**planted.gap("llm", 0.25, 0.0), bars=BARS["llm_gap"])
    assert j.verdict is Verdict.FAILS


def test_harness_counts_exceptions_and_dirty_probes():
    ok = planted.episodes("oracle", 1.0, 1.0)
    assert judge_harness(ok + planted.probes(), bars=BARS["harness_oracle"]).verdict is Verdict.HOLDS
    assert judge_harness(ok + planted.probes(clean=False), bars=BARS["harness_oracle"]).verdict is Verdict.FAILS
    assert judge_harness(ok + planted.probes(exceptions=1), bars=BARS["harness_oracle"]).verdict is Verdict.FAILS
    assert judge_harness(ok, bars=BARS["harness_oracle"]).verdict is Verdict.INCONCLUSIVE


def test_rates_per_variant():
    r = rates(planted.episodes("blind", 0.25, 1.0, seeds=1, pairs=4), "blind")
    assert r["fuzzy"]["success"] == 0.25 and r["explicit"]["success"] == 1.0
    assert r["fuzzy"]["valid_call_rate"] == (3 + 3 * 1) / 12
