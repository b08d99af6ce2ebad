"""icml26.common.rl: hand-computed numbers, and stable-baselines3 / gymnasium where they compute the same thing."""

import math

import numpy as np
import pytest
import torch

from icml26.common.rl import (
    ars_candidates,
    ars_update,
    batched_rollout,
    discounted_returns,
    dr_grpo_advantages,
    gae,
    grpo_advantages,
    kl_penalty,
    ppo_clip_loss,
    reinforce_advantages,
    reinforce_loss,
)

# -- advantages -------------------------------------------------------------------------------------------------


def test_grpo_advantages_worked_example():
    a = grpo_advantages([1.0, 0.0, 1.0, 0.0])  # mean 0.5, population std 0.5
    np.testing.assert_allclose(a, np.array([1, -1, 1, -1]) * 0.5 / (0.5 + 1e-6))
    s = grpo_advantages([1.0, 0.0, 1.0, 0.0], ddof=1, eps=1e-12)  # sample std sqrt(1/3)
    np.testing.assert_allclose(s, np.array([1, -1, 1, -1]) * 0.5 / math.sqrt(1 / 3))
    np.testing.assert_array_equal(grpo_advantages([[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]), np.zeros((2, 3)))


def test_grpo_matches_trl_style_torch_computation_and_keeps_the_kind():
    g = torch.Generator().manual_seed(0)
    r = torch.randint(0, 2, (5, 8), generator=g).float()
    ours = grpo_advantages(r, ddof=1, eps=1e-4)
    # TRL's GRPO: rewards viewed as (prompts, G), minus the group mean, over the group std (unbiased) + 1e-4
    ref = (r - r.mean(dim=1, keepdim=True)) / (r.std(dim=1, keepdim=True) + 1e-4)
    assert isinstance(ours, torch.Tensor) and ours.dtype == torch.float32
    torch.testing.assert_close(ours, ref)
    np.testing.assert_allclose(grpo_advantages(r.double().numpy(), ddof=1, eps=1e-4), ref.double().numpy(),
                               rtol=1e-6)


def test_dr_grpo_and_reinforce_advantages():
    np.testing.assert_allclose(dr_grpo_advantages([1.0, 0.0, 0.0, 0.0]), [0.75, -0.25, -0.25, -0.25])
    np.testing.assert_allclose(reinforce_advantages([10.0, 20.0, 30.0]), [-10.0, 0.0, 10.0])
    np.testing.assert_allclose(reinforce_advantages([10.0, 20.0], baseline="none"), [10.0, 20.0])
    np.testing.assert_allclose(reinforce_advantages([10.0, 20.0], baseline=np.array([1.0, 25.0])), [9.0, -5.0])
    t = reinforce_advantages(torch.tensor([1.0, 3.0]))
    assert isinstance(t, torch.Tensor) and t.tolist() == [-1.0, 1.0]


@pytest.mark.parametrize(("call", "match"), [
    (lambda: grpo_advantages([]), "rewards"),
    (lambda: grpo_advantages([1.0, np.nan]), "rewards"),
    (lambda: grpo_advantages([1.0, 0.0], eps=0.0), "eps"),
    (lambda: grpo_advantages([1.0], ddof=1), "ddof"),
    (lambda: grpo_advantages([1.0, 0.0], ddof=True), "ddof"),
    (lambda: grpo_advantages(torch.tensor([1.0, float("inf")])), "rewards"),
    (lambda: reinforce_advantages([1.0, 2.0], baseline="median"), "baseline"),
    (lambda: reinforce_advantages([1.0, 2.0], baseline=np.zeros(3)), "baseline"),
])
def test_advantages_refuse_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# -- returns and GAE --------------------------------------------------------------------------------------------


def test_discounted_returns_worked_examples():
    np.testing.assert_allclose(discounted_returns([1.0, 2.0, 3.0], gamma=0.5), [2.75, 3.5, 3.0])
    np.testing.assert_allclose(discounted_returns([1.0, 2.0, 3.0], gamma=0.5, dones=[0, 1, 0]), [2.0, 2.0, 3.0])
    np.testing.assert_allclose(discounted_returns([1.0, 2.0, 3.0], gamma=0.5, last_value=4.0), [3.25, 4.5, 5.0])
    t = discounted_returns(torch.tensor([[1.0, 0.0], [1.0, 1.0]]), gamma=1.0)
    assert t.tolist() == [[2.0, 1.0], [1.0, 1.0]]


def test_gae_worked_example_and_limits():
    adv, ret = gae([1.0, 0.0, 1.0], [0.5, 0.5, 0.5], gamma=0.9, lam=0.8)
    np.testing.assert_allclose(adv, [0.95 + 0.72 * 0.31, 0.31, 0.5])
    np.testing.assert_allclose(ret, adv + 0.5)
    r, v = np.random.default_rng(0).normal(size=(2, 6, 3))
    d = np.zeros((6, 3))
    d[2, 1] = 1
    a1, _ = gae(r, v, gamma=0.9, lam=1.0, dones=d, last_value=np.ones(3))
    np.testing.assert_allclose(a1, discounted_returns(r, gamma=0.9, dones=d, last_value=np.ones(3)) - v)
    a0, _ = gae(r, v, gamma=0.9, lam=0.0, dones=d, last_value=np.ones(3))
    v_next = np.vstack([v[1:], np.ones((1, 3))])
    np.testing.assert_allclose(a0, r + 0.9 * (1 - d) * v_next - v)


def test_gae_matches_stable_baselines3_rollout_buffer():
    from gymnasium import spaces
    from stable_baselines3.common.buffers import RolloutBuffer

    T, B, gamma, lam = 7, 3, 0.95, 0.9
    g = np.random.default_rng(1)
    rewards, values = g.normal(size=(T, B)), g.normal(size=(T, B))
    starts = (g.random((T, B)) < 0.25).astype(np.float32)  # SB3: episode_start[t] = an episode began at step t
    last_values, last_dones = g.normal(size=B), np.array([0.0, 1.0, 0.0])
    buf = RolloutBuffer(T, spaces.Box(-1, 1, (2,)), spaces.Box(-1, 1, (1,)), device="cpu", gamma=gamma,
                        gae_lambda=lam, n_envs=B)
    for t in range(T):
        buf.add(np.zeros((B, 2)), np.zeros((B, 1)), rewards[t], starts[t], torch.as_tensor(values[t]),
                torch.zeros(B))
    buf.compute_returns_and_advantage(torch.as_tensor(last_values), last_dones)
    dones = np.vstack([starts[1:], last_dones[None]])  # ours: the episode ended at step t
    adv, ret = gae(rewards, values, gamma=gamma, lam=lam, dones=dones, last_value=last_values)
    np.testing.assert_allclose(adv, buf.advantages, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ret, buf.returns, rtol=1e-5, atol=1e-6)
    adv_t, _ = gae(torch.as_tensor(rewards), torch.as_tensor(values), gamma=gamma, lam=lam,
                   dones=torch.as_tensor(dones), last_value=torch.as_tensor(last_values))
    np.testing.assert_allclose(adv_t.numpy(), adv)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: discounted_returns([1.0], gamma=1.5), "gamma"),
    (lambda: discounted_returns([1.0, 2.0], gamma=0.9, dones=[0, 2]), "dones"),
    (lambda: discounted_returns([1.0, 2.0], gamma=0.9, dones=[0]), "dones"),
    (lambda: discounted_returns(np.zeros((2, 2, 2)), gamma=0.9), "rewards"),
    (lambda: gae([1.0, 2.0], [1.0], gamma=0.9, lam=0.9), "values"),
    (lambda: gae([1.0], [1.0], gamma=0.9, lam=-0.1), "lam"),
    (lambda: gae([1.0], [1.0], gamma=0.9, lam=0.5, last_value=np.nan), "last_value"),
])
def test_returns_refuse_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# -- losses -----------------------------------------------------------------------------------------------------


def test_ppo_clip_loss_worked_example_and_gradient():
    old = torch.log(torch.tensor([0.5, 0.5, 0.5]))
    lp = torch.log(torch.tensor([0.75, 0.25, 0.55])).requires_grad_()  # ratios 1.5, 0.5, 1.1
    out = ppo_clip_loss(lp, old, torch.tensor([1.0, 1.0, -1.0]), clip=0.2)
    # min(1.5, 1.2) = 1.2; min(0.5, 0.8) = 0.5; min(-1.1, -1.1) = -1.1: mean 0.2
    assert out.policy_loss.item() == pytest.approx(-0.2) and out.loss is out.policy_loss
    assert out.clip_fraction.item() == pytest.approx(2 / 3) and out.kl.item() == 0.0
    out.loss.backward()
    assert lp.grad is not None  # clipped term: no gradient; the others: -A rho / 3
    np.testing.assert_allclose(lp.grad.numpy(), [0.0, -0.5 / 3, 1.1 / 3], rtol=1e-6)


def test_ppo_clip_higher_and_single_update_is_the_policy_gradient():
    old = torch.log(torch.tensor([0.5, 0.5]))
    lp = torch.log(torch.tensor([0.8, 0.5]))  # ratio 1.6: clipped at 1.2, or at 1.5 with clip_high = 0.5
    a = torch.tensor([1.0, 1.0])
    assert ppo_clip_loss(lp, old, a).policy_loss.item() == pytest.approx(-(1.2 + 1.0) / 2)
    assert ppo_clip_loss(lp, old, a, clip_high=0.5).policy_loss.item() == pytest.approx(-(1.5 + 1.0) / 2)
    x = torch.tensor([-1.0, -2.0, -0.5], requires_grad=True)
    adv = torch.tensor([0.5, -1.0, 2.0])
    ppo_clip_loss(x, x.detach(), adv).loss.backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), -adv.numpy() / 3)  # rho = 1: -mean(A grad logp)


def test_aggregations_over_masked_tokens():
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    lp = torch.zeros(2, 3)  # ratio 1: the loss is -agg(A)
    def agg(how, **kw):
        return -ppo_clip_loss(lp, lp, x, mask=mask, aggregate=how, **kw).policy_loss.item()
    assert agg("token_mean") == pytest.approx(7 / 3)
    assert agg("seq_mean") == pytest.approx((1.5 + 4.0) / 2)
    assert agg("seq_sum_norm", norm_length=4) == pytest.approx(7 / 8)
    assert -ppo_clip_loss(lp, lp, torch.tensor([1.0, 3.0])).policy_loss.item() == pytest.approx(2.0)  # (B,) -> tokens


def test_kl_penalty_worked_example_and_unbiasedness():
    lp, ref = torch.log(torch.tensor([0.5])), torch.log(torch.tensor([0.25]))
    d = math.log(0.5)
    assert kl_penalty(lp, ref).item() == pytest.approx(math.exp(d) - d - 1)
    assert kl_penalty(lp, ref, estimator="k1").item() == pytest.approx(-d)
    assert kl_penalty(lp, ref, estimator="k2").item() == pytest.approx(0.5 * d * d)
    pi, pr = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64), torch.tensor([0.2, 0.2, 0.6], dtype=torch.float64)
    exact = float((pi * (pi / pr).log()).sum())
    for est in ("k1", "k3"):  # unbiased: E_pi[k] = KL(pi || ref) exactly, over the whole support
        assert float((pi * kl_penalty(pi.log(), pr.log(), estimator=est)).sum()) == pytest.approx(exact)
    old = torch.log(torch.tensor([0.5, 0.5]))
    out = ppo_clip_loss(old, old, torch.ones(2), logp_ref=torch.log(torch.tensor([0.25, 0.5])), kl_coef=0.1)
    assert out.kl.item() == pytest.approx((math.exp(d) - d - 1) / 2)
    assert out.loss.item() == pytest.approx(-1.0 + 0.1 * out.kl.item())


def test_reinforce_loss_gradient_is_the_score_function_estimate():
    lp = torch.tensor([[-1.0, -0.5, -2.0], [-0.1, -0.2, -0.3]], requires_grad=True)
    mask = torch.tensor([[1, 1, 0], [1, 1, 1]])
    adv = torch.tensor([2.0, -1.0])
    loss = reinforce_loss(lp, adv, mask=mask)
    assert loss.item() == pytest.approx(-(2.0 * -1.5 + -1.0 * -0.6) / 2)
    loss.backward()
    assert lp.grad is not None
    np.testing.assert_allclose(lp.grad.numpy(), -(adv[:, None] * mask).numpy() / 2)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: ppo_clip_loss(np.zeros(2), torch.zeros(2), torch.ones(2)), "logp"),
    (lambda: ppo_clip_loss(torch.zeros(2), torch.zeros(3), torch.ones(2)), "logp_old"),
    (lambda: ppo_clip_loss(torch.zeros(2), torch.zeros(2), torch.ones(3)), "advantages"),
    (lambda: ppo_clip_loss(torch.zeros(2), torch.zeros(2), torch.ones(2), clip=0.0), "clip"),
    (lambda: ppo_clip_loss(torch.zeros(2), torch.zeros(2), torch.ones(2), aggregate="sum"), "aggregate"),
    (lambda: ppo_clip_loss(torch.zeros(2), torch.zeros(2), torch.ones(2), kl_coef=0.1), "logp_ref"),
    (lambda: ppo_clip_loss(torch.zeros(2, 2), torch.zeros(2, 2), torch.ones(2), mask=torch.ones(2)), "mask"),
    (lambda: kl_penalty(torch.zeros(2), torch.zeros(2), estimator="k4"), "estimator"),
    (lambda: reinforce_loss(torch.zeros(2), torch.ones(3)), "advantages"),
])
def test_losses_refuse_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# -- ARS --------------------------------------------------------------------------------------------------------


def test_ars_update_worked_example():
    deltas = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    new = ars_update(np.zeros(2), deltas, [3.0, 1.0, 2.0], [1.0, 2.0, 0.0], step_size=0.1, n_top=2)
    # top 2 by max(r+, r-) = (3, 2, 2): directions 0 and 1 (ties keep the lower index); sigma of (3, 1, 1, 2)
    sigma = np.std([3.0, 1.0, 1.0, 2.0])
    np.testing.assert_allclose(new, 0.1 / (2 * sigma) * np.array([2.0, -1.0]))
    flat = ars_update(np.ones(2), deltas, [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], step_size=0.1, n_top=3)
    np.testing.assert_array_equal(flat, np.ones(2))  # sigma_R = 0: no step
    np.testing.assert_array_equal(ars_candidates([1.0, 2.0], [[1.0, 0.0]], delta_std=0.5), [[1.5, 2.0], [0.5, 2.0]])


def test_ars_ascends_a_quadratic():
    g = np.random.default_rng(0)
    theta = np.zeros(3)
    target = np.array([1.0, -2.0, 0.5])
    for _ in range(300):
        d = g.standard_normal((4, 3))
        r = -np.sum((ars_candidates(theta, d, delta_std=0.1) - target) ** 2, axis=1)
        theta = ars_update(theta, d, r[:4], r[4:], step_size=0.05, n_top=2)
    assert np.linalg.norm(theta - target) < 0.1


@pytest.mark.parametrize(("call", "match"), [
    (lambda: ars_update(np.zeros(2), np.zeros((3, 2)), np.zeros(3), np.zeros(3), step_size=0.1, n_top=4), "n_top"),
    (lambda: ars_update(np.zeros(2), np.zeros((3, 3)), np.zeros(3), np.zeros(3), step_size=0.1, n_top=1), "deltas"),
    (lambda: ars_update(np.zeros(2), np.zeros((3, 2)), np.zeros(2), np.zeros(3), step_size=0.1, n_top=1),
     "returns_plus"),
    (lambda: ars_update(np.zeros(2), np.zeros((3, 2)), np.zeros(3), np.zeros(3), step_size=np.nan, n_top=1),
     "step_size"),
    (lambda: ars_candidates(np.zeros(2), np.zeros((1, 2)), delta_std=-1.0), "delta_std"),
])
def test_ars_refuses_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# -- batched rollouts -------------------------------------------------------------------------------------------


class _Counter:
    """obs = t; reward = the action; row i terminates when t reaches ends[i]."""

    def __init__(self, ends):
        self.ends, self.t = np.asarray(ends), 0

    def step(self, a):
        self.t += 1
        return np.full((a.shape[0], 1), float(self.t)), a[:, 0], self.t >= self.ends


def test_batched_rollout_worked_example():
    env = _Counter([2, 5, 9])
    out = batched_rollout(lambda o: o[:, 0] + 1.0, env.step, np.zeros((3, 1)), max_steps=6, record=True)
    np.testing.assert_array_equal(out.steps, [2, 5, 6])  # the third is truncated at max_steps
    np.testing.assert_array_equal(out.terminated, [True, True, False])
    np.testing.assert_array_equal(out.returns, [1 + 2, 1 + 2 + 3 + 4 + 5, 21])
    assert out.rewards is not None and out.observations is not None and out.actions is not None
    assert out.rewards.shape == (6, 3) and np.isnan(out.rewards[2, 0]) and out.rewards[2, 1] == 3.0
    assert out.observations.shape == (6, 3, 1) and out.actions.shape == (6, 3, 1)
    early = batched_rollout(lambda o: np.ones((3, 1)), _Counter([1, 1, 2]).step, np.zeros((3, 1)), max_steps=50)
    np.testing.assert_array_equal(early.steps, [1, 1, 2])  # stops when every episode has ended


def test_batched_rollout_matches_gymnasium_episodes():
    import gymnasium as gym

    starts = [-0.55, -0.5, -0.45, 0.44]

    def policy(o):
        return np.clip(60.0 * o[:, 1:2] + 0.3, -1.0, 1.0)

    envs = [gym.make("MountainCarContinuous-v0") for _ in starts]
    obs0 = np.stack([e.reset(seed=0, options={"low": x, "high": x})[0] for e, x in zip(envs, starts)])

    def step(a):
        res = [e.step(a[i].astype(np.float32)) for i, e in enumerate(envs)]
        return np.stack([r[0] for r in res]), np.array([r[1] for r in res]), np.array([r[2] for r in res])

    out = batched_rollout(policy, step, obs0, max_steps=999)
    for i, x in enumerate(starts):  # gymnasium's own loop: one episode, until terminated or the 999-step limit
        env = gym.make("MountainCarContinuous-v0")
        o, _ = env.reset(seed=0, options={"low": x, "high": x})
        ret, n, term, trunc = 0.0, 0, False, False
        while not (term or trunc):
            o, r, term, trunc, _ = env.step(policy(o[None])[0].astype(np.float32))
            ret, n = ret + float(r), n + 1
        assert (out.returns[i], out.steps[i], out.terminated[i]) == (ret, n, term)


@pytest.mark.parametrize(("policy", "match"), [
    (lambda o: np.zeros((o.shape[0], 2)), "one action per row"),
    (lambda o: np.full(o.shape[0], np.nan), "non-finite"),
    (lambda o: np.full(o.shape[0], np.inf), "non-finite"),
])
def test_batched_rollout_refuses_bad_actions(policy, match):
    with pytest.raises(ValueError, match=match):
        batched_rollout(policy, _Counter([3, 3]).step, np.zeros((2, 1)), max_steps=5)


def test_batched_rollout_refuses_bad_arguments():
    with pytest.raises(TypeError, match="max_steps"):
        batched_rollout(lambda o: o, _Counter([1]).step, np.zeros((1, 1)), max_steps=2.5)
    with pytest.raises(ValueError, match="observations"):
        batched_rollout(lambda o: o, _Counter([1]).step, np.zeros(3), max_steps=2)
