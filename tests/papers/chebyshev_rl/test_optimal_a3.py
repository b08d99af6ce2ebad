"""Two-phase reference optimum Eq. (A3): contains Eq. (A2), beats it, the table reproduces, richer search."""

import numpy as np
import pytest

from icml26.papers.chebyshev_rl import (
    mc_rollout,
    mc_starts,
    optimal_gains,
    optimal_params,
)
from icml26.papers.chebyshev_rl._optimal import eq_a2
from icml26.papers.chebyshev_rl._optimal_a3 import eq_a3
from icml26.papers.chebyshev_rl._search import richer_search


def test_eq_a3_with_low_threshold_is_eq_a2():
    obs = np.random.default_rng(0).uniform([-1.2, -0.07], [0.6, 0.07], size=(50, 2))
    k, c = 5.3, 0.4
    np.testing.assert_array_equal(eq_a3(obs, np.array([1.0, -2.0, k, c])), eq_a2(obs, k, c))
    # above the threshold energy the second gain is used, below it the first
    lo = eq_a3(np.array([[-0.5, 0.001]]), np.array([2.0, 0.0, 8.0, 0.0]))  # eps ~ sin(-1.5) < 0: k1
    hi = eq_a3(np.array([[0.0, 0.05]]), np.array([2.0, 0.0, 8.0, 0.0]))  # eps = 1.5 v^2 / g > 0: k2
    assert lo[0, 0] == pytest.approx(2.0 * 0.001) and hi[0, 0] == pytest.approx(8.0 * 0.05)


def test_reference_reaches_goal_and_is_never_worse_than_eq_a2():
    x0 = mc_starts(100)
    P, r = optimal_params(x0)  # tabulated parameters, re-simulated
    out = mc_rollout(lambda o: eq_a3(o, P), x0)
    assert out["success"].all()
    np.testing.assert_array_equal(out["returns"], r)
    r_a2 = optimal_gains(x0[::10], fine=False)[2]
    assert np.all(r[::10] >= r_a2 - 1e-12)
    assert r.mean() > 99.5 and r.min() > 99.15  # Eq. (A2): mean 99.46, min 99.06


def test_table_is_reproduced_by_the_search():
    x0 = mc_starts(100)[[60]]  # one start: the fine search takes a few seconds
    P_tab, r_tab = optimal_params(x0)
    P_new, r_new = optimal_params(x0, use_table=False)
    np.testing.assert_allclose(r_new, r_tab, atol=1e-9)
    np.testing.assert_allclose(P_new, P_tab, atol=1e-9)


def test_richer_search_contains_the_reference():
    x0 = mc_starts(100)[[5, 50]]
    P, r = optimal_params(x0)
    np.testing.assert_array_equal(richer_search(x0, P, grid=(1, 1, 1, 1, 1)), r)
    assert np.all(richer_search(x0, P, grid=(3, 1, 3, 1, 3)) >= r)


def test_off_grid_start_is_searched_coarsely():
    P, r = optimal_params([-0.5123], fine=False)
    assert P.shape == (1, 4) and r[0] > 99.0


def test_bad_input():
    with pytest.raises(ValueError, match="x0"):
        optimal_params([0.9])


def test_eval_starts_are_a_subset_of_the_paper_grid():
    from icml26.papers.chebyshev_rl._experiments import eval_starts

    np.testing.assert_array_equal(eval_starts(100), mc_starts(100))
    sub = eval_starts(10)
    assert sub.size == 10 and sub[0] == -0.6 and sub[-1] == -0.4 and np.all(np.isin(sub, mc_starts(100)))
    with pytest.raises(ValueError, match="n must"):
        eval_starts(101)
