"""Anchor-state advantages of GiGPO (Feng et al. 2025, "Group-in-Group Policy Optimization"), the base estimator
of [P15]'s released training scripts, on padded per-step arrays.

``N`` trajectories, padded to ``T`` steps, with ``lengths[i]`` real steps each:

- episode level: ``A^E_i = (R_i − mean_g R) / (std_g R + eps)`` over the trajectories of ``i``'s group
  ``g = groups[i]`` (same task, same start), ``R_i = Σ_t r_it`` (:func:`icml26.common.rl.grpo_advantages`);
- step level: the discounted return ``G_it = Σ_{k>=t} γ^{k−t} r_ik``, grouped by *anchor state*: every step of the
  group's trajectories whose ``anchors`` id is the same (the same environment state met again, in this trajectory
  or another), ``A^S_it = (G_it − mean) / (std + eps)`` over that anchor group; a state met once gets 0;
- ``A_it = A^E_i + ω A^S_it`` (the released scripts: ω = 1, γ = 0.95, ``mean_std_norm``).

``scale="none"`` drops the division by the standard deviation at both levels (GiGPO's ``mean_norm``,
:func:`icml26.common.rl.dr_grpo_advantages`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common import validation
from icml26.common.rl import dr_grpo_advantages, grpo_advantages

__all__ = ["GiGPOAdvantages", "gigpo_advantages", "step_returns"]

SCALES = ("std", "none")


@dataclass(frozen=True)
class GiGPOAdvantages:
    """GiGPO's advantages as used by [P15] (see :func:`gigpo_advantages`): ``episode`` (N,), ``step`` (N, T) and
    ``total`` (N, T) (0 beyond each length), ``anchor_size`` (N, T): how many steps share each step's anchor group
    (0 beyond each length), ``returns`` (N, T): the discounted step returns ``G_it``."""

    episode: np.ndarray
    step: np.ndarray
    total: np.ndarray
    anchor_size: np.ndarray
    returns: np.ndarray


def _relative(x: np.ndarray, scale: str, eps: float) -> np.ndarray:
    return grpo_advantages(x, eps=eps) if scale == "std" else dr_grpo_advantages(x)


def step_returns(rewards: Any, *, lengths: Any, gamma: float) -> np.ndarray:
    """Discounted returns from every step, ``G_it = Σ_{t<=k<len_i} γ^{k−t} r_ik`` ([P15]'s GiGPO base, Eq. of the
    step-level group), 0 beyond each trajectory's length; ``rewards`` (N, T), ``lengths`` (N,) in [1, T]."""
    r = validation.real_array(rewards, "rewards", ndim=2)
    n = _lengths(lengths, r.shape)
    g = validation.real(gamma, "gamma", lo=0.0, hi=1.0)
    live = np.arange(r.shape[1])[None, :] < n[:, None]
    out = np.zeros_like(r)
    acc = np.zeros(r.shape[0])
    for t in range(r.shape[1] - 1, -1, -1):
        acc = np.where(live[:, t], r[:, t] + g * acc, 0.0)
        out[:, t] = acc
    return out


def _lengths(lengths: Any, shape: tuple[int, ...]) -> np.ndarray:
    n = validation.int_array(lengths, "lengths", shape=(shape[0],))
    if np.any(n < 1) or np.any(n > shape[1]):
        raise ValueError(f"lengths must lie in [1, {shape[1]}] (every trajectory has at least one step)")
    return n


def gigpo_advantages(rewards: Any, anchors: Any, groups: Any, *, lengths: Any, gamma: float = 0.95,
                     omega: float = 1.0, scale: str = "std", eps: float = 1e-6) -> GiGPOAdvantages:
    """GiGPO's two-level advantages (module docstring), the base estimator of [P15]'s T²PO runs.

    Args:
        rewards: per-step rewards ``(N, T)`` (finite; entries beyond a length are ignored).
        anchors: per-step anchor-state ids ``(N, T)`` (integers; equal ids within one group are the same state).
        groups: the episode group of each trajectory ``(N,)`` (integers).
        lengths: real steps per trajectory ``(N,)``, each in ``[1, T]``.
        gamma: the discount of the step returns, in [0, 1].
        omega: the weight ω >= 0 of the step-level advantage.
        scale: ``"std"`` (divide by the group's standard deviation + ``eps``) or ``"none"``.
        eps: > 0.

    Returns:
        A :class:`GiGPOAdvantages`.
    """
    r = validation.real_array(rewards, "rewards", ndim=2)
    a = validation.int_array(anchors, "anchors", ndim=2)
    if a.shape != r.shape:
        raise ValueError(f"anchors must have the rewards' shape {r.shape}, got {a.shape}")
    grp = validation.int_array(groups, "groups", shape=(r.shape[0],))
    n = _lengths(lengths, r.shape)
    gamma = validation.real(gamma, "gamma", lo=0.0, hi=1.0)
    omega = validation.real(omega, "omega", lo=0.0)
    scale = validation.choice(scale, "scale", SCALES)
    eps = validation.real(eps, "eps", lo=0.0, lo_open=True)
    live = np.arange(r.shape[1])[None, :] < n[:, None]
    total_r = np.where(live, r, 0.0).sum(axis=1)
    episode = np.zeros(r.shape[0])
    for g in np.unique(grp):
        idx = np.flatnonzero(grp == g)
        episode[idx] = _relative(total_r[idx], scale, eps)
    ret = step_returns(r, lengths=n, gamma=gamma)
    step = np.zeros_like(r)
    size = np.zeros(r.shape, dtype=np.int64)
    rows, cols = np.nonzero(live)
    keys: dict[tuple[int, int], list[int]] = {}
    for j, (i, t) in enumerate(zip(rows, cols)):
        keys.setdefault((int(grp[i]), int(a[i, t])), []).append(j)
    for members in keys.values():
        m = np.asarray(members)
        step[rows[m], cols[m]] = _relative(ret[rows[m], cols[m]], scale, eps)
        size[rows[m], cols[m]] = m.size
    total = np.where(live, episode[:, None] + omega * step, 0.0)
    return GiGPOAdvantages(episode, step, total, size, ret)
