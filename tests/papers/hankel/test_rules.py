"""The [P03] rules on planted solve tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.hankel._rules import judge_grid, judge_rate, judge_recovery
from support.planted import load_planted

P = load_planted("hankel")
BARS = {c.id: c.bar_map for c in registry.get_paper("hankel").claims}
FAST, SLOW, BASE = P.FAST, P.SLOW, P.BASE


def _grid(its, secs, conv=None, judge_time=True):
    return judge_grid(P.grid_rows(its, secs, conv=conv), bars=BARS["faster_than_baselines"], baselines=BASE,
                      judge_time=judge_time)


def test_rate_rule() -> None:
    bars = BARS["kappa_free_rate"]
    held = judge_rate(P.rate_rows({1.0: [70, 72, 71], 1e4: [75, 74, 76]}), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["ratio"] == pytest.approx(75 / 71)
    one_seed = judge_rate(P.rate_rows({1.0: [70], 1e4: [75]}), bars=bars)
    assert one_seed.verdict is Verdict.INCONCLUSIVE and "only 1" in one_seed.reason
    straddles = judge_rate(P.rate_rows({1.0: [70, 70, 70], 1e4: [80, 105, 140]}), bars=bars)
    assert straddles.verdict is Verdict.INCONCLUSIVE and "straddles" in straddles.reason
    stuck = judge_rate(P.rate_rows({1.0: [70, 70, 70]}, converged=False), bars=bars)
    assert stuck.verdict is Verdict.FAILS and "did not converge" in stuck.reason


def test_fewer_iterations_and_faster_holds() -> None:
    j = _grid({"jpgd": 50, "shgd": 500, "scaledgd": 80}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
    assert j.verdict is Verdict.HOLDS and j.measured["pair_kinds"] == {"won": ["κ=1 p=30% vs shgd",
                                                                                "κ=1 p=30% vs scaledgd"]}
    assert j.reason.startswith("2 of 2 (cell, baseline) pairs hold")


def test_an_iteration_tie_is_decided_by_time() -> None:
    for d in (-1, 0, 1):
        j = _grid({"jpgd": 50, "shgd": 500, "scaledgd": 50 + d}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
        assert j.verdict is Verdict.HOLDS and j.measured["pair_kinds"]["tie"] == ["κ=1 p=30% vs scaledgd"]
    j = _grid({"jpgd": 50, "shgd": 500, "scaledgd": 50}, {"jpgd": SLOW, "shgd": SLOW, "scaledgd": FAST})
    assert j.verdict is Verdict.FAILS and "misses the bar < 1" in j.reason
    mixed = [0.5, 1.0, 2.0]  # JPGD faster in one trial, slower in another: the paired CI straddles 1
    j = _grid({"jpgd": 50, "shgd": 500, "scaledgd": 50}, {"jpgd": mixed, "shgd": SLOW, "scaledgd": [1.0, 1.0, 1.0]})
    assert j.verdict is Verdict.INCONCLUSIVE and "straddles" in j.reason


def test_a_lost_pair_says_what_the_time_was() -> None:
    j = _grid({"jpgd": 52, "shgd": 500, "scaledgd": 50}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
    assert j.verdict is Verdict.FAILS and j.measured["pair_kinds"]["lost"] == ["κ=1 p=30% vs scaledgd"]
    assert "Δ median iterations +2 (more)" in j.reason and "JPGD/scaledgd time = 0.5" in j.reason  # won on time
    assert "1 of 2 (cell, baseline) pairs hold" in j.reason  # what was won is said too


def test_ties_without_timing_stay_inconclusive() -> None:
    j = _grid({"jpgd": 50, "shgd": 500, "scaledgd": 50}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW}, judge_time=False)
    assert j.verdict is Verdict.INCONCLUSIVE and "time not judged" in j.reason
    one = {"jpgd": FAST[:1], "shgd": SLOW[:1], "scaledgd": SLOW[:1]}  # no CI from one trial
    assert _grid({"jpgd": 50, "shgd": 500, "scaledgd": 50}, one).verdict is Verdict.INCONCLUSIVE


def test_unconverged_baselines_are_counted_apart() -> None:
    its, secs = {"jpgd": 50, "shgd": 1000, "scaledgd": 80}, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW}
    j = _grid(its, secs, conv={"shgd": False})
    assert j.verdict is Verdict.HOLDS and j.measured["pair_kinds"] == {"unconverged": ["κ=1 p=30% vs shgd"],
                                                                        "won": ["κ=1 p=30% vs scaledgd"]}
    assert "1 unconverged" in j.reason and "1 won" in j.reason
    assert _grid(its, secs, conv={"jpgd": False}).verdict is Verdict.FAILS
    nobody = _grid(its, secs, conv={"jpgd": False, "shgd": False, "scaledgd": False})
    assert nobody.verdict is Verdict.INCONCLUSIVE and nobody.measured["cells_nobody_converged"] == ["κ=1 p=30%"]


def test_measured_does_not_depend_on_wall_clock() -> None:
    its = {"jpgd": 50, "shgd": 500, "scaledgd": 50}
    a = _grid(its, {"jpgd": FAST, "shgd": SLOW, "scaledgd": SLOW})
    b = _grid(its, {"jpgd": SLOW, "shgd": FAST, "scaledgd": FAST})
    assert a.verdict != b.verdict and a.timings != b.timings
    assert {k: v for k, v in a.measured.items() if k not in ("parts", "pair_kinds")} == \
        {k: v for k, v in b.measured.items() if k not in ("parts", "pair_kinds")}


def _rec(success: dict, n_seeds: int = 10):
    return judge_recovery(P.recovery_rows(success, n_seeds), bars=BARS["recovery_rate"], baselines=BASE, success=1e-3)


def test_recovery_non_inferiority_rule() -> None:
    held = _rec({"jpgd": P._always, "shgd": P._never, "scaledgd": P._always})
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("2 of 2 baselines hold")
    failed = _rec({"jpgd": P._even, "shgd": P._never, "scaledgd": P._always})  # −0.5 vs scaledgd
    assert failed.verdict is Verdict.FAILS and failed.measured["parts"] == {"vs shgd": "holds", "vs scaledgd": "fails"}
    slightly = _rec({"jpgd": lambda p, s: s != 3, "shgd": P._never, "scaledgd": P._always})  # −0.1, CI straddles −δ
    assert slightly.verdict is Verdict.INCONCLUSIVE
    d = slightly.measured["vs scaledgd"]["JPGD − scaledgd success"]
    assert d["estimate"] == pytest.approx(-0.1) and d["ci"][0] < -0.05 <= d["ci"][1]


def test_recovery_with_too_few_trials_is_inconclusive() -> None:
    j = _rec({"jpgd": P._always, "shgd": P._always, "scaledgd": P._always}, n_seeds=2)
    assert j.verdict is Verdict.INCONCLUSIVE and "only 2" in j.reason
    assert j.measured["success_rate"]["jpgd"] == [1.0, 1.0]
