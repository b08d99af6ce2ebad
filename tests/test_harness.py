"""run_claim: seeding, records, errors, timeouts, bases, the GPU platform rule, timed claims under contention."""

import json
import multiprocessing
import os

import numpy as np
import pytest

from icml26.harness import gpu_name, run_claim
from icml26.record import RunRecord


def test_run_claim_records_result_and_provenance(toy_papers):
    rec = run_claim("alpha", "mean_is_small", budget="smoke", seed=7)
    assert isinstance(rec, RunRecord)
    assert rec.verdict == "holds" and rec.error is None and rec.basis == "paper" and rec.bar_verdict == "holds"
    assert rec.seeds == (7, 8)  # the smoke budget asks for 2 seeds
    assert rec.config == {"n": 1000, "sleep": 0.0}
    assert rec.paper_id == "P90" and rec.paper_value == "0.5" and rec.source == "Abstract"
    for key in ("versions", "python", "git", "host", "platform", "cpu_count"):
        assert key in rec.provenance
    assert rec.provenance["versions"]["numpy"] == np.__version__
    assert rec.duration_s >= 0 and rec.peak_rss_mb > 0
    assert rec.figures[0]["name"] == "means"
    json.dumps(rec.to_json())
    again = run_claim("alpha", "mean_is_small", budget="smoke", seed=7)
    assert again.measured == rec.measured
    assert run_claim("alpha", "mean_is_small", budget="smoke", seed=7, n_seeds=3).seeds == (7, 8, 9)


def test_run_claim_turns_exceptions_into_error_records(toy_papers):
    rec = run_claim("alpha", "boom", budget="smoke")
    assert rec.verdict == "error" and rec.bar_verdict is None
    assert "RuntimeError: kaboom" in rec.reason
    assert "Traceback" in rec.error and "check_boom" in rec.error


def test_run_claim_times_out(toy_papers):
    rec = run_claim("alpha", "hangs", budget="smoke", timeout=0.3)
    assert rec.verdict == "error" and rec.timed_out is True
    assert rec.duration_s < 5
    assert "timed out after 0.3 s" in rec.reason


def test_run_claim_unknown_budget(toy_papers):
    with pytest.raises(ValueError, match="budget"):
        run_claim("alpha", "boom", budget="huge")
    rec = run_claim("alpha", "boom", budget="full")  # the check declares only smoke/small: never run, never faked
    assert rec.verdict == "unsupported" and "no 'full' budget declared" in rec.reason
    assert rec.error is None and rec.provenance and rec.seeds == (0,)


def test_a_check_cannot_swallow_its_timeout(toy_papers):
    rec = run_claim("gamma", "swallows", budget="smoke", timeout=0.3)  # the check wraps its sleep in except Exception
    assert rec.verdict == "error" and rec.timed_out
    assert "timed out after 0.3 s" in rec.reason and rec.duration_s < 5


def test_a_check_that_catches_the_timeout_itself_is_still_an_error(toy_papers):
    rec = run_claim("gamma", "swallows_all", budget="smoke", timeout=0.3)  # except BaseException, then returns holds
    assert rec.verdict == "error" and rec.timed_out and "timed out after 0.3 s" in rec.reason


def test_timeout_stops_a_local_sweep_at_once(toy_papers):
    from icml26.runner import LocalPoolMapper

    # 8 points of 2 s on 2 workers would take 8 s; the timeout must end the claim (and its pool) at ~1 s
    rec = run_claim("gamma", "slow_map", budget="smoke", timeout=1.0, mapper=LocalPoolMapper(2))
    assert rec.verdict == "error" and rec.timed_out
    assert rec.duration_s < 6


def test_a_fails_off_the_papers_basis_is_inconclusive(toy_papers):
    rec = run_claim("delta", "rebuilt_fails")
    assert rec.bar_verdict == "fails" and rec.verdict == "inconclusive" and rec.basis == "reconstruction"
    assert rec.reason.startswith("our reconstruction (the method is rebuilt from the abstract): against our bar it "
                                 "fails: x = 3 misses the bar <= 2 (paper)")
    assert rec.label == "inconclusive (reconstruction)"
    assert rec.bars[0]["provenance"] == "paper" and rec.measured["x"]["call"] == "fails"
    held = run_claim("delta", "rebuilt_holds")
    assert held.verdict == "holds" and held.label == "holds (reconstruction)"
    assert held.reason.startswith("our reconstruction")


@pytest.mark.skipif(gpu_name() is not None, reason="this machine has a GPU")
def test_a_gpu_claim_on_a_cpu_is_unsupported_with_the_measurement_kept(toy_papers):
    rec = run_claim("delta", "gpu_speed")
    assert rec.verdict == "unsupported" and rec.bar_verdict == "holds" and rec.basis == "platform"
    assert "no GPU" in rec.reason and "fast on this machine" in rec.reason
    assert rec.timings == {"ratio": 2.0}


def test_a_closure_in_ctx_map_is_a_clear_error(toy_papers):
    rec = run_claim("delta", "closure_map")
    assert rec.verdict == "error" and "TypeError" in rec.reason and "check_closure.<locals>.<lambda>" in rec.reason


def _hog(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def test_a_timed_claim_beside_a_cpu_hog_is_inconclusive(toy_papers):
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    hogs = [ctx.Process(target=_hog, args=(stop,), daemon=True) for _ in range(max(2, os.cpu_count() or 1))]
    for h in hogs:
        h.start()
    try:
        rec = run_claim("delta", "timed_spin")
    finally:
        stop.set()
        for h in hogs:
            h.join(5)
    c = rec.contention
    assert c["contended"], c
    assert rec.bar_verdict == "holds" and rec.verdict == "inconclusive"
    assert "the machine was busy" in rec.reason and "the measurement said holds" in rec.reason
    assert c["other_cores"] is None or c["other_cores"] > 0.3
    for key in ("cpu_share", "calibration_s", "loadavg_before", "loadavg_after", "cpu_model", "governor"):
        assert key in c


def test_an_untimed_claim_has_no_contention_check(toy_papers):
    assert run_claim("alpha", "always_wrong").contention is None
