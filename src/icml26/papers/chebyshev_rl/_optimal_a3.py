"""The two-phase energy-scheduled reference optimum for MountainCarContinuous-v0 (Eq. A3, ours) and its search.

Why two phases. The left wall (x = -1.2) sets v = 0, so the normalised energy ``eps = sin 3x + 3 v^2 / (2 g)``
(``g = 0.0025``) can never exceed ``eps_wall = sin(-3.6) = 0.44`` before the last pass, while the goal needs
``eps >= sin(1.35) = 0.98``. The control problem therefore splits into (i) *pumping* up to the wall's energy, which
can be spread over many swings at a small gain (its cost falls with the gain, since by Cauchy-Schwarz
``sum a^2 >= (dE/p)^2 / sum v^2``), and (ii) one *final pass* from the wall to the goal that must gain the remaining
energy in a single half-swing (a large gain). Eq. (A2) uses one gain for both and so pumps too hard. Eq. (A3):

    a = clip(kappa(eps) v (1 + c |v| / 0.07), -1, 1),   kappa = k1 if eps < e_th else k2,            (Eq. A3)

with per-start ``(k1, e_th, k2, c)``. ``e_th`` below every reachable energy (``e_th = -2``) gives Eq. (A2) with gain
``k2``, so the search (seeded with the Eq. A2 optimum) never does worse than Eq. (A2).
"""

from __future__ import annotations

import itertools

import numpy as np

from icml26.papers.chebyshev_rl._envs import mc_rollout

__all__ = ["A3_NAMES", "eq_a3", "search_a3"]

A3_NAMES = ("k1", "e_th", "k2", "c")
_G, _VMAX = 0.0025, 0.07


def eq_a3(obs: np.ndarray, params: np.ndarray, b: np.ndarray | float = 0.0) -> np.ndarray:
    """Eq. (A3) for observations ``(B, 2)`` and per-row parameters ``(B, 4)`` = ``(k1, e_th, k2, c)`` (or ``(4,)``).

    ``b`` (default 0) adds a position term ``(1 + c|v|/0.07 + b x)``: the richer family of the ``optimum`` claim.
    """
    o = np.asarray(obs, dtype=float)
    x, v = o[:, 0], o[:, 1]
    P = np.asarray(params, dtype=float)
    k1, e_th, k2, c = (P[..., i] for i in range(4))
    eps = np.sin(3.0 * x) + 1.5 * v * v / _G
    kappa = np.where(eps < e_th, k1, k2)
    return np.clip(kappa * v * (1.0 + c * np.abs(v) / _VMAX + b * x), -1.0, 1.0)[:, None]


def _returns(x0: float, P: np.ndarray) -> np.ndarray:
    return mc_rollout(lambda o: eq_a3(o, P), np.full(P.shape[0], x0))["returns"]


def _grid(*axes: np.ndarray) -> np.ndarray:
    return np.array(list(itertools.product(*axes)), dtype=float)


def search_a3(x0: np.ndarray, k_a2: np.ndarray, c_a2: np.ndarray, r_a2: np.ndarray, *,
              fine: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Per-start parameters of Eq. (A3) (rows ``(k1, e_th, k2, c)``) and their returns, by grid search on the exact
    dynamics: a global grid, then shrinking local windows around the incumbent; the Eq. (A2) optimum
    ``(k_a2, c_a2)`` (returns ``r_a2``) is the starting incumbent. ``fine=False``: a coarse grid (smoke checks)."""
    if fine:
        glob = _grid(np.linspace(1.0, 5.0, 17), np.linspace(-0.6, 0.6, 13), np.linspace(3.0, 12.0, 19),
                     np.array([0.0, 0.5, 1.0]))
        windows = [(0.25, 0.1, 0.5, 0.25), (0.1, 0.04, 0.2, 0.1), (0.04, 0.015, 0.08, 0.04),
                   (0.015, 0.006, 0.03, 0.015)]
    else:
        glob = _grid(np.linspace(1.5, 4.5, 7), np.linspace(-0.4, 0.4, 5), np.linspace(3.5, 8.0, 10),
                     np.array([0.0, 0.5]))
        windows = [(0.25, 0.1, 0.5, 0.25)]
    best_p = np.stack([k_a2, np.full_like(k_a2, -2.0), k_a2, c_a2], axis=1)
    best_r = np.asarray(r_a2, dtype=float).copy()
    for i, x in enumerate(np.asarray(x0, dtype=float)):
        R = _returns(x, glob)
        j = int(R.argmax())
        if R[j] > best_r[i]:
            best_p[i], best_r[i] = glob[j], R[j]
        for w in windows:
            cand = best_p[i] + _grid(*(np.linspace(-h, h, 5) for h in w))
            cand[:, 0] = np.maximum(cand[:, 0], 0.0)
            R = _returns(x, cand)
            j = int(R.argmax())
            if R[j] > best_r[i]:
                best_p[i], best_r[i] = cand[j], R[j]
    return best_p, best_r
