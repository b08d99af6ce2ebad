"""Discounted returns and generalised advantage estimation over time-major rollouts (numpy or torch).

Layout: ``rewards[t]`` is the reward of step ``t`` (shape ``(T,)`` or ``(T, B)`` for ``B`` parallel environments);
``dones[t]`` says the episode ended *at* step ``t`` (after ``rewards[t]``), so nothing after it is bootstrapped into
it; ``last_value`` is the value of the state after the last step (0 when the rollout ended in a terminal state).
"""

from __future__ import annotations

from typing import Any

from icml26.common import validation
from icml26.common.rl._arrays import as_float, is_tensor, same_shape, zeros_like

__all__ = ["discounted_returns", "gae"]


def _not_done(dones: Any, like: Any) -> Any:
    """``1 - dones`` as floats of ``like``'s kind and shape (``None``: no episode ends inside the rollout)."""
    if dones is None:
        return zeros_like(like) + 1.0
    if is_tensor(like):
        if not is_tensor(dones):
            raise TypeError("dones must be a torch tensor when rewards is one")
        d = dones.to(like.dtype)
    else:
        d = validation.real_array(dones, "dones", ndim=like.ndim)
    if not bool(((d == 0) | (d == 1)).all()):
        raise ValueError("dones must hold booleans (0/1)")
    same_shape(d, like, ("dones", "rewards"))
    return 1.0 - d


def _last(last_value: Any, like: Any) -> Any:
    """``last_value`` broadcast to one time step of ``like`` (a number or one value per environment)."""
    if is_tensor(like):
        import torch

        v = last_value if is_tensor(last_value) else torch.as_tensor(float(validation.real(last_value, "last_value")))
        v = v.to(like.dtype)
        if not bool(torch.isfinite(v).all()):
            raise ValueError("last_value must be finite")
        return v.expand(like.shape[1:]) if v.ndim == 0 else v
    if isinstance(last_value, (int, float)) and not isinstance(last_value, bool):
        return validation.real(last_value, "last_value") + zeros_like(like[0])
    v = validation.real_array(last_value, "last_value", shape=like.shape[1:], allow_empty=True)
    return v


def discounted_returns(rewards: Any, *, gamma: float, dones: Any = None, last_value: Any = 0.0) -> Any:
    """Discounted returns ``G_t = r_t + gamma (1 - d_t) G_{t+1}``, ``G_T = last_value`` (Sutton & Barto, Eq. 3.9).

    Args:
        rewards: ``(T,)`` or ``(T, B)``, numpy or torch.
        gamma: the discount, in [0, 1].
        dones: booleans of ``rewards``' shape (see the module docstring), or ``None``.
        last_value: the bootstrap value after the last step: a number or one per environment ``(B,)``.

    Returns:
        ``G`` of ``rewards``' shape and kind.
    """
    r = as_float(rewards, "rewards", max_ndim=2)
    gamma = validation.real(gamma, "gamma", lo=0.0, hi=1.0)
    nd = _not_done(dones, r)
    out = zeros_like(r)
    nxt = _last(last_value, r)
    for t in range(r.shape[0] - 1, -1, -1):
        nxt = r[t] + gamma * nd[t] * nxt
        out[t] = nxt
    return out


def gae(rewards: Any, values: Any, *, gamma: float, lam: float, dones: Any = None,
        last_value: Any = 0.0) -> tuple[Any, Any]:
    """Generalised advantage estimation (Schulman et al. 2016, Eq. 16): ``A_t = sum_l (gamma lam)^l delta_{t+l}``
    with ``delta_t = r_t + gamma (1 - d_t) V_{t+1} - V_t`` and ``V_T = last_value``, cut at episode ends.

    ``lam = 1`` gives ``A_t = G_t - V_t`` (:func:`discounted_returns` minus the values), ``lam = 0`` the one-step
    TD error. Arguments as in :func:`discounted_returns`; ``values`` (the critic's ``V(s_t)``) and ``lam`` in [0, 1].

    Returns:
        ``(advantages, returns)`` with ``returns = advantages + values`` (the critic's regression target, as in
        stable-baselines3's ``RolloutBuffer``), both of ``rewards``' shape and kind.
    """
    r = as_float(rewards, "rewards", max_ndim=2)
    v = as_float(values, "values", max_ndim=2)
    same_shape(r, v, ("rewards", "values"))
    gamma = validation.real(gamma, "gamma", lo=0.0, hi=1.0)
    lam = validation.real(lam, "lam", lo=0.0, hi=1.0)
    nd = _not_done(dones, r)
    adv = zeros_like(r)
    nxt_v = _last(last_value, r)
    acc = zeros_like(r[0])
    for t in range(r.shape[0] - 1, -1, -1):
        delta = r[t] + gamma * nd[t] * nxt_v - v[t]
        acc = delta + gamma * lam * nd[t] * acc
        adv[t] = acc
        nxt_v = v[t]
    return adv, adv + v
