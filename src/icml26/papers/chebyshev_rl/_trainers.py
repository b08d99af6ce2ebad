"""Trainers for any policy with the ``get_params / set_params / act_with`` interface: ARS and REINFORCE (ours, small),
and PPO from stable-baselines3 with a Chebyshev actor-critic as a custom policy.

Environments: ``"mc"`` (MountainCarContinuous-v0, starts x0 ~ U[-0.6, -0.4]) and ``"pendulum"`` (Pendulum-v1, starts
theta ~ U[-pi, pi], thetadot ~ U[-1, 1]); ARS and REINFORCE use the bit-exact numpy copies of ``_envs``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.common import validation
from icml26.common.rl import ars_candidates, ars_update, reinforce_advantages
from icml26.papers.chebyshev_rl._args import generator, positive_real
from icml26.papers.chebyshev_rl._envs import PENDULUM_MAX_STEPS, mc_rollout, pendulum_rollout

__all__ = ["TrainLog", "ars", "reinforce", "rollout_returns"]

ENVS = ("mc", "pendulum")


@dataclass
class TrainLog:
    """What a trainer records: environment steps actually used (may exceed the budget by less than one update) and
    the mean training return per update.

    The training log of [P10]'s ARS and REINFORCE agents (:func:`ars`, :func:`reinforce`).
    """

    steps: int = 0
    returns: list[float] = field(default_factory=list)


def _check_env(env: str) -> None:
    validation.choice(env, "env", ENVS)


def _check_policy(policy: Any) -> None:
    for name in ("get_params", "set_params", "act_with"):
        if not callable(getattr(policy, name, None)):
            raise TypeError(f"policy must have get_params, set_params and act_with (a ChebyshevPolicy or MLPPolicy), "
                            f"got {type(policy).__name__}")


def _act_with(policy: Any, thetas: np.ndarray, obs: np.ndarray) -> np.ndarray:
    return policy.act_with(thetas, obs)


def _random_starts(env: str, n: int, g: np.random.Generator) -> tuple[np.ndarray, ...]:
    if env == "mc":
        return (g.uniform(-0.6, -0.4, n),)
    return g.uniform(-np.pi, np.pi, n), g.uniform(-1.0, 1.0, n)


def rollout_returns(env: str, fn: Any, starts: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic batched episodes of ``fn: obs (B, n) -> a (B, m)``: ``(returns, steps)`` per episode."""
    _check_env(env)
    if env == "mc":
        out = mc_rollout(fn, starts[0])
        return out["returns"], out["steps"]
    r = pendulum_rollout(fn, starts[0], starts[1])["returns"]
    return r, np.full(r.size, PENDULUM_MAX_STEPS)


def ars(policy: Any, *, env: str = "mc", total_steps: int, n_delta: int = 4, n_top: int = 1,
        step_size: float = 0.018, delta_std: float = 0.1, seed: int | np.random.Generator = 0) -> TrainLog:
    """Augmented Random Search (Mania et al. 2018, basic V1-t), the derivative-free trainer of [P10]'s CH-ARS.

    Each update draws ``n_delta`` directions ``delta ~ N(0, I)``, runs one episode each for ``theta +- nu delta``
    (``nu`` = ``delta_std``; the pair shares its start), keeps the ``n_top`` (= b) best directions by
    ``max(r+, r-)`` and updates ``theta += alpha / (b sigma_R) sum (r+ - r-) delta`` (``alpha`` = ``step_size``,
    ``sigma_R`` the std of the 2b kept returns).

    Budget: the loop checks ``total_steps`` between updates, so it always runs at least one update and finishes the
    update in progress (as Mania et al.'s code and SB3's ``learn`` do): the steps used, reported in
    ``TrainLog.steps``, are ``>= total_steps`` and below ``total_steps + 2 n_delta H`` (``H`` the episode cap: 999
    Mountain Car, 200 Pendulum). Episodes end early at the goal, so the overshoot depends on the policy; e.g.
    ``total_steps=1`` or ``4000`` runs one update (about 7,400-8,000 Mountain Car steps).
    Trains ``policy`` in place (its parameters) and returns the :class:`TrainLog`.
    Defaults are the authors' CH-ARS hyper-parameters for Mountain Car.
    """
    _check_env(env)
    _check_policy(policy)
    total_steps = validation.positive_int(total_steps, "total_steps")
    n_delta = validation.positive_int(n_delta, "n_delta")
    n_top = validation.positive_int(n_top, "n_top", hi=n_delta)
    step_size, delta_std = positive_real(step_size, "step_size"), positive_real(delta_std, "delta_std")
    g = generator(seed)
    theta = policy.get_params()
    log = TrainLog()
    while log.steps < total_steps:
        delta = g.standard_normal((n_delta, theta.size))
        thetas = ars_candidates(theta, delta, delta_std=delta_std)  # (2 n_delta, d): + then -
        starts = tuple(np.tile(s, 2) for s in _random_starts(env, n_delta, g))
        r, steps = rollout_returns(env, functools.partial(_act_with, policy, thetas), starts)
        log.steps += int(steps.sum())
        theta = ars_update(theta, delta, r[:n_delta], r[n_delta:], step_size=step_size, n_top=n_top)
        log.returns.append(float(r.mean()))
    policy.set_params(theta)
    return log


def reinforce(policy: Any, *, env: str = "mc", total_steps: int, batch_episodes: int = 8, lr: float = 0.01,
              exploration_std: float | None = None, seed: int | np.random.Generator = 0) -> TrainLog:
    """REINFORCE (Williams 1992) with a Gaussian policy ``N(mu_theta(s), sigma^2)`` and a mean-return baseline.

    The policy-gradient trainer of [P10]'s CH-REINFORCE and MLP-REINFORCE agents.

    ``mu_theta`` is the policy's pre-clipping output (Chebyshev: ``C phi(z)``; MLP: the network), ``sigma`` =
    ``exploration_std`` (default: the policy's own ``exploration_std``, else 0.5) in normalised action units.
    Gradient ascent (Adam, ``lr``) on ``sum_episodes (G - mean G) sum_t log pi(a_t | s_t)`` over ``batch_episodes``
    episodes per update, until ``total_steps`` steps are used (checked between updates, like :func:`ars`: at least
    one update, and the one in progress is finished, so ``TrainLog.steps`` ends below
    ``total_steps + batch_episodes H``); gradients by hand in numpy (linear model or backpropagation through the tanh
    MLP). Trains ``policy`` in place.
    """
    _check_env(env)
    _check_policy(policy)
    total_steps = validation.positive_int(total_steps, "total_steps")
    batch_episodes = validation.int_at_least(batch_episodes, "batch_episodes", 2)
    lr = positive_real(lr, "lr")
    sigma = positive_real(exploration_std if exploration_std is not None else getattr(policy, "exploration_std", 0.5),
                          "exploration_std")
    g = generator(seed)
    theta = policy.get_params()
    opt = _Adam(theta.size, lr=lr)
    half = 0.5 * (policy.action_high - policy.action_low)[0]
    mid = 0.5 * (policy.action_high + policy.action_low)[0]
    log = TrainLog()
    while log.steps < total_steps:
        starts = _random_starts(env, batch_episodes, g)
        obs_buf, eps_buf = [], []

        def act(obs: np.ndarray) -> np.ndarray:
            mu = _mean_and_grad(policy, theta, obs)[0]
            eps = g.standard_normal(mu.shape)
            obs_buf.append(obs.copy())
            eps_buf.append(eps)
            return (mid + half * np.clip(mu + sigma * eps, -1.0, 1.0))[:, None]

        G, steps = rollout_returns(env, act, starts)
        T = len(obs_buf)
        alive = np.arange(T)[:, None] < steps[None, :]  # (T, B) steps that counted
        # d/dmu log N(u | mu, sigma^2) = (u - mu) / sigma^2 = eps / sigma, weighted by the advantage G - mean G
        upstream = (np.stack(eps_buf) / sigma * alive * reinforce_advantages(G)[None, :]).ravel() / batch_episodes
        grad = _mean_and_grad(policy, theta, np.concatenate(obs_buf), upstream)[1]
        assert grad is not None  # an upstream vector was given
        theta = theta + opt.step(grad)  # ascent
        log.steps += int(steps.sum())
        log.returns.append(float(G.mean()))
    policy.set_params(theta)
    return log


class _Adam:
    """Adam (Kingma & Ba 2015) for gradient ascent on one vector, betas (0.9, 0.999), eps 1e-8."""

    def __init__(self, n: int, *, lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = np.zeros(n)
        self.v = np.zeros(n)

    def step(self, grad: np.ndarray) -> np.ndarray:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.v = 0.999 * self.v + 0.001 * grad * grad
        mhat = self.m / (1 - 0.9**self.t)
        vhat = self.v / (1 - 0.999**self.t)
        return self.lr * mhat / (np.sqrt(vhat) + 1e-8)


def _mean_and_grad(policy: Any, theta: np.ndarray, obs: np.ndarray,
                   upstream: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Pre-clipping mean ``mu_theta(obs)`` (B,) and, given ``upstream`` (B,), the vector-Jacobian product
    ``sum_b upstream_b d mu_b / d theta`` for the Chebyshev (linear in phi) and MLP (tanh hidden) policies."""
    from icml26.papers.chebyshev_rl._policies import ChebyshevPolicy, MLPPolicy

    if isinstance(policy, ChebyshevPolicy):
        if policy.action_dim != 1:
            raise ValueError("reinforce supports action_dim == 1")
        phi = policy.features(obs)
        return phi @ theta, (None if upstream is None else upstream @ phi)
    if not isinstance(policy, MLPPolicy):
        raise TypeError(f"policy must be a ChebyshevPolicy or MLPPolicy, got {type(policy).__name__}")
    sizes = policy.sizes
    hs, offs = [policy.normalise(obs)], []
    o = 0
    for li, (fi, fo) in enumerate(zip(sizes[:-1], sizes[1:])):
        offs.append(o)
        h = hs[-1] @ theta[o:o + fi * fo].reshape(fo, fi).T + theta[o + fi * fo:o + fi * fo + fo]
        o += fi * fo + fo
        hs.append(np.tanh(h) if li < len(sizes) - 2 else h)
    mu = hs[-1][:, 0]
    if upstream is None:
        return mu, None
    grad = np.zeros_like(theta)
    delta = upstream[:, None]  # d loss / d pre-activation of the last layer
    for li in range(len(sizes) - 2, -1, -1):
        fi, fo, o = sizes[li], sizes[li + 1], offs[li]
        grad[o:o + fi * fo] = (delta.T @ hs[li]).ravel()
        grad[o + fi * fo:o + fi * fo + fo] = delta.sum(0)
        if li > 0:
            delta = (delta @ theta[o:o + fi * fo].reshape(fo, fi)) * (1.0 - hs[li] ** 2)
    return mu, grad
