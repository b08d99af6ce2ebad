"""The per-token depth decisions of [P23]: ANIRA-E's straight-through depth router, ACT's and PonderNet's halting.

Every function works on whole tensors of tokens (any leading shape) and is pure: no global RNG (Gumbel noise comes
from a ``torch.Generator`` the caller passes), no module state. The recurrent loop of :mod:`._model` calls the
step-wise forms (:func:`act_step`, :func:`ponder_step`); the sequence forms (:func:`act_halting`,
:func:`ponder_distribution`) compute the same quantities from a whole sequence of halting probabilities and are what
the tests check against hand computations and closed forms.

Symbols: ``T`` the largest depth (``max_depth``), ``t = 1..T`` the iteration, ``p_t`` ACT's halting unit,
``lambda_t`` PonderNet's conditional halting probability, ``eps`` the halting tolerance, ``lambda_p`` the geometric
prior's parameter.
"""

from __future__ import annotations

import torch
from torch import Tensor

from icml26.common.validation import positive_int, real

__all__ = ["act_halting", "act_step", "alive_from_depth", "expected_depth", "geometric_prior", "ponder_distribution",
           "ponder_kl", "ponder_step", "straight_through_depth"]


def _units(p: object, name: str) -> None:
    if not isinstance(p, Tensor) or not p.is_floating_point() or p.ndim < 1 or p.shape[-1] == 0:
        raise TypeError(f"{name} must be a non-empty floating-point torch.Tensor (..., T)")
    if not bool(((p >= 0) & (p <= 1)).all()):
        raise ValueError(f"{name} must hold probabilities in [0, 1] (no NaN)")


def straight_through_depth(logits: Tensor, *, tau: float, generator: torch.Generator | None,
                           hard: bool = True) -> tuple[Tensor, Tensor]:
    """ANIRA-E's depth choice ([P23], reconstructed): a one-hot over depths ``1..T`` with a straight-through gradient.

    ``logits`` (..., T) are the router's scores ``W_r h^0``. With a ``generator``, Gumbel noise ``g`` is added
    (Gumbel-softmax, Jang et al. 2017): ``y = softmax((logits + g) / tau)``; without one, ``g = 0`` (evaluation).
    ``hard=True`` returns ``onehot(argmax y) + y - stop_gradient(y)``: exactly one-hot in the forward pass, the
    gradient of the soft ``y`` in the backward pass. Returns ``(z, y)``.
    """
    real(tau, "tau", lo=0.0, lo_open=True)
    if not isinstance(logits, Tensor) or not logits.is_floating_point() or logits.ndim < 1:
        raise TypeError(f"logits must be a floating-point torch.Tensor (..., T), got {type(logits).__name__}")
    if generator is not None:
        u = torch.rand(logits.shape, generator=generator, dtype=logits.dtype).clamp_(1e-9, 1 - 1e-9)
        logits = logits - torch.log(-torch.log(u))
    y = torch.softmax(logits / tau, dim=-1)
    if not hard:
        return y, y
    onehot = torch.zeros_like(y).scatter_(-1, y.argmax(-1, keepdim=True), 1.0)
    return onehot + y - y.detach(), y


def alive_from_depth(z: Tensor) -> Tensor:
    """``a_t = sum_{k >= t} z_k`` ([P23] ANIRA-E): 1 while iteration ``t`` runs for a token of depth ``argmax z``.

    With a straight-through one-hot ``z`` (:func:`straight_through_depth`) the forward values are exactly 0/1 and the
    gradient reaches every ``z_k`` with ``k >= t``.
    """
    return z.flip(-1).cumsum(-1).flip(-1)


def act_step(p: Tensor, cum: Tensor, active: Tensor, *, last: bool, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """One iteration of ACT's halting (Graves 2016, Eqs. 6-9) for tokens still running ([P23] ANIRA-O).

    ``p`` is the halting unit at this iteration, ``cum`` the sum of the earlier ones, ``active`` which tokens ran this
    iteration. A running token halts here when ``cum + p >= 1 - eps`` or at the last iteration; its weight is then the
    remainder ``R = 1 - cum``, otherwise ``p``. Returns ``(weight, new cum, still running)``; tokens not running get
    weight 0 and keep their ``cum``.
    """
    stop = active & ((cum + p >= 1.0 - eps) | torch.full_like(active, last))
    go = active & ~stop
    weight = torch.where(stop, 1.0 - cum, torch.where(go, p, torch.zeros_like(p)))
    return weight, torch.where(go, cum + p, cum), go


def act_halting(p: Tensor, *, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """ACT's halting distribution from a whole sequence of halting units ``p`` (..., T) ([P23] ANIRA-O).

    ``N = min{n : sum_{t<=n} p_t >= 1 - eps}`` (or ``T``), weights ``p_t`` for ``t < N`` and the remainder
    ``R = 1 - sum_{t<N} p_t`` at ``N``, zero after. Returns ``(weights, N, R)``; the ponder cost is ``N + R``.
    The weights sum to 1 by construction.
    """
    _units(p, "p")
    real(eps, "eps", lo=0.0, hi=1.0, hi_open=True)
    T = p.shape[-1]
    cum = torch.zeros_like(p[..., 0])
    active = torch.ones_like(cum, dtype=torch.bool)
    n = torch.zeros_like(cum)
    rem = torch.zeros_like(cum)
    ws = []
    for t in range(T):
        w, new_cum, go = act_step(p[..., t], cum, active, last=t == T - 1, eps=eps)
        stopped = active & ~go
        n = torch.where(active, torch.full_like(n, t + 1), n)
        rem = torch.where(stopped, 1.0 - cum, rem)
        ws.append(w)
        cum, active = new_cum, go
    return torch.stack(ws, -1), n, rem


def ponder_step(lam: Tensor, survive: Tensor, cum: Tensor, active: Tensor, *, last: bool,
                eps: float) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """One iteration of PonderNet's halting (Banino et al. 2021, Eq. 2) for tokens still running ([P23] ANIRA-O).

    ``p_t = lambda_t * prod_{s<t} (1 - lambda_s)`` (``survive`` is the product). A running token stops once
    ``cum + p_t >= 1 - eps`` or at the last iteration, and takes the rest of the mass ``1 - cum`` here, so that the
    halting distribution of every token sums to 1 over the iterations it ran. Returns
    ``(p_t, new survive, new cum, still running)``.
    """
    pt = lam * survive
    stop = active & ((cum + pt >= 1.0 - eps) | torch.full_like(active, last))
    go = active & ~stop
    pt = torch.where(stop, 1.0 - cum, torch.where(go, pt, torch.zeros_like(pt)))
    return pt, survive * (1.0 - lam), torch.where(go, cum + pt, cum), go


def ponder_distribution(lam: Tensor, *, eps: float) -> tuple[Tensor, Tensor]:
    """PonderNet's halting distribution from conditional halting probabilities ``lam`` (..., T) ([P23] ANIRA-O).

    The step-wise rule of :func:`ponder_step` applied over ``t = 1..T``. Returns ``(p, N)``: ``p`` (..., T) sums to 1,
    ``N`` the iteration at which the token stopped.
    """
    _units(lam, "lam")
    real(eps, "eps", lo=0.0, hi=1.0, hi_open=True)
    T = lam.shape[-1]
    survive = torch.ones_like(lam[..., 0])
    cum = torch.zeros_like(survive)
    active = torch.ones_like(cum, dtype=torch.bool)
    n = torch.zeros_like(cum)
    ps = []
    for t in range(T):
        n = torch.where(active, torch.full_like(n, t + 1), n)
        pt, survive, cum, active = ponder_step(lam[..., t], survive, cum, active, last=t == T - 1, eps=eps)
        ps.append(pt)
    return torch.stack(ps, -1), n


def geometric_prior(lambda_p: float, depth: int, *, dtype: torch.dtype = torch.float32) -> Tensor:
    """PonderNet's prior over halting steps ``1..T`` ([P23] ANIRA-O): ``q_t = lambda_p (1 - lambda_p)^(t-1)`` for
    ``t < T`` and the tail ``(1 - lambda_p)^(T-1)`` at ``T`` (a geometric distribution truncated at ``T``)."""
    real(lambda_p, "lambda_p", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    positive_int(depth, "depth")
    t = torch.arange(depth, dtype=torch.float64)
    q = lambda_p * (1.0 - lambda_p) ** t
    q[-1] = (1.0 - lambda_p) ** (depth - 1)
    return q.to(dtype)


def ponder_kl(p: Tensor, prior: Tensor) -> Tensor:
    """``KL(p || prior)`` over the last axis ([P23] ANIRA-O; PonderNet's regulariser, Banino et al. 2021, Eq. 6),
    with ``0 log 0 = 0``. ``p`` (..., T), ``prior`` (T,) with positive entries."""
    logp = torch.log(p.clamp_min(1e-30))
    terms = torch.where(p > 0, p * (logp - torch.log(prior)), torch.zeros_like(p))
    return terms.sum(-1)


def expected_depth(probs: Tensor) -> Tensor:
    """``sum_k k * probs_k`` over depths ``k = 1..T``: the router's expected depth, ANIRA-E's compute cost ([P23])."""
    k = torch.arange(1, probs.shape[-1] + 1, dtype=probs.dtype)
    return (probs * k).sum(-1)

