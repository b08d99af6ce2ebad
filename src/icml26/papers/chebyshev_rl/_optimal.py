"""The reference optimal control for MountainCarContinuous-v0 and the regret protocol of [P10].

Derivation (ours; the paper's closed form was not available to us, see the card). With ``E = v^2/2 + (g/3) sin 3x``
(``g = 0.0025``) the continuous-time dynamics give ``dE/dt = p a v`` (``p = 0.0015``): the controller must raise E by
``dE = E(goal) - E(x0)`` while paying ``0.1 sum a_t^2``. For a given velocity profile, Cauchy-Schwarz gives
``sum a_t^2 >= (dE/p)^2 / sum v_t^2`` with equality iff ``a_t = k v_t`` (Eq. A1): pump in phase with the velocity,
with a gain ``k(x0)`` just large enough to reach the goal before the 999-step limit (a smaller gain never arrives,
a larger one pays more). Because sum v_t^2 grows as the swings grow, spending a little more at high speed pays
(the Pontryagin co-state of v grows along the trajectory); we capture that with one more per-start parameter,

    a = clip(k v (1 + c |v| / v_max), -1, 1),   v_max = 0.07,                                    (Eq. A2)

and choose ``(k, c)`` per start by a dense grid search followed by a local refinement on the exact dynamics.
``c = 0`` recovers Eq. (A1).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ._envs import mc_rollout, mc_starts

__all__ = ["optimal_gains", "optimal_mountain_car_policy", "optimal_mountain_car_return", "regret",
           "policy_returns", "eq_a2"]

_VMAX = 0.07


def eq_a2(obs: np.ndarray, k: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Eq. (A2): ``clip(k v (1 + c |v| / 0.07), -1, 1)`` for observations ``(B, 2)`` and per-row gains."""
    v = np.asarray(obs, dtype=float)[:, 1]
    return np.clip(k * v * (1.0 + c * np.abs(v) / _VMAX), -1.0, 1.0)[:, None]


def _grid_returns(x0: np.ndarray, K: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Returns of Eq. (A2) for every start (rows) and every (k, c) pair (columns)."""
    X = np.repeat(x0, K.size)
    Kf, Cf = np.tile(K, x0.size), np.tile(C, x0.size)
    return mc_rollout(lambda o: eq_a2(o, Kf, Cf), X)["returns"].reshape(x0.size, K.size)


@functools.lru_cache(maxsize=64)
def _optimal_gains_cached(x0: tuple[float, ...], fine: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(x0, dtype=float)
    # stage 1: Eq. (A1) (c = 0), dense 1-D grid over k
    ks = np.linspace(2.0, 14.0, 601 if fine else 121)
    R = _grid_returns(x, ks, np.zeros_like(ks))
    k = ks[R.argmax(1)]
    c = np.zeros_like(k)
    best = R.max(1)
    # stage 2/3: 2-D windows around the incumbent, coarse then fine (per start)
    windows = [(1.0, 0.02, np.linspace(-0.5, 1.5, 21)), (0.04, 0.005, np.linspace(-0.1, 0.1, 21))] if fine else \
              [(1.0, 0.1, np.linspace(-0.5, 1.5, 9))]
    for half, step, dcs in windows:
        dks = np.arange(-half, half + step / 2, step)
        DK, DC = [a.ravel() for a in np.meshgrid(dks, dcs, indexing="ij")]
        X = np.repeat(x, DK.size)
        Kf = (k[:, None] + DK[None, :]).ravel()
        c_base = c[:, None] if half < 1.0 else np.zeros((x.size, 1))  # first window: absolute c, then relative
        Cf = (c_base + DC[None, :]).ravel()
        Rw = mc_rollout(lambda o: eq_a2(o, Kf, Cf), X)["returns"].reshape(x.size, DK.size)
        j = Rw.argmax(1)
        better = Rw[np.arange(x.size), j] > best
        k = np.where(better, Kf.reshape(x.size, -1)[np.arange(x.size), j], k)
        c = np.where(better, Cf.reshape(x.size, -1)[np.arange(x.size), j], c)
        best = np.maximum(best, Rw[np.arange(x.size), j])
    return k, c, best


def _check_starts(x0: Any) -> np.ndarray:
    x = np.atleast_1d(np.asarray(x0, dtype=float))
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("x0 must be a finite scalar or 1-D array of start positions")
    if np.any(x < -1.2) or np.any(x > 0.6):
        raise ValueError(f"x0 must lie in the track [-1.2, 0.6], got range [{x.min()}, {x.max()}]")
    return x


def optimal_gains(x0: Any, *, fine: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-start gains ``(k, c)`` of Eq. (A2) and the resulting returns, by grid search on the exact dynamics.

    ``fine=False`` uses a coarse grid (for quick checks; returns are then slightly lower). Results are cached.
    """
    x = _check_starts(x0)
    k, c, best = _optimal_gains_cached(tuple(float(v) for v in x), bool(fine))
    return k.copy(), c.copy(), best.copy()


def optimal_mountain_car_return(x0: Any, *, fine: bool = True) -> np.ndarray:
    """The reference optimal return ``R*(x0)`` of MountainCarContinuous-v0 from ``(x0, v=0)`` (Eq. A2, see module)."""
    return optimal_gains(x0, fine=fine)[2]


def optimal_mountain_car_policy(x0: float, *, fine: bool = True) -> Callable[[np.ndarray], np.ndarray]:
    """The reference optimal feedback law for the start ``x0``: ``obs (B, 2) -> a (B, 1)`` by Eq. (A2)."""
    k, c, _ = optimal_gains([x0], fine=fine)
    return lambda obs: eq_a2(np.atleast_2d(obs), k[0], c[0])


def policy_returns(policy: Any, starts: Any) -> np.ndarray:
    """Deterministic returns of ``policy`` (an object with ``act`` or a callable ``obs (B, 2) -> (B, 1)``)."""
    fn = policy.act if hasattr(policy, "act") else policy
    return mc_rollout(fn, _check_starts(starts))["returns"]


def regret(policy: Any, starts: Any = None, *, fine: bool = True) -> float:
    """[P10]'s regret: ``mean_{x0 in starts} (R*(x0) - R_pi(x0))``; ``starts`` defaults to 100 equidistant x0 in
    ``[-0.6, -0.4]``. ``policy`` has ``act(obs)`` or is a callable ``obs (B, 2) -> actions (B, 1)``."""
    x = mc_starts(100) if starts is None else _check_starts(starts)
    return float(np.mean(optimal_mountain_car_return(x, fine=fine) - policy_returns(policy, x)))
