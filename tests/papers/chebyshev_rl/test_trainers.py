"""ARS and REINFORCE on short budgets; PPO wiring with the Chebyshev custom policy; bad input."""

import numpy as np
import pytest

from icml26.papers.chebyshev_rl import (
    ChebyshevPolicy,
    MLPPolicy,
    ars,
    mc_starts,
    policy_returns,
    reinforce,
)
from icml26.papers.chebyshev_rl._trainers import _mean_and_grad

LOW, HIGH = np.array([-1.2, -0.07]), np.array([0.6, 0.07])


def test_ars_improves_return_on_short_budget():
    pol = ChebyshevPolicy(LOW, HIGH, 1, degree=3)
    before = policy_returns(pol, mc_starts(20)).mean()
    log = ars(pol, total_steps=40_000, seed=1)
    after = policy_returns(pol, mc_starts(20)).mean()
    assert log.steps >= 40_000 and after > before + 50  # from ~0 (never reaches the goal) to > 90


def test_ars_is_deterministic_for_a_seed():
    a, b = (ChebyshevPolicy(LOW, HIGH, 1, degree=2) for _ in range(2))
    ars(a, total_steps=3000, seed=7)
    ars(b, total_steps=3000, seed=7)
    np.testing.assert_array_equal(a.get_params(), b.get_params())


@pytest.mark.parametrize("box", [False, True])
def test_reinforce_gradient_matches_finite_differences(box):
    pol = MLPPolicy(2, 1, hidden=(8, 8), seed=0, **({"obs_low": [-1.2, -0.07], "obs_high": [0.6, 0.07]} if box else {}))
    th = pol.get_params()
    obs = np.random.default_rng(0).normal(size=(6, 2))
    up = np.random.default_rng(1).normal(size=6)
    _, grad = _mean_and_grad(pol, th, obs, up)
    e = 1e-6
    num = [(_mean_and_grad(pol, th + e * d, obs)[0] - _mean_and_grad(pol, th - e * d, obs)[0]) @ up / (2 * e)
           for d in np.eye(th.size)]
    np.testing.assert_allclose(grad, num, atol=1e-7)


def test_reinforce_runs_and_changes_parameters():
    pol = ChebyshevPolicy(LOW, HIGH, 1, degree=1)
    log = reinforce(pol, total_steps=2000, batch_episodes=4, seed=0)
    assert log.steps >= 2000 and not np.allclose(pol.get_params(), 1e-6)


def test_ppo_chebyshev_custom_policy_has_16_actor_parameters():
    from icml26.papers.chebyshev_rl import ppo
    from icml26.papers.chebyshev_rl._sb3 import sb3_actor_params

    model, act = ppo("chebyshev", total_steps=64, seed=0)
    assert sb3_actor_params(model) == 16
    assert act(np.zeros((3, 2), dtype=np.float32)).shape == (3, 1)


def test_bad_input():
    pol = ChebyshevPolicy(LOW, HIGH, 1, degree=1)
    with pytest.raises(ValueError, match="env"):
        ars(pol, env="cartpole", total_steps=10)
    with pytest.raises(ValueError, match="n_top"):
        ars(pol, total_steps=10, n_top=5, n_delta=4)
    with pytest.raises(ValueError, match="batch_episodes"):
        reinforce(pol, total_steps=10, batch_episodes=1)
    from icml26.papers.chebyshev_rl import ppo

    with pytest.raises(ValueError, match="kind"):
        ppo("transformer", total_steps=10)


def test_ppo_zoo_preset_with_vecnormalize_and_parallel_envs():
    from icml26.papers.chebyshev_rl import ppo
    from icml26.papers.chebyshev_rl._sb3 import ZOO_MLP_PPO_HP

    model, act = ppo("mlp", total_steps=64, seed=0, hyper=ZOO_MLP_PPO_HP, n_envs=1, normalize=True)
    assert model.use_sde and model.n_steps == 8 and model.get_env().norm_obs
    a = act(np.array([[-0.5, 0.0], [0.3, 0.05]], dtype=np.float32))
    assert a.shape == (2, 1) and np.all(np.abs(a) <= 1.0)
    model4, _ = ppo("chebyshev", total_steps=256, seed=0, n_envs=4)
    assert model4.n_envs == 4 and model4.n_steps * 4 == 256  # transitions per update kept, split over the envs


def test_pendulum_ppo_and_bad_algorithms():
    from icml26.papers.chebyshev_rl import ppo
    from icml26.papers.chebyshev_rl._experiments import run_mc, run_pendulum

    ret, n = run_pendulum("chebyshev", 0, 256, 3, "ppo")
    assert n == 64 and np.isfinite(ret) and ret < 0  # 3-D observation, degree 3: 4^3 coefficients
    with pytest.raises(ValueError, match="algo"):
        run_pendulum("chebyshev", 0, 256, 3, "sac")
    with pytest.raises(ValueError, match="kind"):
        run_mc("ppo_zoo", "chebyshev", 0, 64, 4)
    with pytest.raises(ValueError, match="n_envs"):
        ppo("mlp", total_steps=64, n_envs=0)


def test_ppo_writes_no_files_and_leaves_global_rngs_alone(tmp_path, monkeypatch):
    import random
    import tempfile

    import torch

    from icml26.papers.chebyshev_rl import ppo

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    random.seed(123), np.random.seed(123), torch.manual_seed(123)
    before = (random.getstate(), np.random.get_state()[1].copy(), torch.get_rng_state().clone())
    ppo("chebyshev", total_steps=64, seed=7)
    after = (random.getstate(), np.random.get_state()[1], torch.get_rng_state())
    assert list(tmp_path.iterdir()) == []  # no SB3-<timestamp>/ log folder
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and torch.equal(before[2], after[2])


@pytest.mark.parametrize("trainer", [ars, reinforce])
def test_step_budget_and_rates_must_be_finite_ints(trainer):
    pol = ChebyshevPolicy(LOW, HIGH, 1, degree=1)
    for bad in (float("nan"), 100.0, True):
        with pytest.raises(TypeError, match="total_steps"):
            trainer(pol, total_steps=bad)
    with pytest.raises(ValueError, match="total_steps"):
        trainer(pol, total_steps=0)
    rate = "step_size" if trainer is ars else "lr"
    for bad in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ValueError, match=rate):
            trainer(pol, total_steps=10, **{rate: bad})
    with pytest.raises(TypeError, match="n_delta"):
        ars(pol, total_steps=10, n_delta=2.5)
    with pytest.raises(ValueError, match="exploration_std"):
        reinforce(pol, total_steps=10, exploration_std=float("nan"))


def test_ppo_rejects_a_nan_step_budget():
    from icml26.papers.chebyshev_rl import ppo

    with pytest.raises(TypeError, match="total_steps"):
        ppo("mlp", total_steps=float("nan"))


@pytest.mark.parametrize("total_steps", [1, 4000])
def test_ars_budget_is_checked_between_updates_as_documented(total_steps):
    """ARS runs at least one update and finishes the one in progress: steps used in [budget, budget + 2 n_delta 999)."""
    pol = ChebyshevPolicy(LOW, HIGH, 1, degree=3)
    log = ars(pol, total_steps=total_steps, n_delta=4, seed=0)
    assert len(log.returns) >= 1
    assert total_steps <= log.steps < total_steps + 2 * 4 * 999


def test_reinforce_gradient_is_the_common_reinforce_loss_gradient():
    """The hand-derived Chebyshev gradient of the REINFORCE trainer equals autograd of common.rl.reinforce_loss."""
    import torch

    from icml26.common.rl import reinforce_advantages, reinforce_loss

    pol = ChebyshevPolicy(LOW, HIGH, 1, degree=2)
    g = np.random.default_rng(3)
    theta, sigma = g.normal(size=pol.n_params), 0.5
    obs = g.uniform(LOW, HIGH, size=(2, 4, 2))  # (B episodes, T steps, 2)
    eps = g.normal(size=(2, 4))
    G = np.array([3.0, -1.0])
    # numpy trainer: upstream_{t,b} = eps / sigma * (G - mean G) / B, summed through d mu / d theta = phi
    up = (eps.T / sigma * reinforce_advantages(G)[None, :]).ravel() / 2
    flat = np.concatenate([obs[:, t] for t in range(4)])  # time-major, as the trainer stacks its buffers
    grad = _mean_and_grad(pol, theta, flat, up)[1]
    th = torch.tensor(theta, requires_grad=True)
    phi = torch.as_tensor(pol.features(obs.reshape(-1, 2))).reshape(2, 4, -1)
    mu = phi @ th
    u = mu.detach() + sigma * torch.as_tensor(eps)  # the sampled pre-clipping actions
    logp = -0.5 * ((u - mu) / sigma) ** 2  # log N(u | mu, sigma^2) up to a constant
    reinforce_loss(logp, torch.as_tensor(reinforce_advantages(G)) * 1.0, mask=torch.ones(2, 4)).backward()
    assert th.grad is not None
    np.testing.assert_allclose(grad, -th.grad.numpy(), rtol=1e-10)  # ascent on J = descent on the loss
