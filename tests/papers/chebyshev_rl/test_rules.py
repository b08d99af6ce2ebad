"""The [P10] rules on planted measurements: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.chebyshev_rl._rules import (
    judge_gap,
    judge_mc_gains,
    judge_optimum,
    judge_pendulum_gains,
    judge_ratio,
)
from support.planted import load_planted

P = load_planted("chebyshev_rl")
BARS = {c.id: c.bar_map for c in registry.get_paper("chebyshev_rl").claims}


def test_optimum_rule_says_it_is_about_our_reference():
    bars = BARS["optimum"]
    held = judge_optimum(**P.optimum(0.01), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("3 of 3 checks of our reference optimum hold")
    beaten = judge_optimum(**P.optimum(0.157), bars=bars)
    assert beaten.verdict is Verdict.FAILS and beaten.measured["search_max_gain"] == pytest.approx(0.157)
    assert "our searches vs our R* (Eq. A3)" in beaten.reason and "start #9" in beaten.reason
    short = judge_optimum(**{**P.optimum(0.0), "reaches": [True] * 9 + [False]}, bars=bars)
    assert short.verdict is Verdict.FAILS and "9 of 10 runs" in short.reason


def test_gap_rule_counts_only_algorithms_where_some_class_learns():
    bars = BARS["mlp_gap"]
    held = judge_gap(**P.gap([3.9, 4.5, 3.5], [5.0, 6.0, 7.0]), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.measured["gap_ratio_ars"][0] == pytest.approx(11.9 / 3.03)
    no_ppo = {"regret_mlp": {"ars": [3.9, 4.5, 3.5], "ppo": [99.7, 99.8, 99.9]},
              "regret_ch": {"ars": P.CH_ARS, "ppo": [99.6, 99.6, 99.6]}}
    j = judge_gap(**no_ppo, bars=bars)  # PPO too short for either class: a regret of ~100 is no result
    assert j.verdict is Verdict.INCONCLUSIVE and "neither class learns with ppo" in j.reason
    j = judge_gap(**{**no_ppo, "regret_mlp": {"ars": [0.1, 0.2, 0.15], "ppo": [99.7, 99.8, 99.9]}}, bars=bars)
    assert j.verdict is Verdict.FAILS
    skipped = judge_gap({"ars": [3.9, 4.5, 3.5]}, {"ars": P.CH_ARS}, bars=bars, skipped=("ppo",))
    assert skipped.verdict is Verdict.INCONCLUSIVE and "ppo is not run at this budget" in skipped.reason
    straddles = judge_gap(**P.gap([1.2, 3.5, 2.0], [5.0, 6.0, 7.0]), bars=bars)
    assert straddles.verdict is Verdict.INCONCLUSIVE and "straddles" in straddles.reason
    one_seed = judge_gap(**P.gap([3.9], [5.0]), bars=bars)
    assert one_seed.verdict is Verdict.INCONCLUSIVE and "only 1" in one_seed.reason


def test_gap_is_large_only_relative_to_what_chebyshev_reaches():
    bars = BARS["mlp_gap"]
    as_good = judge_gap(**P.gap([1.1, 1.25, 1.15], [5.0, 6.0, 7.0]), bars=bars)  # regret ~1.2, as CH-ARS's 1.21
    assert as_good.verdict is Verdict.FAILS and "regret MLP-ars / CH-ars" in as_good.reason
    assert as_good.measured["regret_mlp_ars"][0] > 0.5  # it would have met the former absolute gap > 0.5
    twice = judge_gap(**P.gap([2.3, 2.4, 2.2], [5.0, 6.0, 7.0]), bars=bars)  # just above twice CH's regret
    assert twice.verdict is Verdict.HOLDS
    zero = judge_gap({"ars": [3.9, 4.5, 3.5]}, {"ars": [1.0, 0.0, 1.0]}, bars=bars)
    assert zero.verdict is Verdict.INCONCLUSIVE and "ratio is undefined" in zero.reason


def test_ratio_rule_tests_the_papers_factor():
    bars = BARS["regret_ratio"]
    held = judge_ratio(**P.ratio(P.MLP_ARS, P.CH_ARS), bars=bars)
    assert held.verdict is Verdict.HOLDS and 4.0 < held.measured["regret_ratio"][0] < 4.4
    too_big = judge_ratio(**P.ratio([9.0, 9.5, 9.8], [1.0, 1.0, 1.0]), bars=bars)
    assert too_big.verdict is Verdict.FAILS and "misses the bar in [2.787, 6.27] (ours)" in too_big.reason
    wide = judge_ratio(**P.ratio([2.2, 4.7, 3.3], [1.0, 1.0, 1.0]), bars=bars)  # contains 4.18 but is too wide
    assert wide.verdict is Verdict.INCONCLUSIVE and "straddles" in wide.reason
    params = judge_ratio(**P.ratio(P.MLP_ARS, P.CH_ARS, params_mlp=4417 * 2), bars=bars)
    assert params.verdict is Verdict.FAILS and params.measured["param_ratio"] == pytest.approx(552.125)
    assert judge_ratio(**P.ratio(P.MLP_ARS, P.CH_ARS), bars=bars).measured["param_ratio"] == pytest.approx(276.0625)
    undefined = judge_ratio(**P.ratio(P.MLP_ARS, [1.0, -0.01, 1.0]), bars=bars)
    assert undefined.verdict is Verdict.INCONCLUSIVE and "ratio is undefined" in undefined.reason


def test_mc_gains_rule():
    bars = BARS["consistent_gains"]
    assert judge_mc_gains(**P.mc_gains([90.0, 91.0, 92.0]), bars=bars).verdict is Verdict.HOLDS
    one = {**P.mc_gains([90.0, 91.0, 92.0]), "regret_ch": {"ars": 1.2, "reinforce": 60.0},
           "regret_mlp": {"ars": 4.0, "reinforce": 70.0}}
    j = judge_mc_gains(**one, bars=bars)  # REINFORCE not counted: one algorithm left, need 2
    assert j.verdict is Verdict.INCONCLUSIVE and j.reason.startswith("1 algorithm(s) counted, need >= 2")
    assert judge_mc_gains(**P.mc_gains([70.0, 90.0, 80.0]), bars=bars).verdict is Verdict.INCONCLUSIVE  # spans 0
    skipped = judge_mc_gains(**P.mc_gains([90.0, 91.0, 92.0]), bars=bars, skipped=("ppo",))
    assert skipped.verdict is Verdict.INCONCLUSIVE and "ppo is not run" in skipped.reason
    fails_anyway = judge_mc_gains(**P.mc_gains([70.0, 71.0, 69.0]), bars=bars, skipped=("ppo",))
    assert fails_anyway.verdict is Verdict.FAILS


def test_pendulum_gains_rule_gates_on_the_zero_torque_return():
    bars = BARS["pendulum_gains"]
    assert judge_pendulum_gains(**P.pendulum([-700.0, -690.0, -710.0]), bars=bars).verdict is Verdict.HOLDS
    flat = {**P.pendulum([-1198.0, -1190.0, -1200.0]), "returns_mlp": {"ars": [-900.0, -950.0, -920.0],
                                                                       "ppo": [-1242.0, -1240.0, -1245.0]}}
    j = judge_pendulum_gains(**flat, bars=bars)  # PPO within 300 of doing nothing: not counted
    assert j.verdict is Verdict.INCONCLUSIVE and "neither class learns with ppo" in j.reason
    assert j.measured["zero_torque_return"] == -1248.0 and j.measured["counted_algorithms"] == 1
