"""Training runs of the [P10] claims: one agent (algorithm x policy class x seed) trained and evaluated.

Pure functions of their arguments (the same arguments give the same numbers), so that the claims of one run group
share them through ``ctx.shared``; nothing is cached here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.common import validation
from icml26.papers.chebyshev_rl._envs import (
    MC_OBS_HIGH,
    MC_OBS_LOW,
    PENDULUM_OBS_HIGH,
    PENDULUM_OBS_LOW,
    mc_starts,
    pendulum_rollout,
)
from icml26.papers.chebyshev_rl._optimal import policy_returns
from icml26.papers.chebyshev_rl._policies import ChebyshevPolicy, MLPPolicy
from icml26.papers.chebyshev_rl._trainers import ars, reinforce

__all__ = ["MC_ALGOS", "eval_starts", "make_policy", "pendulum_grid", "run_mc", "run_pendulum", "zero_torque_return",
           "best_known_search"]

MC_ALGOS = ("ars", "reinforce", "ppo", "ppo_zoo")


def eval_starts(n: int) -> np.ndarray:
    """``n`` of the paper's 100 equidistant evaluation starts, evenly picked (all 100 for ``n = 100``), so that the
    tabulated reference optimum covers them."""
    n = validation.positive_int(n, "n", hi=100)
    return mc_starts(100)[np.unique(np.linspace(0, 99, n).round().astype(int))]


def make_policy(kind: str, env: str, *, seed: int, degree: int = 3) -> ChebyshevPolicy | MLPPolicy:
    """A fresh Chebyshev (degree ``degree``) or MLP 64-64 policy for ``env`` (``"mc"`` or ``"pendulum"``); both see
    the observation normalised to [-1, 1] on the environment's observation box."""
    validation.choice(kind, "kind", ("chebyshev", "mlp"))
    validation.choice(env, "env", ("mc", "pendulum"))
    if env == "mc":
        low, high, amax = MC_OBS_LOW, MC_OBS_HIGH, 1.0
    else:
        low, high, amax = PENDULUM_OBS_LOW, PENDULUM_OBS_HIGH, 2.0
    if kind == "chebyshev":
        return ChebyshevPolicy(low, high, 1, degree=degree, action_low=-amax, action_high=amax)
    return MLPPolicy(low.size, 1, action_low=-amax, action_high=amax, seed=seed, obs_low=low, obs_high=high)


def _ppo(kind: str, env: str, steps: int, seed: int, zoo: bool) -> tuple[Any, int]:
    from icml26.papers.chebyshev_rl._sb3 import ZOO_MLP_PPO_HP, ppo, sb3_actor_params

    extra: dict[str, Any] = {"hyper": ZOO_MLP_PPO_HP, "n_envs": 1, "normalize": True} if zoo else {}
    model, act = ppo(kind, env=env, total_steps=steps, seed=seed, **extra)
    return act, sb3_actor_params(model)


def run_mc(algo: str, kind: str, seed: int, steps: int, n_starts: int) -> tuple[tuple[float, ...], int]:
    """Train ``kind`` with ``algo`` (ars | reinforce | ppo | ppo_zoo) on Mountain Car; returns (eval returns on the
    ``n_starts`` equidistant starts, actor parameter count). ``ppo`` uses the authors' CH-PPO settings for both
    policy classes; ``ppo_zoo`` (MLP only) rl-zoo's tuned MLP settings (one env, VecNormalize, gSDE)."""
    validation.choice(algo, "algo", MC_ALGOS)
    starts = eval_starts(n_starts)
    if algo in ("ppo", "ppo_zoo"):
        if algo == "ppo_zoo" and kind != "mlp":
            raise ValueError("ppo_zoo is rl-zoo's MLP baseline: kind must be 'mlp'")
        act, n_params = _ppo(kind, "mc", steps, seed, algo == "ppo_zoo")
        return tuple(policy_returns(act, starts).tolist()), n_params
    pol = make_policy(kind, "mc", seed=seed)
    trainer = ars if algo == "ars" else reinforce
    trainer(pol, env="mc", total_steps=steps, seed=seed)
    return tuple(policy_returns(pol, starts).tolist()), pol.n_params


def pendulum_grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """[P10]'s Pendulum protocol: an ``n x n`` grid of initial states theta in [-pi, pi], thetadot in [-1, 1]."""
    n = validation.positive_int(n, "n", hi=1000)
    th, thd = np.meshgrid(np.linspace(-np.pi, np.pi, n), np.linspace(-1.0, 1.0, n), indexing="ij")
    return th.ravel(), thd.ravel()


def zero_torque_return(grid: int) -> float:
    """The mean Pendulum-v1 return of the zero-torque policy over the ``grid x grid`` starts (a do-nothing floor)."""
    th, thd = pendulum_grid(grid)
    return float(pendulum_rollout(_zero_torque, th, thd)["returns"].mean())


def _zero_torque(obs: np.ndarray) -> np.ndarray:
    return np.zeros((obs.shape[0], 1))


def run_pendulum(kind: str, seed: int, steps: int, grid: int, algo: str = "ars") -> tuple[float, int]:
    """Train ``kind`` with ``algo`` (ars | ppo) on Pendulum-v1; returns (mean return over the ``grid x grid``
    starts, actor parameters). PPO uses the authors' CH-PPO settings (Mountain Car notebook) for both classes."""
    validation.choice(algo, "algo", ("ars", "ppo"))
    th, thd = pendulum_grid(grid)
    if algo == "ppo":
        act, n_params = _ppo(kind, "pendulum", steps, seed, False)
        return float(pendulum_rollout(act, th, thd)["returns"].mean()), n_params
    pol = make_policy(kind, "pendulum", seed=seed)
    ars(pol, env="pendulum", total_steps=steps, seed=seed)
    return float(pendulum_rollout(pol.act, th, thd)["returns"].mean()), pol.n_params


def best_known_search(n_starts: int, pop: int, iters: int) -> tuple[float, ...]:
    """The seeded (seed 0) global schedule search on the ``n_starts`` evaluation starts: with R* (Eq. A3) it gives
    the best known return per start, the baseline of [P10]'s regret in our claims."""
    from icml26.papers.chebyshev_rl._search import global_schedule_search

    x = eval_starts(n_starts)
    return tuple(global_schedule_search(x, pop=pop, iters=iters, n_elite=max(2, pop // 10), seed=0).tolist())
