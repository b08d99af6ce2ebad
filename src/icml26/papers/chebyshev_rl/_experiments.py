"""Training runs shared by the claim checks (cached per process: the same config and seed give the same numbers)."""

from __future__ import annotations

import functools

import numpy as np

from ._envs import (
    MC_OBS_HIGH,
    MC_OBS_LOW,
    PENDULUM_OBS_HIGH,
    PENDULUM_OBS_LOW,
    mc_starts,
    pendulum_rollout,
)
from ._optimal import policy_returns
from ._policies import ChebyshevPolicy, MLPPolicy
from ._trainers import ars, reinforce

__all__ = ["eval_starts", "global_schedule_search", "make_policy", "pendulum_grid", "richer_search", "run_mc", "run_pendulum"]


def eval_starts(n: int) -> np.ndarray:
    """``n`` of the paper's 100 equidistant evaluation starts, evenly picked (all 100 for ``n = 100``), so that the
    tabulated reference optimum covers them."""
    if not 1 <= n <= 100:
        raise ValueError(f"n must be in [1, 100], got {n}")
    return mc_starts(100)[np.unique(np.linspace(0, 99, n).round().astype(int))]


def make_policy(kind: str, env: str, *, seed: int, degree: int = 3):
    """A fresh Chebyshev (degree ``degree``) or MLP 64-64 policy for ``env`` (``"mc"`` or ``"pendulum"``); both see
    the observation normalised to [-1, 1] on the environment's observation box."""
    if env == "mc":
        low, high, amax = MC_OBS_LOW, MC_OBS_HIGH, 1.0
    else:
        low, high, amax = PENDULUM_OBS_LOW, PENDULUM_OBS_HIGH, 2.0
    if kind == "chebyshev":
        return ChebyshevPolicy(low, high, 1, degree=degree, action_low=-amax, action_high=amax)
    return MLPPolicy(low.size, 1, action_low=-amax, action_high=amax, seed=seed, obs_low=low, obs_high=high)


@functools.lru_cache(maxsize=256)
def run_mc(algo: str, kind: str, seed: int, steps: int, n_starts: int) -> tuple[tuple[float, ...], int]:
    """Train ``kind`` with ``algo`` (ars | reinforce | ppo | ppo_zoo) on Mountain Car; returns (eval returns on the
    ``n_starts`` equidistant starts, actor parameter count). ``ppo`` uses the authors' CH-PPO settings for both
    policy classes; ``ppo_zoo`` (MLP only) rl-zoo's tuned MLP settings (one env, VecNormalize, gSDE)."""
    starts = eval_starts(n_starts)
    if algo in ("ppo", "ppo_zoo"):
        from ._sb3 import ZOO_MLP_PPO_HP, ppo, sb3_actor_params

        if algo == "ppo_zoo" and kind != "mlp":
            raise ValueError("ppo_zoo is rl-zoo's MLP baseline: kind must be 'mlp'")
        zoo = {"hyper": ZOO_MLP_PPO_HP, "n_envs": 1, "normalize": True} if algo == "ppo_zoo" else {}
        model, act = ppo(kind, env="mc", total_steps=steps, seed=seed, **zoo)
        return tuple(policy_returns(act, starts).tolist()), sb3_actor_params(model)
    pol = make_policy(kind, "mc", seed=seed)
    if algo == "ars":
        ars(pol, env="mc", total_steps=steps, seed=seed)
    elif algo == "reinforce":
        reinforce(pol, env="mc", total_steps=steps, seed=seed)
    else:
        raise ValueError(f"algo must be ars, reinforce or ppo, got {algo!r}")
    return tuple(policy_returns(pol, starts).tolist()), pol.n_params


def pendulum_grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """[P10]'s Pendulum protocol: an ``n x n`` grid of initial states theta in [-pi, pi], thetadot in [-1, 1]."""
    th, thd = np.meshgrid(np.linspace(-np.pi, np.pi, n), np.linspace(-1.0, 1.0, n), indexing="ij")
    return th.ravel(), thd.ravel()


@functools.lru_cache(maxsize=64)
def run_pendulum(kind: str, seed: int, steps: int, grid: int, algo: str = "ars") -> tuple[float, int]:
    """Train ``kind`` with ``algo`` (ars | ppo) on Pendulum-v1; returns (mean return over the ``grid x grid``
    starts, actor parameters). PPO uses the authors' CH-PPO settings (Mountain Car notebook) for both classes."""
    th, thd = pendulum_grid(grid)
    if algo == "ppo":
        from ._sb3 import ppo, sb3_actor_params

        model, act = ppo(kind, env="pendulum", total_steps=steps, seed=seed)
        return float(pendulum_rollout(act, th, thd)["returns"].mean()), sb3_actor_params(model)
    if algo != "ars":
        raise ValueError(f"algo must be ars or ppo, got {algo!r}")
    pol = make_policy(kind, "pendulum", seed=seed)
    ars(pol, env="pendulum", total_steps=steps, seed=seed)
    return float(pendulum_rollout(pol.act, th, thd)["returns"].mean()), pol.n_params


def richer_search(x0: np.ndarray, params: np.ndarray, *, grid: tuple[int, int, int, int, int]) -> np.ndarray:
    """Best return per start of the 5-parameter family ``a = clip(kappa(eps) v (1 + c|v|/0.07 + b x))`` (Eq. A3 plus
    a position term ``b x``) on a dense grid around the reference parameters ``(k1, e_th, k2, c)`` (rows of
    ``params``): ``k1 +- 0.3``, ``e_th +- 0.15``, ``k2 +- 0.3``, ``c +- 0.3``, ``b in [-0.5, 0.5]``, with ``grid``
    points per axis (odd counts contain the reference itself)."""
    from ._envs import mc_rollout
    from ._optimal_a3 import eq_a3

    axes = [np.linspace(-h, h, n) if n > 1 else np.zeros(1) for h, n in zip((0.3, 0.15, 0.3, 0.3, 0.5), grid)]
    D = np.array(np.meshgrid(*axes, indexing="ij")).reshape(5, -1).T  # (N, 5)
    P = (params[:, None, :] + D[None, :, :4]).reshape(-1, 4)
    P[:, 0] = np.maximum(P[:, 0], 0.0)
    b = np.tile(D[:, 4], x0.size)
    R = mc_rollout(lambda o: eq_a3(o, P, b), np.repeat(x0, D.shape[0]))["returns"].reshape(x0.size, D.shape[0])
    return R.max(1)


def _schedule_policy(Q: np.ndarray, knots: np.ndarray):
    """``a = clip(k(eps) v)`` with ``k`` piecewise linear in the normalised energy ``eps = sin(3x) + 1.5 v^2/0.0025``
    (clipped to the knots' range), one row of knot gains ``Q`` per episode."""
    rows = np.arange(Q.shape[0])

    def act(obs: np.ndarray) -> np.ndarray:
        x, v = obs[:, 0].astype(np.float64), obs[:, 1].astype(np.float64)
        eps = np.clip(np.sin(3.0 * x) + 1.5 * v * v / 0.0025, knots[0], knots[-1])
        j = np.clip(np.searchsorted(knots, eps) - 1, 0, knots.size - 2)
        t = (eps - knots[j]) / (knots[j + 1] - knots[j])
        return np.clip((Q[rows, j] * (1.0 - t) + Q[rows, j + 1] * t) * v, -1.0, 1.0)[:, None]

    return act


def global_schedule_search(x0: np.ndarray, *, n_knots: int = 6, pop: int = 200, iters: int = 12, n_elite: int = 20,
                           seed: int = 0) -> np.ndarray:
    """Best return per start found by a seeded cross-entropy search over energy-dependent gain schedules
    ``a = clip(k(eps) v)`` (``n_knots`` gains, piecewise linear in ``eps`` on [-1, 1]), started from the best constant
    gain ``a = k v`` (k in [2, 14]). A global check of the reference optimum R* (Eq. A3), not a local one."""
    x0 = np.asarray(x0, dtype=np.float64).ravel()
    if n_knots < 2 or pop < 2 or not 1 <= n_elite <= pop or iters < 1:
        raise ValueError("need n_knots >= 2, pop >= 2, 1 <= n_elite <= pop and iters >= 1")
    from ._envs import mc_rollout

    knots = np.linspace(-1.0, 1.0, n_knots)
    ks = np.linspace(2.0, 14.0, 121)
    R0 = mc_rollout(lambda o: np.clip(np.tile(ks, x0.size) * o[:, 1], -1, 1)[:, None],
                    np.repeat(x0, ks.size))["returns"].reshape(x0.size, ks.size)
    best = R0.max(1)
    mu = np.repeat(ks[R0.argmax(1)][:, None], n_knots, axis=1)  # (S, K)
    sd = np.full_like(mu, 2.0)
    rng = np.random.default_rng(seed)
    for _ in range(iters):
        Q = np.maximum(mu[:, None, :] + sd[:, None, :] * rng.standard_normal((x0.size, pop, n_knots)), 0.0)
        R = mc_rollout(_schedule_policy(Q.reshape(-1, n_knots), knots),
                       np.repeat(x0, pop))["returns"].reshape(x0.size, pop)
        elite = np.take_along_axis(Q, np.argsort(-R, axis=1)[:, :n_elite, None], axis=1)
        mu, sd = elite.mean(1), elite.std(1) + 0.05
        best = np.maximum(best, R.max(1))
    return best
