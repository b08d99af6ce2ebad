"""Verdict logic of the claim checks (no training: the estimates are given)."""

import numpy as np

from icml26.claims import Context, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.papers.chebyshev_rl.claims import _gains_verdict, _regret_guard

CTX = Context(seeds=(0, 1, 2), budget="small")


def _est(*arms):
    return {f"a{i}": bootstrap_ci(np.asarray(v, float), seed=0) for i, v in enumerate(arms)}


def test_arms_that_learn_nothing_do_not_count():
    est = _est([1.0, 1.1, 1.2], [2.0, 2.1, 2.2], [0.5, 0.6, 0.7])
    assert _gains_verdict(est, {"a0": True, "a1": True, "a2": False}, CTX, True) == Verdict.HOLDS
    # only one counted arm: inconclusive even though every CI is above 0
    assert _gains_verdict(est, {"a0": True, "a1": False, "a2": False}, CTX, True) == Verdict.INCONCLUSIVE
    # a counted arm with CH worse: fails; the same arm not counted: no verdict from it
    bad = _est([1.0, 1.1, 1.2], [2.0, 2.1, 2.2], [-3.0, -2.9, -2.8])
    assert _gains_verdict(bad, {"a0": True, "a1": True, "a2": True}, CTX, True) == Verdict.FAILS
    assert _gains_verdict(bad, {"a0": True, "a1": True, "a2": False}, CTX, True) == Verdict.HOLDS
    assert _gains_verdict(est, dict.fromkeys(est, True), Context(seeds=(0,), budget="smoke"), True) \
        == Verdict.INCONCLUSIVE


def test_non_positive_regret_is_reported_not_divided():
    assert _regret_guard({"CH-ARS": np.array([0.5, 1.0])}) is None
    msg = _regret_guard({"CH-ARS": np.array([0.5, -0.01]), "MLP-ARS": np.array([99.0, 98.0])})
    assert msg is not None and "CH-ARS" in msg and "R* is not optimal" in msg


def test_global_schedule_search_is_seeded_and_beats_the_constant_gain():
    import pytest

    from icml26.papers.chebyshev_rl._envs import mc_rollout
    from icml26.papers.chebyshev_rl._experiments import global_schedule_search

    x0 = np.array([-0.5])
    b1 = global_schedule_search(x0, pop=12, iters=2, n_elite=3, seed=1)
    assert np.array_equal(b1, global_schedule_search(x0, pop=12, iters=2, n_elite=3, seed=1))
    ks = np.linspace(2.0, 14.0, 121)  # the search starts from the best a = k v, so it can only do better
    r_const = mc_rollout(lambda o: np.clip(ks * o[:, 1], -1, 1)[:, None], np.repeat(x0, ks.size))["returns"].max()
    assert b1[0] >= r_const
    with pytest.raises(ValueError, match="n_elite"):
        global_schedule_search(x0, pop=4, n_elite=5)


def _e(value, lo, hi):
    from icml26.common.stats import Estimate

    return Estimate(value, lo, hi)


def test_mlp_gap_rule_counts_only_algorithms_where_some_class_learns():
    from icml26.papers.chebyshev_rl.claims import _gap_verdict

    big, small = _e(3.9, 1.5, 7.3), _e(0.2, 0.1, 0.3)
    both = {"ars": True, "ppo": True}
    assert _gap_verdict({"ars": big, "ppo": big}, both, 3, True) == Verdict.HOLDS
    assert _gap_verdict({"ars": big, "ppo": small}, both, 3, True) == Verdict.FAILS
    # PPO too short for either class to learn (regret ~ 100 is a non-result): at most inconclusive
    no_ppo = {"ars": True, "ppo": False}
    assert _gap_verdict({"ars": big, "ppo": _e(99.7, 99.5, 100.0)}, no_ppo, 3, True) == Verdict.INCONCLUSIVE
    assert _gap_verdict({"ars": small, "ppo": _e(99.7, 99.5, 100.0)}, no_ppo, 3, True) == Verdict.FAILS
    assert _gap_verdict({"ars": big}, {"ars": True}, 3, False) == Verdict.INCONCLUSIVE  # PPO skipped
    assert _gap_verdict({"ars": _e(0.6, 0.4, 0.9), "ppo": big}, both, 3, True) == Verdict.INCONCLUSIVE  # CI spans bar
    assert _gap_verdict({"ars": big, "ppo": big}, both, 1, True) == Verdict.INCONCLUSIVE


def test_regret_ratio_rule():
    from icml26.papers.chebyshev_rl.claims import _ratio_verdict

    assert _ratio_verdict(_e(3.5, 2.3, 5.0), 276.06, 5) == Verdict.HOLDS
    assert _ratio_verdict(_e(1.5, 1.2, 1.9), 276.06, 5) == Verdict.FAILS
    assert _ratio_verdict(_e(3.5, 2.3, 5.0), 100.0, 5) == Verdict.FAILS  # too many parameters for the class
    assert _ratio_verdict(_e(2.5, 1.5, 3.5), 276.06, 5) == Verdict.INCONCLUSIVE
    assert _ratio_verdict(_e(3.5, 3.5, 3.5), 276.06, 1) == Verdict.INCONCLUSIVE


def test_regret_baseline_is_the_best_known_return_per_start():
    from icml26.papers.chebyshev_rl._experiments import (
        eval_starts,
        global_schedule_search,
    )
    from icml26.papers.chebyshev_rl._optimal import optimal_params
    from icml26.papers.chebyshev_rl.claims import SMOKE, _best_known

    r = _best_known(SMOKE)
    x = eval_starts(SMOKE.n_starts)
    cem = global_schedule_search(x, pop=SMOKE.cem_pop, iters=SMOKE.cem_iters, n_elite=2, seed=0)
    np.testing.assert_array_equal(r, np.maximum(optimal_params(x)[1], cem))
    assert np.all(r >= optimal_params(x)[1]) and np.array_equal(r, _best_known(SMOKE))
