"""Vectorised numpy copies of gymnasium's ``MountainCarContinuous-v0`` and ``Pendulum-v1`` and batched rollouts.

The copies reproduce gymnasium 1.x bit for bit (``tests/papers/chebyshev_rl/test_envs.py`` checks parity step by step
against gymnasium), including its mixed float32/float64 arithmetic: the state is stored as float32 after every step,
the first step runs on the float64 reset state (and its goal test too, before the state is cast to float32), and a
clipped action (a Python float) takes a float64 path.

Where they differ from gymnasium on purpose: a NaN or infinite action raises ``ValueError`` here
(:func:`icml26.common.rl.batched_rollout`), while gymnasium steps on: in Mountain Car a NaN action makes the state and
every later reward NaN, and ``+-inf`` is clipped to ``+-1`` in the dynamics but costs a reward of ``-inf``; in
Pendulum a NaN torque makes the state NaN and ``+-inf`` is clipped to ``+-2``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from icml26.common import validation
from icml26.common.rl import batched_rollout

__all__ = [
    "MC_MAX_STEPS",
    "MC_OBS_HIGH",
    "MC_OBS_LOW",
    "PENDULUM_MAX_STEPS",
    "PENDULUM_OBS_HIGH",
    "PENDULUM_OBS_LOW",
    "as_action_fn",
    "mc_rollout",
    "mc_starts",
    "pendulum_rollout",
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
_MAX_STARTS = 10_000_000  # mc_starts: more starts than any evaluation needs (refused before allocating)

Policy = Callable[[np.ndarray], Any]  # obs (B, n) float32 -> actions (B, 1) or (B,)


def mc_starts(n: int = 100) -> np.ndarray:
    """[P10]'s evaluation protocol: ``n`` equidistant start positions ``x0`` in ``[-0.6, -0.4]`` (v0 = 0)."""
    n = validation.positive_int(n, "n", hi=_MAX_STARTS)
    return np.linspace(-0.6, -0.4, n)


def as_action_fn(policy: Any) -> Policy:
    """The batched action function of ``policy``: its ``act`` method if it has one (ChebyshevPolicy, MLPPolicy),
    else ``policy`` itself if callable ``obs (B, n) -> actions``; otherwise TypeError (a helper of [P10]'s rollouts)."""
    act = getattr(policy, "act", None)
    if callable(act):
        return act
    if callable(policy):
        return policy
    raise TypeError(f"policy must be callable obs -> actions or have an act(obs) method, got {type(policy).__name__}")


class _MountainCar:
    """A batch of Mountain Car states ``(x, v)``; :meth:`step` mirrors gymnasium's scalar float semantics."""

    def __init__(self, x0: np.ndarray) -> None:
        self.x, self.v = x0, np.zeros_like(x0)  # float64 until the first step, then float32 (as gymnasium)

    def obs(self) -> np.ndarray:
        return np.stack([self.x, self.v], axis=1).astype(np.float32)

    def step(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x, v, a32 = self.x, self.v, action[:, 0]
        clipped = (a32 > 1.0) | (a32 < -1.0)
        cosine = _GRAV * np.cos((3 * x).astype(np.float64))  # 3 * x in x's dtype, then math.cos in float64
        f32 = a32 * np.float32(_POWER) - cosine.astype(np.float32)  # float32 action: float32 arithmetic
        f64 = np.clip(a32, -1.0, 1.0).astype(np.float64) * _POWER - cosine  # clipped action is a Python float
        if x.dtype == np.float64:  # first step: float64 state
            v = v + np.where(clipped, f64, f32.astype(np.float64))
        else:
            v = np.where(clipped, v + f64.astype(np.float32), v + f32)  # float32 += Python float: weak, float32
        v = np.clip(v, -_MAX_SPEED, _MAX_SPEED).astype(v.dtype)
        x = np.clip(x + v, _MIN_POS, _MAX_POS).astype(x.dtype)
        v = np.where((x == _MIN_POS) & (v < 0), 0.0, v).astype(v.dtype)
        goal = (x >= _GOAL) & (v >= 0)  # in the state's own dtype, before it is stored as float32
        reward = np.where(goal, 100.0, 0.0) - a32.astype(np.float64) ** 2 * 0.1
        self.x, self.v = x.astype(np.float32), v.astype(np.float32)
        return self.obs(), reward, goal


def mc_rollout(policy: Policy | Any, x0: Any, *, max_steps: int = MC_MAX_STEPS, record: bool = False) -> dict[str, Any]:
    """Run deterministic episodes of MountainCarContinuous-v0 from every ``x0`` (v0 = 0) in one batch.

    The Mountain Car environment of [P10] (a numpy copy of gymnasium's), used for training and all evaluation.

    Reward per step ``r = 100 [x >= 0.45 and v >= 0] - 0.1 a^2``; an episode ends at the goal or after ``max_steps``.
    Returns a dict with ``returns`` (B,), ``steps`` (B,) (steps taken), ``success`` (B,) and, if ``record``, the
    trajectories ``xs``/``vs``/``actions`` of shape (T, B). ``x0`` must lie on the track [-1.2, 0.6] and ``policy``
    return one finite action per row, shape (B, 1) or (B,); otherwise ValueError (gymnasium would step on with a
    NaN or infinite action: see the module docstring). ``policy`` is a callable ``obs (B, 2) -> actions`` or an
    object with ``act(obs)`` (a ChebyshevPolicy or MLPPolicy), else TypeError.
    """
    act = as_action_fn(policy)
    max_steps = validation.positive_int(max_steps, "max_steps")
    x = validation.real_array(x0, "x0", ndim=(0, 1)).ravel().copy()
    if np.any(x < _MIN_POS) or np.any(x > _MAX_POS):
        raise ValueError(f"x0 must lie within the track [{_MIN_POS}, {_MAX_POS}]")
    env = _MountainCar(x)
    out = batched_rollout(act, env.step, env.obs(), max_steps=max_steps, action_dtype=np.float32, record=record)
    res: dict[str, Any] = {"returns": out.returns, "steps": out.steps, "success": out.terminated}
    if record and out.observations is not None and out.actions is not None:
        res.update(xs=out.observations[..., 0], vs=out.observations[..., 1], actions=out.actions[..., 0])
    return res


def _angle_normalize(th: np.ndarray) -> np.ndarray:
    return ((th + np.pi) % (2 * np.pi)) - np.pi


class _Pendulum:
    """A batch of Pendulum-v1 states ``(theta, thetadot)`` (float64, as gymnasium keeps them)."""

    def __init__(self, th: np.ndarray, thd: np.ndarray) -> None:
        self.th, self.thd = th, thd

    def obs(self) -> np.ndarray:
        return np.stack([np.cos(self.th), np.sin(self.th), self.thd], axis=1).astype(np.float32)

    def step(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        u = np.clip(action[:, 0], -2.0, 2.0)
        th, thd = self.th, self.thd
        costs = _angle_normalize(th) ** 2 + 0.1 * thd**2 + (np.float32(0.001) * u**2).astype(np.float64)
        thd = np.clip(thd + (3 * 10.0 / 2 * np.sin(th) + (3.0 * u).astype(np.float64)) * 0.05, -8.0, 8.0)
        self.th, self.thd = th + thd * 0.05, thd
        return self.obs(), -costs, np.zeros(th.size, dtype=bool)


def pendulum_rollout(policy: Policy | Any, theta0: Any, thetadot0: Any, *, max_steps: int = PENDULUM_MAX_STEPS) -> dict[str, Any]:
    """Run deterministic Pendulum-v1 episodes (g = 10) from every ``(theta0, thetadot0)`` in one batch.

    The Pendulum-v1 environment of [P10]'s second benchmark (evaluated on a grid of initial states).

    Cost per step ``angle(theta)^2 + 0.1 thetadot^2 + 0.001 u^2``, reward = -cost, ``max_steps`` steps (no early end).
    Returns ``{"returns": (B,)}``. ``policy`` as in :func:`mc_rollout` (a callable or an object with ``act``).
    """
    act = as_action_fn(policy)
    max_steps = validation.positive_int(max_steps, "max_steps")
    th = validation.real_array(theta0, "theta0", ndim=(0, 1)).ravel().copy()
    thd = validation.real_array(thetadot0, "thetadot0", ndim=(0, 1)).ravel()
    if thd.size not in (1, th.size):
        raise ValueError(f"thetadot0 must be one value or one per theta0 ({th.size}), got {thd.size}")
    env = _Pendulum(th, np.broadcast_to(thd, th.shape).copy())
    out = batched_rollout(act, env.step, env.obs(), max_steps=max_steps, action_dtype=np.float32)
    return {"returns": out.returns}
