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
