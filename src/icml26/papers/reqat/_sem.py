"""Selective entropy minimisation (SEM) of [P11] (§2 of the notes, "SEM"):

    L = L_SFT + λ · (1/T) Σ_t w_t H_t,    w_t = max(0, 1 − (H_t − H_min) / (τ − H_min + ε)),

where H_t is the entropy of the model's next-token distribution at response position t, H_min the smallest and τ the
75th percentile of the minibatch's entropies, and w_t carries no gradient: the confident (low-entropy) positions are
pushed further towards confidence, positions at or above τ not at all. λ = 0.1 (the paper; its code defaults to 0.01).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common.validation import real

__all__ = ["sem_loss", "sem_weights", "token_entropy"]


def token_entropy(logits: Tensor) -> Tensor:
    """H_t = −Σ_v p_t(v) log p_t(v) in nats over the last axis ([P11] SEM), differentiable."""
    logp = F.log_softmax(logits.float(), dim=-1)
    return -(logp.exp() * logp).sum(-1)


def _weights(h: Tensor, percentile: float, eps: float) -> Tensor:
    """The SEM weights of a 1-D tensor of entropies (no gradient)."""
    h = h.detach()
    if h.numel() == 0:
        return h
    tau = torch.quantile(h.double(), percentile / 100.0).to(h.dtype)
    h_min = h.min()
    return (1.0 - (h - h_min) / (tau - h_min + eps)).clamp(min=0.0)


def sem_weights(entropies: Tensor | np.ndarray | Any, *, percentile: float = 75.0, eps: float = 1e-6) -> Tensor:
    """The SEM position weights w_t of [P11] (§2, SEM) for a batch of entropies (any shape, all positions pooled):
    1 at the batch minimum, falling linearly to 0 at the ``percentile``-th percentile τ (linear interpolation, as
    ``numpy.percentile``), 0 above it; ``eps`` keeps the denominator positive when τ equals the minimum."""
    if isinstance(entropies, (str, bytes)):
        raise TypeError(f"entropies must be a tensor of real numbers, got {type(entropies).__name__}")
    if not isinstance(entropies, Tensor):
        a = np.asarray(entropies)
        if a.dtype.kind not in "biuf":
            raise TypeError(f"entropies must hold real numbers, got dtype {a.dtype}")
        entropies = torch.as_tensor(a.astype(np.float64))
    if entropies.is_complex():
        raise TypeError("entropies must hold real numbers, got a complex tensor")
    if entropies.numel() == 0:
        raise ValueError("entropies must not be empty")
    if not bool(torch.isfinite(entropies).all()):
        raise ValueError("entropies must be finite (got NaN or inf)")
    p = real(percentile, "percentile", lo=0.0, hi=100.0, lo_open=True)
    e = real(eps, "eps", lo=0.0, lo_open=True)
    h = entropies.reshape(-1).to(torch.float64 if entropies.dtype == torch.float64 else torch.float32)
    return _weights(h, p, e).reshape(entropies.shape)


def sem_loss(logits: Tensor, targets: Tensor, mask: Tensor, *, lam: float = 0.1, percentile: float = 75.0,
             eps: float = 1e-6) -> Tensor:
    """The ReQAT training loss of [P11] (§2, SEM): cross-entropy over the ``mask``-ed (response) positions plus
    λ · (1/T) Σ_t w_t H_t over the same T positions; ``lam = 0`` is plain SFT.

    Args:
        logits: (..., vocab) next-token logits.
        targets: (...) the next tokens.
        mask: (...) bool, the positions that count (the response).
        lam: λ, the weight of the entropy term.
        percentile: τ's percentile of the minibatch entropies (75).
        eps: ε of the weight formula.
    """
    sel = mask.bool()
    lg = logits[sel]
    ce = F.cross_entropy(lg.float(), targets[sel])
    if lam == 0.0:
        return ce
    h = token_entropy(lg)
    w = _weights(h, percentile, eps)
    return ce + lam * (w * h).sum() / max(1, h.numel())
