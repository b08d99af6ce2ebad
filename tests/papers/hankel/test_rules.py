"""The claims' decision rules on synthetic run tables: each verdict comes out where it should."""

import numpy as np
import pytest

from icml26.claims import Verdict
from icml26.papers.hankel._rules import DELTA, judge_grid, judge_recovery

BASE = ("shgd", "scaledgd")


def _grid_rows(its: dict, secs: dict, *, conv: dict | None = None, cell=(1.0, 0.3, False)) -> list[dict]:
    """One cell; ``its[m]`` an int (same every seed) and ``secs[m]`` a list of per-seed seconds."""
    conv = conv or {}
    k, p, d = cell
    return [{"kappa": k, "ratio": p, "damped": d, "seed": s, "method": m, "iterations": its[m],
             "converged": conv.get(m, True), "seconds": t, "error": 0.0}
            for m in its for s, t in enumerate(secs[m])]


def _judge(its, secs, conv=None, judge_time=True):
    return judge_grid(_grid_rows(its, secs, conv=conv), baselines=BASE, judge_time=judge_time)


FAST = [1.0, 1.1, 0.9]
SLOW = [2.0, 2.1, 1.9]


def test_fewer_iterations_and_faster_holds() -> None:
    j = _judge({"jpgd": 50, "shgd": 500, "scaledgd": 80}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
    assert j.verdict is Verdict.HOLDS and j.timings["pairs_won"] == 2


def test_an_iteration_tie_is_decided_by_time() -> None:
    for d in (-1, 0, 1):
        j = _judge({"jpgd": 50, "shgd": 500, "scaledgd": 50 + d}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
        assert j.verdict is Verdict.HOLDS and j.measured["tied_pairs"] == ["κ=1 p=30% vs scaledgd"]
        assert "tie" in j.reason
    j = _judge({"jpgd": 50, "shgd": 500, "scaledgd": 50}, {"jpgd": SLOW, "shgd": SLOW, "scaledgd": FAST})
    assert j.verdict is Verdict.FAILS and "slower" in j.reason
    mixed = [0.5, 1.0, 2.0]  # JPGD faster in one trial, slower in another: the paired CI straddles 1
    j = _judge({"jpgd": 50, "shgd": 500, "scaledgd": 50}, {"jpgd": mixed, "shgd": SLOW, "scaledgd": [1.0, 1.0, 1.0]})
    assert j.verdict is Verdict.INCONCLUSIVE and "undecided" in j.reason


def test_two_more_iterations_is_not_a_tie_and_fails() -> None:
    j = _judge({"jpgd": 52, "shgd": 500, "scaledgd": 50}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
    assert j.verdict is Verdict.FAILS and j.measured["pairs_lost_on_iterations"] == ["κ=1 p=30% vs scaledgd: more iterations"]


def test_ties_without_timing_stay_inconclusive() -> None:
    j = _judge({"jpgd": 50, "shgd": 500, "scaledgd": 50}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW}, judge_time=False)
    assert j.verdict is Verdict.INCONCLUSIVE and "not judged" in j.reason
    one_trial = {"jpgd": FAST[:1], "shgd": SLOW[:1], "scaledgd": SLOW[:1]}  # no CI from one trial
    assert _judge({"jpgd": 50, "shgd": 500, "scaledgd": 50}, one_trial).verdict is Verdict.INCONCLUSIVE


def test_convergence_failures() -> None:
    its, secs = {"jpgd": 50, "shgd": 1000, "scaledgd": 80}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW}
    j = _judge(its, secs, conv={"shgd": False})  # a baseline that did not converge is beaten
    assert j.verdict is Verdict.HOLDS and j.measured["per_cell"]["κ=1 p=30%"]["baselines_converged"] == ["scaledgd"]
    assert _judge(its, secs, conv={"jpgd": False}).verdict is Verdict.FAILS
    nobody = _judge(its, secs, conv={"jpgd": False, "shgd": False, "scaledgd": False})
    assert nobody.verdict is Verdict.INCONCLUSIVE and nobody.measured["cells_judged"] == 0


def test_measured_does_not_depend_on_wall_clock() -> None:
    its = {"jpgd": 50, "shgd": 500, "scaledgd": 50}
    a = _judge(its, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
    b = _judge(its, {"jpgd": SLOW, "shgd": FAST, "scaledgd": FAST})
    assert a.measured == b.measured and a.verdict != b.verdict and a.timings != b.timings


def _recovery_rows(success: dict, n_seeds: int, ratios=(0.1, 0.3)) -> list[dict]:
    """``success[m]`` is a function (ratio, seed) -> bool."""
    return [{"method": m, "ratio": p, "seed": s, "error": 0.0 if f(p, s) else 1.0}
            for m, f in success.items() for p in ratios for s in range(n_seeds)]


def _rec(success: dict, n_seeds: int = 10):
    return judge_recovery(_recovery_rows(success, n_seeds), baselines=BASE, success=1e-3)


def test_recovery_non_inferiority_rule() -> None:
    always, never = (lambda p, s: True), (lambda p, s: False)
    held = _rec({"jpgd": always, "shgd": never, "scaledgd": always})
    assert held.verdict is Verdict.HOLDS and "every baseline" in held.reason
    failed = _rec({"jpgd": lambda p, s: s % 2 == 0, "shgd": never, "scaledgd": always})  # −0.5 vs scaledgd
    assert failed.verdict is Verdict.FAILS and failed.measured["diff_vs_baseline"]["scaledgd"]["ci"][1] < -DELTA
    assert failed.measured["diff_vs_baseline"]["shgd"]["call"] == "matched"  # judged against each baseline, not one
    slightly = _rec({"jpgd": lambda p, s: s != 3, "shgd": never, "scaledgd": always})  # −0.1, CI straddles −δ
    ci = slightly.measured["diff_vs_baseline"]["scaledgd"]["ci"]
    assert slightly.verdict is Verdict.INCONCLUSIVE and ci[0] < -DELTA <= ci[1]
    # a point estimate inside the margin is not enough: the whole lower CI bound must clear −δ
    assert slightly.measured["diff_vs_baseline"]["scaledgd"]["diff"] == pytest.approx(-0.1)


def test_recovery_with_too_few_trials_is_inconclusive() -> None:
    j = _rec({"jpgd": lambda p, s: True, "shgd": lambda p, s: True, "scaledgd": lambda p, s: True}, n_seeds=2)
    assert j.verdict is Verdict.INCONCLUSIVE and "trial" in j.reason
    assert np.allclose(j.measured["success_rate"]["jpgd"], [1.0, 1.0])
