"""The self-calibrated uncertainty of [P15] (T²PO, Sec. 3, token level): one number per next-token distribution.

The paper fuses the token entropy ``H_t = -Σ_v p_v log p_v`` ("too smooth" alone) with the confidence
``C_t = max_v p_v`` ("too localised" alone) into ``M_t``. Its exact fusion is not in the abstract or the released
code; we reconstruct it as the convex combination of the two on a common [0, 1] scale,

    M_t = w · H_t / log|V| + (1 − w) · (1 − C_t),      w = ``weight`` (default 1/2),

which is 0 for a one-hot distribution and 1 for the uniform one, and moves with both the spread and the peak.
A turn's score ``s_k``, which the turn-level resampler compares with the previous turn's, is read from the released
rollout loop, which calls it the turn-level entropy: the mean token entropy (nats, :func:`entropy`) over the turn's
response, on the scale of the released threshold ``eta = 0.3`` (:func:`turn_score` averages any per-token values).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from icml26.common import validation
from icml26.common.rl._arrays import is_tensor

__all__ = ["entropy", "turn_score", "uncertainty"]


def _check_logits(logits: Any) -> Any:
    """``logits`` as float64 numpy or a floating tensor, ``(..., V)`` with V >= 2; NaN and +inf refused (-inf is
    a masked token), every row needs one finite entry."""
    if is_tensor(logits):
        import torch

        if logits.is_complex() or not logits.is_floating_point():
            raise TypeError(f"logits must be a real floating tensor, got {logits.dtype}")
        x = logits
        bad_nan = bool(torch.isnan(x).any())
        bad_inf = bool(torch.isposinf(x).any())
        all_masked = bool(torch.isneginf(x).all(dim=-1).any()) if x.ndim and x.numel() else False
    else:
        if isinstance(logits, (str, bytes)):
            raise TypeError("logits must be an array of real numbers, got a string")
        a = np.asarray(logits)
        if a.dtype.kind not in "biuf":
            raise TypeError(f"logits must hold real numbers, got dtype {a.dtype}")
        x = a.astype(np.float64)
        bad_nan = bool(np.isnan(x).any())
        bad_inf = bool(np.isposinf(x).any())
        all_masked = bool(np.isneginf(x).all(axis=-1).any()) if x.ndim and x.size else False
    if x.ndim < 1:
        raise ValueError("logits must have a vocabulary axis (shape (..., V))")
    if x.shape[-1] < 2:
        raise ValueError(f"logits must cover a vocabulary of >= 2 tokens, got V = {x.shape[-1]}")
    if math.prod(x.shape) == 0:
        raise ValueError(f"logits must not be empty, got shape {tuple(x.shape)}")
    if bad_nan or bad_inf:
        raise ValueError("logits must not hold NaN or +inf (-inf marks a masked token)")
    if all_masked:
        raise ValueError("logits: every row needs at least one finite entry (a row is all -inf)")
    return x


def _parts(x: Any) -> tuple[Any, Any]:
    """Entropy (nats) and peak probability of every distribution on the last axis."""
    if is_tensor(x):
        import torch

        with torch.no_grad():
            logp = torch.log_softmax(x, dim=-1)
            p = logp.exp()
            ent = -(p * torch.where(p > 0, logp, torch.zeros_like(logp))).sum(dim=-1)
            return ent.clamp_min(0.0), p.max(dim=-1).values
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return np.maximum(-plogp.sum(axis=-1), 0.0), p.max(axis=-1)


def entropy(logits: Any) -> Any:
    """Token entropy ``H_t = -Σ_v p_v log p_v`` in nats of every distribution on the last axis ([P15] Sec. 3; the
    turn-level score of :func:`turn_score` averages it). ``logits`` as in :func:`uncertainty`; the result has shape
    ``logits.shape[:-1]`` and the input's kind."""
    return _parts(_check_logits(logits))[0]


def uncertainty(logits: Any, *, weight: float = 0.5) -> Any:
    """The fused token uncertainty ``M_t`` of [P15] (Sec. 3, token level; the fusion is reconstructed, see the
    module docstring): ``w · H/log|V| + (1 − w)(1 − max p)`` for every distribution on the last axis.

    Args:
        logits: next-token logits ``(..., V)`` (numpy, anything ``np.asarray`` takes, or a torch tensor); ``-inf``
            entries are masked tokens (probability 0), NaN and ``+inf`` are refused.
        weight: ``w`` in [0, 1]: 1 gives the normalised entropy alone, 0 the complement of the confidence alone.

    Returns:
        ``M`` of shape ``logits.shape[:-1]`` in [0, 1], of the input's kind (float64 numpy or the tensor's dtype);
        computed without gradients for tensors.
    """
    return fused_and_entropy(logits, weight=weight)[0]


def fused_and_entropy(logits: Any, *, weight: float) -> tuple[Any, Any]:
    """``(uncertainty(logits, weight=weight), entropy(logits))`` from one softmax (the rollout loop's helper)."""
    x = _check_logits(logits)
    w = validation.real(weight, "weight", lo=0.0, hi=1.0)
    ent, conf = _parts(x)
    m = w * ent / math.log(x.shape[-1]) + (1.0 - w) * (1.0 - conf)
    return (m.clamp(0.0, 1.0) if is_tensor(m) else np.clip(m, 0.0, 1.0)), ent


def turn_score(values: Any) -> float:
    """The turn-level score ``s_k`` of [P15] (Sec. 3, turn level; reconstructed: the released code reads a
    per-response ``turn_level_score``, named the turn-level entropy, that it does not define): the mean of one
    turn's per-token values (its token entropies, :func:`entropy`; a non-empty 1-D sequence of finite values)."""
    return float(validation.real_array(values, "values", ndim=1).mean())
