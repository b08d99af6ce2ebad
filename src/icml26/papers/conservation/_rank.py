"""How many conservation laws can a two-layer net have? The per-sample Jacobian rank test ([P04] Thm 4.1).

For ``f(x; θ)`` trained with the square loss on any data, ``∇L_D(θ)`` ranges over the span of the per-sample
gradients ``{∇_θ f_j(x; θ)}``; a law needs ``∇h(θ)`` orthogonal to all of them. So the co-rank
``D − rank J(θ)`` of the stacked per-sample Jacobian ``J`` (``N·c × D``, at a generic ``θ`` with enough samples) bounds
the number of independent laws: co-rank 0 means only constant laws, which is Thm 4.1's statement for GELU/SiLU.
Known closed forms (the oracles): ReLU (one law per neuron) co-rank ``m``; SwiGLU (Thm 4.2) co-rank ``m``; linear
``x ↦ U W x`` co-rank ``m²`` (``GL(m)`` acts; its ``m(m+1)/2`` laws ``W W^T − U^T U`` sit inside that space).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common.validation import choice, int_at_least, positive_int, real
from icml26.common.validation import seed as validation_seed
from icml26.papers.conservation._groups import _real_tensor

__all__ = ["TwoLayerNet", "per_sample_jacobian", "law_corank", "CorankResult", "ACTIVATIONS", "expected_corank"]

ACTIVATIONS = ("gelu", "silu", "relu", "linear", "swiglu", "tanh")


@dataclass(frozen=True)
class TwoLayerNet:
    """``f(x) = U^T act(W^T x)`` (dense) or ``U^T[(W^T x) ⊙ SiLU(B^T x)]`` (``activation="swiglu"``), [P04] Eq. of
    Thm 4.1/4.2. Shapes: ``W`` (d, m), ``B`` (d, m) or ``None``, ``U`` (m, c); float64 tensors."""

    W: Tensor
    U: Tensor
    activation: str
    B: Tensor | None = None

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {self.activation!r}")
        for name in ("W", "U") + (("B",) if self.activation == "swiglu" else ()):
            t = getattr(self, name)
            if not isinstance(t, Tensor) or t.ndim != 2:
                raise ValueError(f"{name} must be a 2-D tensor, got {type(t).__name__}")
            if not torch.isfinite(t).all():
                raise ValueError(f"{name} must be finite")
        if self.W.shape[1] != self.U.shape[0]:
            raise ValueError(f"W has {self.W.shape[1]} hidden units but U has {self.U.shape[0]} rows")
        if self.activation == "swiglu" and (self.B is None or self.B.shape != self.W.shape):
            got = None if self.B is None else tuple(self.B.shape)
            raise ValueError(f"B must have W's shape {tuple(self.W.shape)} for activation 'swiglu', got {got}")

    @classmethod
    def random(cls, *, d: int, m: int, c: int = 1, activation: str, seed: int) -> TwoLayerNet:
        """Generic parameters: i.i.d. N(0, 1) entries drawn from ``seed``; ``d``, ``m``, ``c`` are ints >= 1."""
        d, m, c = int_at_least(d, "d", 1), int_at_least(m, "m", 1), int_at_least(c, "c", 1)
        activation = choice(activation, "activation", ACTIVATIONS)
        g = torch.Generator().manual_seed(validation_seed(seed))
        W = torch.randn(d, m, generator=g, dtype=torch.float64)
        U = torch.randn(m, c, generator=g, dtype=torch.float64)
        B = torch.randn(d, m, generator=g, dtype=torch.float64) if activation == "swiglu" else None
        return cls(W=W, U=U, activation=activation, B=B)

    @property
    def n_params(self) -> int:
        return sum(t.numel() for t in (self.W, self.U, self.B) if t is not None)

    def forward(self, X: Tensor, W: Tensor, U: Tensor, B: Tensor | None) -> Tensor:
        """``f`` on rows of ``X`` (N, d) at the given parameters (so it can be differentiated in them)."""
        z = X @ W
        act = {"gelu": F.gelu, "silu": F.silu, "relu": F.relu, "tanh": torch.tanh, "linear": lambda t: t}
        if self.activation == "swiglu":
            if B is None:
                raise ValueError("B is required for activation 'swiglu'")
            return (z * F.silu(X @ B)) @ U
        return act[self.activation](z) @ U


def _check_net(net: object) -> None:
    if not isinstance(net, TwoLayerNet):
        raise TypeError(f"net must be a TwoLayerNet, got {type(net).__name__}")


def per_sample_jacobian(net: TwoLayerNet, X: Tensor) -> Tensor:
    """The stacked Jacobian ``∂f_j(x_n)/∂θ`` of shape ``(N·c, D)``, ``θ = (W, U[, B])`` flattened (the matrix whose
    co-rank bounds the number of laws in the rank test for [P04] Thm 4.1)."""
    _check_net(net)
    X = _real_tensor(X, "X", shape=(None, net.W.shape[0]))
    args = (net.W, net.U) + ((net.B,) if net.activation == "swiglu" else ())

    def f(*p: Tensor) -> Tensor:
        return net.forward(X, p[0], p[1], p[2] if len(p) > 2 else None).reshape(-1)

    jac = torch.autograd.functional.jacobian(f, args)
    return torch.cat([j.reshape(j.shape[0], -1) for j in jac], dim=1)


@dataclass(frozen=True)
class CorankResult:
    """The outcome of the rank test for [P04] Thm 4.1: ``corank = D − rank J``; ``sv_ratio``: the smallest singular
    value kept as nonzero over the largest (the margin of the decision), ``gap``: the first singular value counted as
    zero over the largest (0 if none)."""

    n_params: int
    rank: int
    corank: int
    sv_ratio: float
    gap: float


def law_corank(net: TwoLayerNet, *, n_samples: int | None = None, seed: int = 0, rtol: float = 1e-10) -> CorankResult:
    """Co-rank of the per-sample Jacobian at ``net``'s parameters over ``n_samples`` Gaussian inputs (default
    ``4·D``) drawn from ``seed``; singular values below ``rtol·σ_max`` count as zero. Upper bound on the number of
    independent conservation laws ([P04] Thm 4.1 proof strategy)."""
    _check_net(net)
    rtol = real(rtol, "rtol", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    D = net.n_params
    n = 4 * D if n_samples is None else positive_int(n_samples, "n_samples")
    g = torch.Generator().manual_seed(validation_seed(seed))
    X = torch.randn(n, net.W.shape[0], generator=g, dtype=torch.float64)
    s = torch.linalg.svdvals(per_sample_jacobian(net, X)).numpy()
    s = np.concatenate([s, np.zeros(max(0, D - s.size))])
    keep = s > rtol * s[0]
    rank = int(keep.sum())
    return CorankResult(
        n_params=D,
        rank=rank,
        corank=D - rank,
        sv_ratio=float(s[rank - 1] / s[0]) if rank else 0.0,
        gap=float(s[rank] / s[0]) if rank < D else 0.0,
    )


def expected_corank(activation: str, *, d: int, m: int, c: int = 1) -> int:
    """Closed-form co-rank at generic parameters (the oracles of the rank test for [P04] Thm 4.1): GELU/SiLU/tanh 0
    (tanh's sign flips are discrete: no law), ReLU ``m`` and SwiGLU ``m`` (one rescaling per unit), linear
    ``m(d + c) − r(d + c − r)`` with ``r = min(m, d, c)`` (the dimension of the rank-``r`` matrices; ``m²`` when
    ``m <= min(d, c)``). ``d`` (input dim), ``m`` (hidden units) and ``c`` (outputs) must be ints >= 1, as
    :meth:`TwoLayerNet.random` requires."""
    activation = choice(activation, "activation", ACTIVATIONS)
    d, m, c = int_at_least(d, "d", 1), int_at_least(m, "m", 1), int_at_least(c, "c", 1)
    if activation == "linear":
        r = min(m, d, c)
        return m * (d + c) - r * (d + c - r)
    return {"gelu": 0, "silu": 0, "tanh": 0, "relu": m, "swiglu": m}[activation]
