"""Parity of the numpy environments with gymnasium's (bit for bit)."""

import numpy as np

from icml26.papers.chebyshev_rl import mc_rollout, pendulum_rollout
from icml26.papers.chebyshev_rl._envs import mc_rollout_gym, pendulum_rollout_gym


def _wobbly(scale):
    # deterministic, state-dependent, sometimes outside [-1, 1] (exercises gymnasium's float64 clipping path)
    return lambda o: np.clip(scale * (4.0 * o[:, 1] / 0.07 * 0.3 + 0.2 * np.sin(37 * o[:, 0])), -1.3, 1.3)[:, None]


def test_mountain_car_parity_with_gymnasium():
    rs = np.random.default_rng(3)
    for x0 in rs.uniform(-0.6, -0.4, 3):
        for scale in (0.5, 1.0, 5.0):
            g = mc_rollout_gym(_wobbly(scale), x0)
            n = mc_rollout(_wobbly(scale), [x0], record=True)
            assert g["steps"] == n["steps"][0] and g["success"] == n["success"][0]
            assert g["returns"] == n["returns"][0]  # exact
            np.testing.assert_array_equal(g["obs"][:, 0], n["xs"][: g["steps"], 0])


def test_mountain_car_time_limit_and_batch_independence():
    out = mc_rollout(lambda o: np.zeros((o.shape[0], 1)), [-0.5, -0.45])
    assert np.all(out["steps"] == 999) and not out["success"].any() and np.all(out["returns"] == 0.0)
    x0 = np.array([-0.58, -0.5, -0.41])
    batch = mc_rollout(_wobbly(1.0), x0)["returns"]
    single = [mc_rollout(_wobbly(1.0), [x])["returns"][0] for x in x0]
    np.testing.assert_array_equal(batch, single)


def test_pendulum_parity_with_gymnasium():
    pol = lambda o: np.clip(3 * o[:, 1:2] - 0.5 * o[:, 2:3], -3, 3)
    for th0, thd0 in [(2.5, -0.3), (-1.0, 0.9)]:
        assert pendulum_rollout_gym(pol, th0, thd0) == pendulum_rollout(pol, [th0], [thd0])["returns"][0]


def test_rollouts_reject_bad_actions_and_starts():
    import pytest

    two = lambda o: np.zeros((o.shape[0], 2))  # (B, 2): only column 0 used to be read
    with pytest.raises(ValueError, match="one action per row"):
        mc_rollout(two, [-0.5, -0.45])
    with pytest.raises(ValueError, match="one action per row"):
        pendulum_rollout(two, [0.1], [0.0])
    with pytest.raises(ValueError, match="non-finite"):
        mc_rollout(lambda o: np.full((o.shape[0], 1), np.nan), [-0.5])
    for bad in ([-1.3], [0.7], [np.nan], []):
        with pytest.raises(ValueError, match="x0"):
            mc_rollout(lambda o: np.zeros(o.shape[0]), bad)
    with pytest.raises(ValueError, match="theta0"):
        pendulum_rollout(lambda o: np.zeros(o.shape[0]), [np.nan], [0.0])
    with pytest.raises(TypeError, match="max_steps"):
        mc_rollout(lambda o: np.zeros(o.shape[0]), [-0.5], max_steps=10.5)
    flat = mc_rollout(lambda o: np.zeros(o.shape[0]), [-0.5, -0.45], max_steps=5)["returns"]  # (B,) accepted
    col = mc_rollout(lambda o: np.zeros((o.shape[0], 1)), [-0.5, -0.45], max_steps=5)["returns"]
    np.testing.assert_array_equal(flat, col)


def test_rollouts_accept_a_policy_object_with_act_like_policy_returns():
    import pytest

    from icml26.papers.chebyshev_rl import ChebyshevPolicy, policy_returns
    from icml26.papers.chebyshev_rl._envs import PENDULUM_OBS_HIGH, PENDULUM_OBS_LOW

    pol = ChebyshevPolicy([-1.2, -0.07], [0.6, 0.07], 1, degree=3)
    pol.set_params(np.linspace(-0.5, 2.0, pol.n_params))
    x0 = np.array([-0.5, -0.45])
    out = mc_rollout(pol, x0)
    ref = mc_rollout(pol.act, x0)
    np.testing.assert_array_equal(out["returns"], ref["returns"])
    np.testing.assert_array_equal(out["steps"], ref["steps"])
    np.testing.assert_array_equal(policy_returns(pol, x0), ref["returns"])
    pend = ChebyshevPolicy(PENDULUM_OBS_LOW, PENDULUM_OBS_HIGH, 1, degree=2, action_low=-2.0, action_high=2.0)
    np.testing.assert_array_equal(pendulum_rollout(pend, [0.5], [0.0], max_steps=20)["returns"],
                                  pendulum_rollout(pend.act, [0.5], [0.0], max_steps=20)["returns"])
    with pytest.raises(TypeError, match=r"policy must be callable obs -> actions or have an act\(obs\) method"):
        mc_rollout(object(), -0.5)
