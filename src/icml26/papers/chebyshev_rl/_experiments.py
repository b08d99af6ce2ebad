"""Training runs shared by the claim checks (cached per process: the same config and seed give the same numbers)."""

from __future__ import annotations

import functools

import numpy as np

from ._envs import MC_OBS_HIGH, MC_OBS_LOW, PENDULUM_OBS_HIGH, PENDULUM_OBS_LOW, mc_starts, pendulum_rollout
from ._optimal import policy_returns
from ._policies import ChebyshevPolicy, MLPPolicy
from ._trainers import ars, reinforce

__all__ = ["make_policy", "run_mc", "run_pendulum", "pendulum_grid", "richer_search"]


def make_policy(kind: str, env: str, *, seed: int, degree: int = 3):
    """A fresh Chebyshev (degree ``degree``) or MLP 64-64 policy for ``env`` (``"mc"`` or ``"pendulum"``)."""
    if env == "mc":
        low, high, amax = MC_OBS_LOW, MC_OBS_HIGH, 1.0
    else:
        low, high, amax = PENDULUM_OBS_LOW, PENDULUM_OBS_HIGH, 2.0
    if kind == "chebyshev":
        return ChebyshevPolicy(low, high, 1, degree=degree, action_low=-amax, action_high=amax)
    return MLPPolicy(low.size, 1, action_low=-amax, action_high=amax, seed=seed)


@functools.lru_cache(maxsize=256)
def run_mc(algo: str, kind: str, seed: int, steps: int, n_starts: int) -> tuple[tuple[float, ...], int]:
    """Train ``kind`` with ``algo`` (ars | reinforce | ppo) on Mountain Car; returns (eval returns on the
    ``n_starts`` equidistant starts, actor parameter count)."""
    starts = mc_starts(n_starts)
    if algo == "ppo":
        from ._sb3 import ppo, sb3_actor_params

        model, act = ppo(kind, env="mc", total_steps=steps, seed=seed)
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
def run_pendulum(kind: str, seed: int, steps: int, grid: int) -> tuple[float, int]:
    """Train ``kind`` with ARS on Pendulum-v1; returns (mean return over the ``grid x grid`` starts, parameters)."""
    pol = make_policy(kind, "pendulum", seed=seed)
    ars(pol, env="pendulum", total_steps=steps, seed=seed)
    th, thd = pendulum_grid(grid)
    return float(pendulum_rollout(pol.act, th, thd)["returns"].mean()), pol.n_params


def richer_search(x0: np.ndarray, k: np.ndarray, c: np.ndarray, *, n_k: int, n_c: int, n_b: int) -> np.ndarray:
    """Best return per start of the 3-parameter family ``a = clip(k v (1 + c |v|/0.07 + b x))`` on a dense grid
    around the reference gains (``k +- 0.3``, ``c +- 0.3``, ``b in [-0.5, 0.5]``); contains Eq. (A2) at b = 0."""
    from ._envs import mc_rollout

    dk, dc, b = np.linspace(-0.3, 0.3, n_k), np.linspace(-0.3, 0.3, n_c), np.linspace(-0.5, 0.5, n_b)
    DK, DC, B = [a.ravel() for a in np.meshgrid(dk, dc, b, indexing="ij")]
    K = (k[:, None] + DK).ravel()
    C = (c[:, None] + DC).ravel()
    Bf = np.tile(B, x0.size)

    def pol(o: np.ndarray) -> np.ndarray:
        v = o[:, 1].astype(float)
        return np.clip(K * v * (1.0 + C * np.abs(v) / 0.07 + Bf * o[:, 0]), -1.0, 1.0)[:, None]

    R = mc_rollout(pol, np.repeat(x0, DK.size))["returns"].reshape(x0.size, DK.size)
    return R.max(1)
