"""Two-layer MLPs with non-gated (ReLU/GELU/SiLU) and gated (ReGLU/GEGLU/SwiGLU) hidden layers, parameter-matched.

Implements the two model families of [P21] (two-layer setup; authors' code ``models/mlp.py``):
    non-GLU:  z(x) = V φ(W x)                  W ∈ R^{m×d}, V ∈ R^{c×m}
    GLU_φ:    z(x) = V [(P x) ⊙ φ(W x)]        W, P ∈ R^{m'×d}, V ∈ R^{c×m'}
with LeCun-normal initialisation (every entry ~ N(0, 1/fan_in)), i.e. the standard parametrisation of the authors'
code. A GLU model has two input matrices, so at equal parameter count its hidden width m' is smaller than m
(:func:`matched_glu_width`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common.validation import positive_int
from icml26.common.validation import seed as check_seed

__all__ = [
    "ACTIVATIONS",
    "GATED",
    "GLU_PAIRS",
    "TwoLayerMLP",
    "count_params",
    "make_mlp",
    "matched_glu_width",
]

_PHI: dict[str, Callable[[Tensor], Tensor]] = {
    "relu": torch.relu,
    "gelu": nn.functional.gelu,
    "silu": nn.functional.silu,
    "identity": lambda t: t,
}

#: model kind -> (activation φ, gated?)
ACTIVATIONS: dict[str, tuple[str, bool]] = {
    "relu": ("relu", False),
    "gelu": ("gelu", False),
    "silu": ("silu", False),
    "reglu": ("relu", True),
    "geglu": ("gelu", True),
    "swiglu": ("silu", True),
    "bilinear": ("identity", True),  # baseline of [P21]: a gate without a non-linearity
}

#: the gated kinds
GATED: tuple[str, ...] = tuple(k for k, (_, g) in ACTIVATIONS.items() if g)

#: non-GLU kind -> its GLU counterpart (same φ)
GLU_PAIRS: dict[str, str] = {"relu": "reglu", "gelu": "geglu", "silu": "swiglu"}


def _check_pos_int(name: str, value: object) -> int:
    return positive_int(value, name)


def _check_kind(kind: object) -> str:
    if not isinstance(kind, str) or kind not in ACTIVATIONS:
        raise ValueError(f"kind must be one of {sorted(ACTIVATIONS)}, got {kind!r}")
    return kind


def _generator(seed: int | torch.Generator) -> torch.Generator:
    """The initialisation's generator: ``seed`` itself, or a fresh one seeded with it (no OS-entropy default)."""
    if isinstance(seed, torch.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int >= 0 or a torch.Generator, got {type(seed).__name__}")
    return torch.Generator().manual_seed(check_seed(seed))


class TwoLayerMLP(nn.Module):
    """A two-layer MLP, non-gated ``z = V φ(Wx)`` or gated ``z = V[(Px) ⊙ φ(Wx)]`` ([P21], two-layer setup).

    Symbols: d ↔ ``in_dim``, hidden width m ↔ ``hidden``, c ↔ ``out_dim``, W ↔ ``W.weight``, P ↔ ``P.weight`` (gated
    kinds only), V ↔ ``V.weight``, φ ↔ the activation of ``kind``.

    Args:
        kind: one of :data:`ACTIVATIONS` (``relu``, ``gelu``, ``silu``, ``reglu``, ``geglu``, ``swiglu``, ``bilinear``).
        in_dim: input dimension d.
        hidden: hidden width (m, or m' for a gated kind; see :func:`matched_glu_width`).
        out_dim: output dimension c.
        bias: add (zero-initialised) biases to every linear map; the paper's analysis has none.
        seed: an int or a ``torch.Generator`` (required, so equal seeds give equal models); the LeCun-normal
            initialisation draws only from it.
        dtype: parameter dtype.

    ``forward`` maps ``(N, d)`` to ``(N, c)``.
    """

    def __init__(
        self,
        kind: str,
        *,
        in_dim: int,
        hidden: int,
        out_dim: int = 1,
        bias: bool = False,
        seed: int | torch.Generator,
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        self.kind = _check_kind(kind)
        self.in_dim = _check_pos_int("in_dim", in_dim)
        self.hidden = _check_pos_int("hidden", hidden)
        self.out_dim = _check_pos_int("out_dim", out_dim)
        if not isinstance(bias, bool):
            raise TypeError(f"bias must be a bool, got {type(bias).__name__}")
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating torch.dtype, got {dtype!r}")
        phi_name, self.gated = ACTIVATIONS[kind]
        self._phi = _PHI[phi_name]
        g = _generator(seed)
        # nn.Linear's default init draws from torch's global RNG before we overwrite it: fork so the caller's global
        # state is left untouched (library code never consumes global randomness)
        with torch.random.fork_rng(devices=[]):
            self.W = nn.Linear(in_dim, hidden, bias=bias, dtype=dtype)
            self.P = nn.Linear(in_dim, hidden, bias=bias, dtype=dtype) if self.gated else None
            self.V = nn.Linear(hidden, out_dim, bias=bias, dtype=dtype)
        with torch.no_grad():  # LeCun normal: N(0, 1/fan_in), zero biases
            for lin in (self.W, self.P, self.V):
                if lin is None:
                    continue
                lin.weight.copy_(torch.randn(lin.weight.shape, generator=g, dtype=dtype) / math.sqrt(lin.in_features))
                if lin.bias is not None:
                    lin.bias.zero_()

    def features(self, x: Tensor) -> Tensor:
        """The hidden representation h(x): φ(Wx), or (Px) ⊙ φ(Wx) for a gated kind; shape ``(N, hidden)``."""
        h = self._phi(self.W(x))
        if self.P is not None:
            h = self.P(x) * h
        return h

    def forward(self, x: Tensor) -> Tensor:
        """z(x) = V h(x), shape ``(N, c)``."""
        return self.V(self.features(x))

    def extra_repr(self) -> str:
        return f"kind={self.kind!r}, in_dim={self.in_dim}, hidden={self.hidden}, out_dim={self.out_dim}"


def count_params(*, kind: str, in_dim: int, hidden: int, out_dim: int = 1, bias: bool = False) -> int:
    """Number of parameters of :class:`TwoLayerMLP` (closed form, no model built): the count that the
    parameter-matched comparison of [P21] equalises.

    non-GLU: m(d + c) (+ m + c with biases); GLU: m'(2d + c) (+ 2m' + c with biases).
    """
    _check_kind(kind)
    d, m, c = (_check_pos_int(n, v) for n, v in (("in_dim", in_dim), ("hidden", hidden), ("out_dim", out_dim)))
    n_in = 2 if ACTIVATIONS[kind][1] else 1
    return n_in * m * d + m * c + (n_in * m + c if bias else 0)


def matched_glu_width(width: int, *, in_dim: int, out_dim: int = 1, bias: bool = False) -> int:
    """Hidden width m' of a GLU model with the parameter count of a width-``width`` non-GLU model.

    The parameter-matched comparison of [P21] (and of the authors' code).

    Without biases m(d + c) = m'(2d + c), so m' = m (d + c) / (2d + c); with biases the counts of
    :func:`count_params` are matched. Rounds to the nearest integer (ties down), at least 1; the match is exact when
    the division is, and otherwise off by less than half a GLU unit ((2d + c) parameters).
    """
    m = _check_pos_int("width", width)
    d, c = _check_pos_int("in_dim", in_dim), _check_pos_int("out_dim", out_dim)
    if not isinstance(bias, bool):
        raise TypeError(f"bias must be a bool, got {type(bias).__name__}")
    num = m * (d + c + 1) if bias else m * (d + c)  # non-GLU parameters, minus the shared output bias c
    den = 2 * d + c + 2 if bias else 2 * d + c  # parameters per GLU hidden unit
    q, r = divmod(num, den)
    return max(1, q + (1 if 2 * r > den else 0))


def make_mlp(
    kind: str,
    *,
    in_dim: int,
    width: int,
    out_dim: int = 1,
    param_matched: bool = True,
    bias: bool = False,
    seed: int | torch.Generator,
    dtype: torch.dtype = torch.float64,
) -> TwoLayerMLP:
    """A :class:`TwoLayerMLP` of ``kind`` sized against a non-GLU reference of hidden width ``width`` (= m).

    A gated kind gets hidden width :func:`matched_glu_width` (``param_matched=True``, [P21]'s comparison) or
    ``width`` itself (``param_matched=False``, equal width). ``seed`` (int or ``torch.Generator``) is required.
    """
    kind = _check_kind(kind)
    _check_pos_int("width", width)
    hidden = width
    if ACTIVATIONS[kind][1] and param_matched:
        hidden = matched_glu_width(width, in_dim=in_dim, out_dim=out_dim, bias=bias)
    return TwoLayerMLP(kind, in_dim=in_dim, hidden=hidden, out_dim=out_dim, bias=bias, seed=seed, dtype=dtype)
