"""Parity of the numpy environments with gymnasium's (bit for bit), gymnasium being the oracle."""

import gymnasium as gym
import numpy as np
import pytest

from icml26.papers.chebyshev_rl import mc_rollout, pendulum_rollout


def mc_rollout_gym(policy, x0, *, max_steps=999):
    """One episode of gymnasium's own MountainCarContinuous-v0 from (x0, 0)."""
    env = gym.make("MountainCarContinuous-v0", max_episode_steps=max_steps)
    obs, _ = env.reset(seed=0, options={"low": float(x0), "high": float(x0)})
    ret, steps, xs = 0.0, 0, []
    while True:
        a = np.asarray(policy(obs[None, :]), dtype=np.float32).reshape(-1)
        obs, r, term, trunc, _ = env.step(a)
        ret, steps = ret + float(r), steps + 1
        xs.append(obs.copy())
        if term or trunc:
            break
    env.close()
    return {"returns": ret, "steps": steps, "success": bool(term), "obs": np.array(xs)}


def pendulum_rollout_gym(policy, theta0, thetadot0, *, max_steps=200):
    """The return of one gymnasium Pendulum-v1 episode from the state (theta0, thetadot0)."""
    env = gym.make("Pendulum-v1", max_episode_steps=max_steps)
    env.reset(seed=0)
    env.unwrapped.state = np.array([theta0, thetadot0], dtype=np.float64)
    obs = env.unwrapped._get_obs()
    ret = 0.0
    for _ in range(max_steps):
        obs, r, term, trunc, _ = env.step(np.asarray(policy(obs[None, :]), dtype=np.float32).reshape(-1))
        ret += float(r)
        if term or trunc:
            break
    env.close()
    return ret


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

    two = lambda o: np.zeros((o.shape[0], 2))  # (B, 2): not one action per row
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


def _full(a):
    return lambda o: np.full((o.shape[0], 1), a)


@pytest.mark.parametrize("x0", [0.4490544290689666, 0.44905, 0.449, 0.4495, 0.45, 0.5])
@pytest.mark.parametrize("a", [1.0, 0.3, -1.0, 2.0])
def test_goal_test_near_the_goal_matches_gymnasium(x0, a):
    """The first step's goal test runs on gymnasium's float64 state, before the float32 cast: from x0 = 0.44905442...
    with a = 1 the float64 position is 0.44999999..., short of the goal (its float32 cast reads 0.45)."""
    g = mc_rollout_gym(_full(a), x0)
    n = mc_rollout(_full(a), [x0], record=True)
    assert (g["steps"], g["success"], g["returns"]) == (n["steps"][0], n["success"][0], n["returns"][0])
    np.testing.assert_array_equal(g["obs"][:, 0], n["xs"][: g["steps"], 0])


def test_random_actions_from_random_starts_match_gymnasium():
    rs = np.random.default_rng(11)
    for x0 in np.concatenate([rs.uniform(-1.2, 0.6, 6), rs.uniform(0.43, 0.45, 6)]):
        acts = rs.uniform(-1.5, 1.5, 999).astype(np.float32)
        step = iter(range(10**6))

        def pol(o, acts=acts, step=step):
            return np.full((o.shape[0], 1), acts[min(next(step), 998)])

        g = mc_rollout_gym(pol, x0)
        step2 = iter(range(10**6))
        n = mc_rollout(lambda o, acts=acts, step2=step2: np.full((o.shape[0], 1), acts[min(next(step2), 998)]), [x0])
        assert (g["steps"], g["success"], g["returns"]) == (n["steps"][0], n["success"][0], n["returns"][0])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_non_finite_actions_raise_here_while_gymnasium_steps_on():
    """Documented difference: gymnasium takes a NaN action (NaN state and rewards) and an infinite one (clipped in
    the dynamics, reward -inf); mc_rollout refuses both."""
    env = gym.make("MountainCarContinuous-v0")
    env.reset(seed=0, options={"low": -0.5, "high": -0.5})
    obs, r, *_ = env.step(np.array([np.nan], dtype=np.float32))
    assert np.isnan(r) and np.isnan(obs).all()
    env.reset(seed=0, options={"low": -0.5, "high": -0.5})
    _, r, *_ = env.step(np.array([np.inf], dtype=np.float32))
    assert r == -np.inf
    pend = gym.make("Pendulum-v1")
    pend.reset(seed=0)
    _, r, *_ = pend.step(np.array([np.nan], dtype=np.float32))
    assert np.isnan(r)
    pend.reset(seed=0)
    _, r, *_ = pend.step(np.array([np.inf], dtype=np.float32))  # the torque is clipped to 2 first
    assert np.isfinite(r)
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="non-finite"):
            mc_rollout(_full(bad), [-0.5])
        with pytest.raises(ValueError, match="non-finite"):
            pendulum_rollout(_full(bad), [0.1], [0.0])
