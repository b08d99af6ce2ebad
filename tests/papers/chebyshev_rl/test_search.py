"""The checks of our reference optimum (richer searches) and the regret baseline shared by the claims."""

import numpy as np
import pytest

from icml26.claims import Context
from icml26.papers.chebyshev_rl._checks import best_known
from icml26.papers.chebyshev_rl._envs import mc_rollout
from icml26.papers.chebyshev_rl._experiments import best_known_search, eval_starts
from icml26.papers.chebyshev_rl._optimal import optimal_params
from icml26.papers.chebyshev_rl._search import global_schedule_search
from icml26.papers.chebyshev_rl.claims import SMOKE


def test_global_schedule_search_is_seeded_and_beats_the_constant_gain():
    x0 = np.array([-0.5])
    b1 = global_schedule_search(x0, pop=12, iters=2, n_elite=3, seed=1)
    assert np.array_equal(b1, global_schedule_search(x0, pop=12, iters=2, n_elite=3, seed=1))
    ks = np.linspace(2.0, 14.0, 121)  # the search starts from the best a = k v, so it can only do better
    r_const = mc_rollout(lambda o: np.clip(ks * o[:, 1], -1, 1)[:, None], np.repeat(x0, ks.size))["returns"].max()
    assert b1[0] >= r_const
    with pytest.raises(ValueError, match="n_elite"):
        global_schedule_search(x0, pop=4, n_elite=5)
    with pytest.raises(TypeError, match="seed"):
        global_schedule_search(x0, pop=4, n_elite=2, seed=None)


def test_regret_baseline_is_the_best_known_return_per_start_and_shared():
    ctx = Context(seeds=(0,))
    r_star, best = best_known(SMOKE, ctx)
    x = eval_starts(SMOKE.n_starts)
    cem = global_schedule_search(x, pop=SMOKE.cem_pop, iters=SMOKE.cem_iters, n_elite=2, seed=0)
    np.testing.assert_array_equal(best, np.maximum(optimal_params(x)[1], cem))
    np.testing.assert_array_equal(r_star, optimal_params(x)[1])
    assert np.all(best >= r_star) and len(ctx.memo) == 1  # computed once, through ctx.shared
    best_known(SMOKE, ctx)
    assert len(ctx.memo) == 1
    assert best_known_search(SMOKE.n_starts, SMOKE.cem_pop, SMOKE.cem_iters) == tuple(cem.tolist())
