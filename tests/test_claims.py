import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from icml26.claims import Budget, Claim, ClaimResult, Verdict, jsonable, run_claim
from icml26.figures import FigureData, new_figure, render


def test_claim_result_json_round_trip():
    fig, ax = new_figure()
    ax.plot([0, 1], [1, 0])
    r = ClaimResult(verdict="fails", reason="because", summary="x = 1", measured={"x": np.float64(1.5), "v": np.arange(3)},
                    timings={"s": 0.1}, rows=[{"a": 1}], figures=[render(fig, name="f", caption="c")], notes="n")
    d = json.loads(json.dumps(r.to_dict()))
    back = ClaimResult.from_dict(d)
    assert back.verdict is Verdict.FAILS
    assert back.measured == {"x": 1.5, "v": [0, 1, 2]}
    assert back.figures[0] == r.figures[0]
    assert back.to_dict() == d


def test_figures_are_deterministic():
    def make():
        fig, ax = new_figure()
        ax.plot([0, 1, 2], [1, 4, 9], label="y")
        ax.legend()
        return render(fig, name="sq")

    a, b = make(), make()
    assert a.svg == b.svg and a.svg.startswith("<?xml")
    assert a.png[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="figure name"):
        FigureData(name="bad name/", caption="", svg="", png=b"")


def test_verdict_values_and_reason_required():
    assert [v.value for v in Verdict] == ["holds", "fails", "inconclusive", "unsupported", "error"]
    with pytest.raises(ValueError, match="reason"):
        ClaimResult(verdict=Verdict.HOLDS, reason="")
    with pytest.raises(ValueError):
        ClaimResult(verdict="maybe", reason="x")


def test_budget_and_claim_validation():
    @dataclass(frozen=True)
    class C:
        n: int = 1

    with pytest.raises(ValueError, match="seeds"):
        Budget(C(), seeds=0)
    with pytest.raises(ValueError, match="lacks budgets"):
        Claim("c", check=lambda c, x: None, budgets={"smoke": Budget(C())})
    with pytest.raises(ValueError, match="unknown budgets"):
        Claim("c", check=lambda c, x: None, budgets={"smoke": Budget(C()), "small": Budget(C()), "huge": Budget(C())})
    with pytest.raises(TypeError, match="must be a Budget"):
        Claim("c", check=lambda c, x: None, budgets={"smoke": C(), "small": Budget(C())})


def test_jsonable_handles_numpy_and_non_finite():
    assert jsonable({"a": np.int64(3), "b": (1, 2), "c": math.nan, "d": np.array([[1.0]])}) == {
        "a": 3, "b": [1, 2], "c": "nan", "d": [[1.0]]}


def test_run_claim_records_result_and_provenance(toy_papers):
    rec = run_claim("alpha", "mean_is_small", budget="smoke", seed=7)
    assert rec["verdict"] == "holds" and rec["error"] is None
    assert rec["seeds"] == [7, 8]  # the smoke budget asks for 2 seeds
    assert rec["config"] == {"n": 1000, "sleep": 0.0}
    assert rec["paper_id"] == "P90" and rec["paper_value"] == "0.5" and rec["source"] == "Abstract"
    prov = rec["provenance"]
    for key in ("versions", "python", "git", "host", "platform", "cpu_count"):
        assert key in prov
    assert prov["versions"]["numpy"] == np.__version__
    assert rec["duration_s"] >= 0 and rec["peak_rss_mb"] > 0
    assert rec["figures"][0]["name"] == "means"
    json.dumps(rec)
    again = run_claim("alpha", "mean_is_small", budget="smoke", seed=7)
    assert again["measured"] == rec["measured"]
    assert run_claim("alpha", "mean_is_small", budget="smoke", seed=7, n_seeds=3)["seeds"] == [7, 8, 9]


def test_run_claim_turns_exceptions_into_error_records(toy_papers):
    rec = run_claim("alpha", "boom", budget="smoke")
    assert rec["verdict"] == "error"
    assert "RuntimeError: kaboom" in rec["reason"]
    assert "Traceback" in rec["error"] and "check_boom" in rec["error"]


def test_run_claim_times_out(toy_papers):
    rec = run_claim("alpha", "hangs", budget="smoke", timeout=0.3)
    assert rec["verdict"] == "error" and rec["timed_out"] is True
    assert rec["duration_s"] < 5
    assert "timed out after 0.3 s" in rec["reason"]


def test_run_claim_unknown_budget(toy_papers):
    with pytest.raises(ValueError, match="budget"):
        run_claim("alpha", "boom", budget="huge")
    rec = run_claim("alpha", "boom", budget="full")  # the check declares only smoke/small: never run, never faked
    assert rec["verdict"] == "unsupported" and "no 'full' budget declared" in rec["reason"]
    assert rec["error"] is None and rec["provenance"] and rec["seeds"] == [0]


def test_a_check_cannot_swallow_its_timeout(toy_papers):
    rec = run_claim("gamma", "swallows", budget="smoke", timeout=0.3)  # the check wraps its sleep in except Exception
    assert rec["verdict"] == "error" and rec["timed_out"]
    assert "timed out after 0.3 s" in rec["reason"] and rec["duration_s"] < 5


def test_a_check_that_catches_the_timeout_itself_is_still_an_error(toy_papers):
    rec = run_claim("gamma", "swallows_all", budget="smoke", timeout=0.3)  # except BaseException, then returns holds
    assert rec["verdict"] == "error" and rec["timed_out"] and "timed out after 0.3 s" in rec["reason"]


def test_timeout_stops_a_local_sweep_at_once(toy_papers):
    from icml26.runner import LocalPoolMapper

    # 8 points of 2 s on 2 workers would take 8 s; the timeout must end the claim (and its pool) at ~1 s
    rec = run_claim("gamma", "slow_map", budget="smoke", timeout=1.0, mapper=LocalPoolMapper(2))
    assert rec["verdict"] == "error" and rec["timed_out"]
    assert rec["duration_s"] < 6
