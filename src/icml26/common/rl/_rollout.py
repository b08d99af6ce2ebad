"""Batched episodes: one policy call and one environment step per time step for ``B`` episodes at once.

The environment is a ``step`` function over the whole batch (a vectorised simulator, or a loop over gymnasium
environments): ``step(actions (B, m)) -> (observations (B, n), rewards (B,), terminated (B,))``. Episodes that
terminated keep being stepped (a vectorised simulator cannot skip rows) but earn nothing more; the loop stops when
every episode has terminated or after ``max_steps`` steps (truncation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common import validation

__all__ = ["Rollout", "batched_rollout"]

Step = Callable[[np.ndarray], tuple[Any, Any, Any]]


@dataclass(frozen=True)
class Rollout:
    """What :func:`batched_rollout` returns: per episode ``returns`` (B,) float64, ``steps`` (B,) (steps that
    counted: up to and including the terminating one) and ``terminated`` (B,); with ``record``, per time step
    ``observations`` (T, B, n) (after the step), ``actions`` (T, B, m) and ``rewards`` (T, B), NaN once an episode
    has ended (``None`` without ``record``)."""

    returns: np.ndarray
    steps: np.ndarray
    terminated: np.ndarray
    observations: np.ndarray | None = None
    actions: np.ndarray | None = None
    rewards: np.ndarray | None = None


def _actions(policy: Callable[[np.ndarray], Any], obs: np.ndarray, action_dim: int, dtype: Any) -> np.ndarray:
    a = np.asarray(policy(obs), dtype=dtype)
    b = obs.shape[0]
    if a.shape == (b,) and action_dim == 1:
        a = a[:, None]
    if a.shape != (b, action_dim):
        want = f"({b}, {action_dim})" + (f" or ({b},)" if action_dim == 1 else "")
        raise ValueError(f"policy must return one action per row, shape {want}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("policy returned non-finite actions (NaN or inf)")
    return a


def batched_rollout(policy: Callable[[np.ndarray], Any], step: Step, observations: Any, *, max_steps: int,
                    action_dim: int = 1, action_dtype: Any = np.float64, record: bool = False) -> Rollout:
    """Run ``B`` episodes in lock-step until all have terminated or ``max_steps`` steps have passed.

    Args:
        policy: ``obs (B, n) -> actions (B, action_dim)`` (``(B,)`` accepted when ``action_dim == 1``); the actions
            are cast to ``action_dtype`` and must be finite (``ValueError`` otherwise: no NaN enters the dynamics).
        step: the batched environment (see the module docstring); it receives ``(B, action_dim)`` actions.
        observations: the initial observations ``(B, n)``, as the environment gives them (any dtype).
        max_steps: the step limit (>= 1).
        action_dim: the number of action components ``m``.
        action_dtype: the dtype the actions are cast to before ``step`` (e.g. float32 for gymnasium's Box).
        record: keep the trajectories (see :class:`Rollout`).

    Returns:
        A :class:`Rollout`; ``returns[i]`` is the sum of episode ``i``'s rewards up to its end.
    """
    max_steps = validation.positive_int(max_steps, "max_steps")
    action_dim = validation.positive_int(action_dim, "action_dim")
    obs = np.asarray(observations)
    if obs.ndim != 2 or obs.shape[0] == 0:
        raise ValueError(f"observations must be (B, n) with B >= 1, got shape {obs.shape}")
    n = obs.shape[0]
    ret = np.zeros(n)
    done = np.zeros(n, dtype=bool)
    steps = np.zeros(n, dtype=np.int64)
    traj: dict[str, list[np.ndarray]] = {"observations": [], "actions": [], "rewards": []}
    for _ in range(max_steps):
        a = _actions(policy, obs, action_dim, action_dtype)
        nxt, r, term = step(a)
        r, term = np.asarray(r, dtype=np.float64), np.asarray(term, dtype=bool)
        live = ~done
        ret += np.where(live, r, 0.0)
        steps += live
        if record:
            nxt_arr = np.asarray(nxt)
            traj["observations"].append(np.where(live[:, None], nxt_arr, np.nan))
            traj["actions"].append(np.where(live[:, None], a, np.nan))
            traj["rewards"].append(np.where(live, r, np.nan))
        done |= term
        obs = np.asarray(nxt)
        if done.all():
            break
    if not record:
        return Rollout(ret, steps, done.copy())
    rec = {k: np.array(v) for k, v in traj.items()}
    return Rollout(ret, steps, done.copy(), rec["observations"], rec["actions"], rec["rewards"])
