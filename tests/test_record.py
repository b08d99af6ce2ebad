"""RunRecord: JSON round trip, old (icml26.run/1) records still load, one current record per claim."""

import json

import pytest

from icml26.harness import run_claim
from icml26.record import SCHEMA, RunRecord, latest
from icml26.store import ResultStore

V1 = {  # a record as icml26.run/1 wrote it (session 3)
    "schema": "icml26.run/1", "run_id": "abc", "paper": "alpha", "paper_id": "P90", "claim": "always_wrong",
    "claim_text": "two plus two is five", "source": "Thm. 1", "paper_value": "5", "budget": "smoke",
    "started_at": "2026-11-29T10:00:00+00:00", "seeds": [0], "config": {"n": 100}, "verdict": "fails",
    "reason": "2 + 2 = 4, not 5", "summary": "4", "measured": {"value": 4}, "timings": {}, "rows": [], "figures": [],
    "notes": "", "error": None, "duration_s": 0.01, "cpu_s": 0.01, "finished_at": "2026-11-29T10:00:00+00:00",
    "provenance": {"git": {"commit": "f5c7002", "dirty": False}}, "peak_rss_mb": 80.0,
}


def test_round_trip(toy_papers):
    rec = run_claim("delta", "rebuilt_fails")
    back = RunRecord.from_json(json.loads(json.dumps(rec.to_json())))
    assert back == rec and back.schema == SCHEMA


def test_old_records_load(tmp_path):
    rec = RunRecord.from_json(V1)
    assert rec.verdict == rec.bar_verdict == "fails" and rec.basis is None and rec.label == "fails"
    assert rec.seeds == (0,) and rec.commit == "f5c7002"
    (tmp_path / "results.jsonl").write_text(json.dumps(V1) + "\n")
    assert ResultStore(tmp_path).read()[0].claim == "always_wrong"


def test_bad_records_are_refused():
    for bad, match in (({**V1, "schema": "icml26.run/9"}, "schema"), ({**V1, "verdict": "maybe"}, "maybe"),
                       ({k: v for k, v in V1.items() if k != "claim"}, "claim"), ({**V1, "budget": "huge"}, "budget")):
        with pytest.raises(ValueError, match=match):
            RunRecord.from_json(bad)
    with pytest.raises(TypeError):
        RunRecord.from_json([V1])


def _r(claim, budget, verdict, config=None, **kw):
    return RunRecord(paper="p", claim=claim, budget=budget, verdict=verdict, reason="r", config=config, **kw)


def test_latest_is_the_largest_budget_then_the_last_run():
    recs = [_r("a", "small", "holds", {}), _r("a", "smoke", "fails", {}), _r("b", "smoke", "holds", {}),
            _r("b", "smoke", "fails", {}), _r("a", "full", "unsupported")]  # full: no such budget declared
    cur = latest(recs)
    assert cur[("p", "a")].verdict == "holds" and cur[("p", "b")].verdict == "fails"
    assert latest(recs, budget="smoke")[("p", "a")].verdict == "fails"
    assert latest(recs, budget="full")[("p", "a")].verdict == "unsupported"
    platform = [_r("c", "small", "unsupported", {}), _r("c", "smoke", "holds", {})]  # a real unsupported at small
    assert latest(platform)[("p", "c")].verdict == "unsupported"
