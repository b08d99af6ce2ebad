"""Vectorised numpy copies of gymnasium's ``MountainCarContinuous-v0`` and ``Pendulum-v1`` and batched rollouts.

The copies reproduce gymnasium 1.x bit for bit (``tests/papers/chebyshev_rl/test_envs.py`` checks parity step by step),
including its mixed float32/float64 arithmetic: the state is stored as float32 after every step, the first step runs on
the float64 reset state, and a clipped action (a Python float) takes a float64 path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "MC_MAX_STEPS",
    "MC_OBS_HIGH",
    "MC_OBS_LOW",
    "PENDULUM_MAX_STEPS",
    "PENDULUM_OBS_HIGH",
    "PENDULUM_OBS_LOW",
    "mc_rollout",
    "mc_rollout_gym",
    "mc_starts",
    "pendulum_rollout",
    "pendulum_rollout_gym",
]

# Mountain Car constants (gymnasium continuous_mountain_car.py)
MC_OBS_LOW = np.array([-1.2, -0.07])
MC_OBS_HIGH = np.array([0.6, 0.07])
MC_MAX_STEPS = 999
_POWER, _GRAV, _MAX_SPEED, _MIN_POS, _MAX_POS, _GOAL = 0.0015, 0.0025, 0.07, -1.2, 0.6, 0.45
# Pendulum constants (gymnasium pendulum.py, g = 10)
PENDULUM_OBS_LOW = np.array([-1.0, -1.0, -8.0])
PENDULUM_OBS_HIGH = np.array([1.0, 1.0, 8.0])
PENDULUM_MAX_STEPS = 200

Policy = Callable[[np.ndarray], np.ndarray]  # obs (B, n) float32 -> actions (B, 1) or (B,)


def mc_starts(n: int = 100) -> np.ndarray:
    """[P10]'s evaluation protocol: ``n`` equidistant start positions ``x0`` in ``[-0.6, -0.4]`` (v0 = 0)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return np.linspace(-0.6, -0.4, n)


def _check_max_steps(max_steps: Any) -> int:
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)):
        raise TypeError(f"max_steps must be an int, got {max_steps!r}")
    if max_steps < 1:
        raise ValueError(f"max_steps must be >= 1, got {max_steps}")
    return int(max_steps)


def _as_action_fn(policy: Any) -> Policy:
    """The batched action function of ``policy``: its ``act`` method if it has one (ChebyshevPolicy, MLPPolicy),
    else ``policy`` itself if callable ``obs (B, n) -> actions``; otherwise TypeError."""
    act = getattr(policy, "act", None)
    if callable(act):
        return act
    if callable(policy):
        return policy
    raise TypeError(f"policy must be callable obs -> actions or have an act(obs) method, got {type(policy).__name__}")


def _actions(policy: Policy, obs: np.ndarray) -> np.ndarray:
    """The policy's actions for ``obs`` (B, n) as float32 (B,): shape (B, 1) or (B,), finite, else ValueError."""
    a = np.asarray(policy(obs), dtype=np.float32)
    B = obs.shape[0]
    if a.shape not in ((B,), (B, 1)):
        raise ValueError(f"policy must return one action per row, shape ({B}, 1) or ({B},), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("policy returned non-finite actions")
    return a.reshape(B)


def _mc_step(x: np.ndarray, v: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of the dynamics on arrays, mirroring gymnasium's scalar float semantics (see module docstring)."""
    a32 = a.astype(np.float32)
    clipped = (a32 > 1.0) | (a32 < -1.0)
    cosine = _GRAV * np.cos((3 * x).astype(np.float64))  # 3 * x in x's dtype, then math.cos in float64
    f32 = a32 * np.float32(_POWER) - cosine.astype(np.float32)  # float32 action: float32 arithmetic
    f64 = np.clip(a32, -1.0, 1.0).astype(np.float64) * _POWER - cosine  # clipped action is a Python float
    if x.dtype == np.float64:  # first step: float64 state
        dv = np.where(clipped, f64, f32.astype(np.float64))
        v = v + dv
    else:
        v = np.where(clipped, v + f64.astype(np.float32), v + f32)  # float32 += Python float: weak, float32
    v = np.clip(v, -_MAX_SPEED, _MAX_SPEED).astype(v.dtype)
    x = x + v
    x = np.clip(x, _MIN_POS, _MAX_POS).astype(x.dtype)
    v = np.where((x == _MIN_POS) & (v < 0), 0.0, v).astype(v.dtype)
    return x.astype(np.float32), v.astype(np.float32), a32


def mc_rollout(policy: Policy | Any, x0: Any, *, max_steps: int = MC_MAX_STEPS, record: bool = False) -> dict[str, Any]:
    """Run deterministic episodes of MountainCarContinuous-v0 from every ``x0`` (v0 = 0) in one batch.

    The Mountain Car environment of [P10] (a numpy copy of gymnasium's), used for training and all evaluation.

    Reward per step ``r = 100 [x >= 0.45 and v >= 0] - 0.1 a^2``; an episode ends at the goal or after ``max_steps``.
    Returns a dict with ``returns`` (B,), ``steps`` (B,) (steps taken), ``success`` (B,) and, if ``record``, the
    trajectories ``xs``/``vs``/``actions`` of shape (T, B). ``x0`` must lie on the track [-1.2, 0.6] and ``policy``
    return one finite action per row, shape (B, 1) or (B,); otherwise ValueError. ``policy`` is a callable
    ``obs (B, 2) -> actions`` or an object with ``act(obs)`` (a ChebyshevPolicy or MLPPolicy), else TypeError.
    """
    policy = _as_action_fn(policy)
    max_steps = _check_max_steps(max_steps)
    x = np.asarray(x0, dtype=np.float64).ravel().copy()
    if x.size == 0 or not np.all(np.isfinite(x)) or np.any(x < _MIN_POS) or np.any(x > _MAX_POS):
        raise ValueError(f"x0 must be non-empty, finite and within the track [{_MIN_POS}, {_MAX_POS}]")
    v = np.zeros_like(x)
    B = x.size
    ret = np.zeros(B)
    done = np.zeros(B, dtype=bool)
    steps = np.zeros(B, dtype=np.int64)
    traj: dict[str, list[np.ndarray]] = {"xs": [], "vs": [], "actions": []}
    for _ in range(max_steps):
        obs = np.stack([x, v], axis=1).astype(np.float32)
        a = _actions(policy, obs)
        xn, vn, a32 = _mc_step(x, v, a)
        goal = (xn >= _GOAL) & (vn >= 0)
        r = np.where(goal, 100.0, 0.0) - a32.astype(np.float64) ** 2 * 0.1
        live = ~done
        ret += np.where(live, r, 0.0)
        steps += live
        if record:
            traj["xs"].append(np.where(live, xn, np.nan))
            traj["vs"].append(np.where(live, vn, np.nan))
            traj["actions"].append(np.where(live, a32, np.nan))
        done |= goal
        x, v = xn, vn
        if done.all():
            break
    out: dict[str, Any] = {"returns": ret, "steps": steps, "success": done.copy()}
    if record:
        out.update({k: np.array(vals) for k, vals in traj.items()})
    return out


def _angle_normalize(th: np.ndarray) -> np.ndarray:
    return ((th + np.pi) % (2 * np.pi)) - np.pi


def pendulum_rollout(policy: Policy | Any, theta0: Any, thetadot0: Any, *, max_steps: int = PENDULUM_MAX_STEPS) -> dict[str, Any]:
    """Run deterministic Pendulum-v1 episodes (g = 10) from every ``(theta0, thetadot0)`` in one batch.

    The Pendulum-v1 environment of [P10]'s second benchmark (evaluated on a grid of initial states).

    Cost per step ``angle(theta)^2 + 0.1 thetadot^2 + 0.001 u^2``, reward = -cost, ``max_steps`` steps (no early end).
    Returns ``{"returns": (B,)}``. ``policy`` as in :func:`mc_rollout` (a callable or an object with ``act``).
    """
    policy = _as_action_fn(policy)
    max_steps = _check_max_steps(max_steps)
    th = np.asarray(theta0, dtype=np.float64).ravel().copy()
    thd = np.broadcast_to(np.asarray(thetadot0, dtype=np.float64).ravel(), th.shape).copy()
    if th.size == 0 or not (np.all(np.isfinite(th)) and np.all(np.isfinite(thd))):
        raise ValueError("theta0 and thetadot0 must be non-empty and finite")
    ret = np.zeros(th.size)
    for _ in range(max_steps):
        obs = np.stack([np.cos(th), np.sin(th), thd], axis=1).astype(np.float32)
        u = np.clip(_actions(policy, obs), -2.0, 2.0)
        costs = _angle_normalize(th) ** 2 + 0.1 * thd**2 + (np.float32(0.001) * u**2).astype(np.float64)
        thd = thd + (3 * 10.0 / 2 * np.sin(th) + (3.0 * u).astype(np.float64)) * 0.05
        thd = np.clip(thd, -8.0, 8.0)
        th = th + thd * 0.05
        ret -= costs
    return {"returns": ret}


def mc_rollout_gym(policy: Policy, x0: float, *, max_steps: int = MC_MAX_STEPS) -> dict[str, Any]:
    """Reference: one episode of gymnasium's own ``MountainCarContinuous-v0`` from ``x0`` (for parity checks)."""
    import gymnasium as gym

    policy = _as_action_fn(policy)
    env = gym.make("MountainCarContinuous-v0", max_episode_steps=max_steps)
    obs, _ = env.reset(seed=0, options={"low": float(x0), "high": float(x0)})
    ret, steps, xs, acts = 0.0, 0, [], []
    while True:
        a = np.asarray(policy(obs[None, :]), dtype=np.float32).reshape(-1)
        obs, r, term, trunc, _ = env.step(a)
        ret += float(r)
        steps += 1
        xs.append(obs.copy())
        acts.append(a[0])
        if term or trunc:
            break
    env.close()
    return {"returns": ret, "steps": steps, "success": bool(term), "obs": np.array(xs), "actions": np.array(acts)}


def pendulum_rollout_gym(policy: Policy, theta0: float, thetadot0: float, *, max_steps: int = PENDULUM_MAX_STEPS) -> float:
    """Reference: the return of one gymnasium ``Pendulum-v1`` episode from the state ``(theta0, thetadot0)``."""
    import gymnasium as gym

    policy = _as_action_fn(policy)
    env = gym.make("Pendulum-v1", max_episode_steps=max_steps)
    env.reset(seed=0)
    env.unwrapped.state = np.array([theta0, thetadot0], dtype=np.float64)
    obs = env.unwrapped._get_obs()
    ret = 0.0
    for _ in range(max_steps):
        a = np.asarray(policy(obs[None, :]), dtype=np.float32).reshape(-1)
        obs, r, term, trunc, _ = env.step(a)
        ret += float(r)
        if term or trunc:
            break
    env.close()
    return ret
