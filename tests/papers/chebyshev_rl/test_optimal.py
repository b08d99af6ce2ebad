"""The reference optimum: reaches the goal from every start, beats simple controllers, regret protocol."""

import numpy as np
import pytest

from icml26.papers.chebyshev_rl import (
    mc_rollout,
    mc_starts,
    optimal_gains,
    optimal_mountain_car_policy,
    optimal_mountain_car_return,
    regret,
)


def test_optimum_reaches_goal_from_every_start():
    x0 = mc_starts(100)[::3]  # 34 of the 100 evaluation starts (the claim check covers all 100)
    k, c, r = optimal_gains(x0, fine=False)
    out = mc_rollout(lambda o: np.clip(k * o[:, 1] * (1 + c * np.abs(o[:, 1]) / 0.07), -1, 1)[:, None], x0)
    assert out["success"].all()
    np.testing.assert_array_equal(out["returns"], r)
    assert 99.0 < r.mean() < 99.7  # notes' a = k v: 99.35


def test_optimum_worked_example_and_baselines():
    x0 = mc_starts(100)[50]  # -0.4990
    r = optimal_mountain_car_return(x0)[0]
    assert r > 99.0
    pol = optimal_mountain_car_policy(x0)
    assert mc_rollout(pol, [x0])["returns"][0] == r
    bang = mc_rollout(lambda o: np.sign(o[:, 1:2]) + (o[:, 1:2] == 0), [x0])["returns"][0]
    assert bang < r - 5  # bang-bang pumping pays ~10x the control cost


def test_fine_search_is_not_worse_than_eq_a1_grid():
    x0 = mc_starts(100)[::25]
    ks = np.linspace(2, 14, 241)
    R = mc_rollout(lambda o: (np.tile(ks, x0.size) * o[:, 1])[:, None], np.repeat(x0, ks.size))["returns"]
    assert np.all(optimal_mountain_car_return(x0) >= R.reshape(x0.size, -1).max(1) - 1e-12)


def test_regret_of_optimum_is_zero_and_of_idle_policy_is_r_star():
    x0 = mc_starts(100)[::25]
    assert regret(lambda o: np.zeros((o.shape[0], 1)), x0) == pytest.approx(optimal_mountain_car_return(x0).mean())
    assert regret(optimal_mountain_car_policy(x0[1]), x0[1:2]) == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="x0"):
        optimal_mountain_car_return(1.0)
    with pytest.raises(ValueError, match="x0"):
        optimal_mountain_car_return(np.nan)
