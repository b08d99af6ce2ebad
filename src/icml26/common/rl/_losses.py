"""Policy-gradient losses on torch tensors: PPO's clipped surrogate with an optional KL penalty, and REINFORCE.

Shapes: log-probabilities are per token ``(B, T)`` with an optional 0/1 ``mask`` of the same shape (padding and
prompt tokens 0), or per sequence ``(B,)`` (one action per row: a sequence-level log-probability, or a control
step). Advantages are per sequence ``(B,)`` (broadcast over the tokens) or per token ``(B, T)``. torch is imported
when a loss is called, so the rest of :mod:`icml26.common.rl` works without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from icml26.common import validation
from icml26.common.rl._arrays import is_tensor

if TYPE_CHECKING:  # pragma: no cover - typing only
    import torch

__all__ = ["AGGREGATES", "KL_ESTIMATORS", "PolicyLoss", "kl_penalty", "ppo_clip_loss", "reinforce_loss"]

#: how per-token terms become one number (verl's names in brackets): ``token_mean`` = sum / number of tokens
#: ("token-mean", DAPO); ``seq_mean`` = mean over sequences of each sequence's token mean ("seq-mean-token-mean",
#: GRPO); ``seq_sum_norm`` = sum / (B * norm_length) with a constant length ("seq-mean-token-sum-norm", Dr.GRPO)
AGGREGATES = ("token_mean", "seq_mean", "seq_sum_norm")
#: estimators of KL(pi || pi_ref) from samples of pi (Schulman 2020, "Approximating KL divergence"): k1 = log r^-1,
#: k2 = (log r)^2 / 2, k3 = r - 1 - log r with r = pi_ref / pi (k3: unbiased and >= 0, GRPO's Eq. 4)
KL_ESTIMATORS = ("k1", "k2", "k3")


@dataclass(frozen=True)
class PolicyLoss:
    """A policy loss and its parts: ``loss = policy_loss + kl_coef * kl`` (differentiable); ``clip_fraction`` (the
    share of tokens whose ratio left the clip range) is detached; ``kl`` is 0 when no KL penalty is asked for."""

    loss: torch.Tensor
    policy_loss: torch.Tensor
    kl: torch.Tensor
    clip_fraction: torch.Tensor


def _tensor(x: Any, name: str) -> torch.Tensor:
    if not is_tensor(x):
        raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a floating tensor, got {x.dtype}")
    if x.ndim not in (1, 2) or x.numel() == 0:
        raise ValueError(f"{name} must be a non-empty (B,) or (B, T) tensor, got shape {tuple(x.shape)}")
    return x


def _mask(mask: Any, like: torch.Tensor) -> torch.Tensor | None:
    if mask is None:
        return None
    if not is_tensor(mask) or tuple(mask.shape) != tuple(like.shape):
        raise ValueError(f"mask must be a tensor of the log-probabilities' shape {tuple(like.shape)}")
    m = mask.to(like.dtype)
    if not bool(((m == 0) | (m == 1)).all()):
        raise ValueError("mask must hold 0/1 (or booleans)")
    return m


def _aggregate(x: torch.Tensor, mask: torch.Tensor | None, how: str, norm_length: int | None) -> torch.Tensor:
    """One number from per-token terms ``x`` (see :data:`AGGREGATES`); per-sequence ``x`` (B,) is one token a row."""
    length = float(norm_length or (x.shape[-1] if x.ndim == 2 else 1))
    if mask is None:
        if how == "token_mean" or (how == "seq_mean" and x.ndim == 1):
            return x.mean()
        if how == "seq_mean":
            return x.mean(dim=-1).mean()
        return x.sum() / (x.shape[0] * length)
    if how == "token_mean" or (how == "seq_mean" and x.ndim == 1):
        return (x * mask).sum() / mask.sum().clamp_min(1.0)
    if how == "seq_mean":
        return ((x * mask).sum(dim=-1) / mask.sum(dim=-1).clamp_min(1.0)).mean()
    return (x * mask).sum() / (x.shape[0] * length)


def kl_penalty(logp: Any, logp_ref: Any, *, estimator: str = "k3") -> torch.Tensor:
    """Per-token estimate of KL(pi || pi_ref) from tokens sampled from pi (see :data:`KL_ESTIMATORS`).

    ``logp`` = log pi(a_t), ``logp_ref`` = log pi_ref(a_t) of the same tokens (same shape). k3 (the default) is
    ``exp(logp_ref - logp) - (logp_ref - logp) - 1``, the estimator of GRPO's KL term (Shao et al. 2024, Eq. 4).
    """
    lp, ref = _tensor(logp, "logp"), _tensor(logp_ref, "logp_ref")
    if lp.shape != ref.shape:
        raise ValueError(f"logp and logp_ref must have the same shape, got {tuple(lp.shape)} and {tuple(ref.shape)}")
    estimator = validation.choice(estimator, "estimator", KL_ESTIMATORS)
    d = ref - lp
    if estimator == "k1":
        return -d
    if estimator == "k2":
        return 0.5 * d * d
    return d.exp() - d - 1.0


def _broadcast(adv: Any, like: torch.Tensor) -> torch.Tensor:
    a = _tensor(adv, "advantages").detach()
    if a.shape == like.shape:
        return a
    if a.ndim == 1 and like.ndim == 2 and a.shape[0] == like.shape[0]:
        return a[:, None]
    raise ValueError(f"advantages must have shape (B,) or {tuple(like.shape)}, got {tuple(a.shape)}")


def ppo_clip_loss(logp: Any, logp_old: Any, advantages: Any, *, clip: float = 0.2, clip_high: float | None = None,
                  mask: Any = None, aggregate: str = "token_mean", norm_length: int | None = None,
                  logp_ref: Any = None, kl_coef: float = 0.0, kl_estimator: str = "k3") -> PolicyLoss:
    """PPO's clipped surrogate (Schulman et al. 2017, Eq. 7), negated for minimisation, with the KL penalty of
    GRPO (Shao et al. 2024, Eq. 3): ``loss = -agg(min(rho A, clip(rho, 1 - clip, 1 + clip_high) A)) + kl_coef agg(KL)``
    with ``rho = exp(logp - logp_old)``.

    Args:
        logp: log-probabilities under the policy being trained (with gradients), ``(B,)`` or ``(B, T)``.
        logp_old: the same tokens' log-probabilities under the sampling policy (no gradient flows into them).
        advantages: ``(B,)`` or ``logp``'s shape; detached.
        clip: epsilon of the clip range (> 0).
        clip_high: the upper side of the clip range if different (DAPO's clip-higher); ``None``: ``clip``.
        mask: 0/1 tokens that count (``logp``'s shape), or ``None`` (all).
        aggregate: one of :data:`AGGREGATES`.
        norm_length: the constant length of ``seq_sum_norm`` (default: ``T``).
        logp_ref: the reference policy's log-probabilities for the KL penalty (required when ``kl_coef > 0``).
        kl_coef: beta of the KL penalty (>= 0).
        kl_estimator: one of :data:`KL_ESTIMATORS`.

    Returns:
        A :class:`PolicyLoss`. With one update per batch (``logp`` equal to ``logp_old``) ``rho = 1`` and the
        gradient is the plain policy gradient ``-agg(A grad logp)``.
    """
    import torch

    lp, old = _tensor(logp, "logp"), _tensor(logp_old, "logp_old").detach()
    if lp.shape != old.shape:
        raise ValueError(f"logp and logp_old must have the same shape, got {tuple(lp.shape)} and {tuple(old.shape)}")
    lo = validation.real(clip, "clip", lo=0.0, lo_open=True)
    hi = lo if clip_high is None else validation.real(clip_high, "clip_high", lo=0.0, lo_open=True)
    aggregate = validation.choice(aggregate, "aggregate", AGGREGATES)
    if norm_length is not None:
        norm_length = validation.positive_int(norm_length, "norm_length")
    kl_coef = validation.real(kl_coef, "kl_coef", lo=0.0)
    m = _mask(mask, lp)
    a = _broadcast(advantages, lp)
    ratio = torch.exp(lp - old)
    surrogate = torch.minimum(ratio * a, torch.clamp(ratio, 1 - lo, 1 + hi) * a)
    policy_loss = -_aggregate(surrogate, m, aggregate, norm_length)
    with torch.no_grad():
        clipped = ((ratio < 1 - lo) | (ratio > 1 + hi)).to(lp.dtype)
        clip_fraction = _aggregate(clipped, m, "token_mean", None)
    if kl_coef == 0.0:
        zero = torch.zeros((), dtype=lp.dtype)
        return PolicyLoss(policy_loss, policy_loss, zero, clip_fraction)
    if logp_ref is None:
        raise ValueError("logp_ref is required when kl_coef > 0")
    kl = _aggregate(kl_penalty(lp, logp_ref, estimator=kl_estimator), m, aggregate, norm_length)
    return PolicyLoss(policy_loss + kl_coef * kl, policy_loss, kl, clip_fraction)


def reinforce_loss(logp: Any, advantages: Any, *, mask: Any = None) -> torch.Tensor:
    """The REINFORCE surrogate (Williams 1992): ``-mean_b(A_b sum_t logp_{b,t})``, whose gradient is the
    score-function estimate of the policy gradient; ``advantages`` (B,) are e.g. :func:`reinforce_advantages`.

    ``logp`` is ``(B,)`` (one log-probability per episode or sequence) or ``(B, T)`` summed over the 0/1 ``mask``.
    """
    lp = _tensor(logp, "logp")
    m = _mask(mask, lp)
    a = _tensor(advantages, "advantages").detach()
    if a.shape != lp.shape[:1]:
        raise ValueError(f"advantages must have shape ({lp.shape[0]},), got {tuple(a.shape)}")
    seq = lp if lp.ndim == 1 else (lp if m is None else lp * m).sum(dim=-1)
    return -(seq * a).mean()
