"""Exact arithmetic for MoE gating laws: the rate of ``Σ_e W_gate[e, :]`` under gradient flow ([P04] Thms 4.5-4.7).

Numbers live in ``Q[ℓ, ℓ⁻¹]`` with ``ℓ = ln 3``. Since ``ln 3`` is transcendental, two such Laurent polynomials are
equal iff their rational coefficients are, so every comparison below is exact. Sigmoids and exponentials are taken
only at integer multiples of ``ℓ``, where they are rational: ``σ(nℓ) = 3ⁿ/(1 + 3ⁿ)``, ``exp(nℓ) = 3ⁿ``.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypedDict

from icml26.common.validation import choice

__all__ = ["Counterexample", "GatingRate", "LogPoly", "gating_rate_exact", "thm47_counterexample"]

Number = int | Fraction


class LogPoly:
    """An element ``Σ_k a_k ℓ^k`` of ``Q[ℓ, ℓ⁻¹]``, ``ℓ = ln 3``, with rational ``a_k`` (immutable): the exact numbers
    of the gating-rate computation for [P04] Thms 4.5-4.7 (the Thm 4.7 counterexample has logits ``(0, ln 3)``)."""

    __slots__ = ("_c",)

    def __init__(self, coeffs: Mapping[int, Number] | Number = 0) -> None:
        if isinstance(coeffs, (int, Fraction)) and not isinstance(coeffs, bool):
            coeffs = {0: coeffs}
        if not isinstance(coeffs, Mapping):
            raise TypeError(f"coeffs must be a dict {{power: Fraction}} or a rational, got {type(coeffs).__name__}")
        self._c = {int(k): Fraction(v) for k, v in coeffs.items() if Fraction(v) != 0}

    @classmethod
    def ell(cls, power: int = 1, coef: Number = 1) -> LogPoly:
        """``coef · ℓ^power``."""
        return cls({power: coef})

    @staticmethod
    def _lift(x: LogPoly | Number) -> LogPoly:
        return x if isinstance(x, LogPoly) else LogPoly(x)

    def __add__(self, o: LogPoly | Number) -> LogPoly:
        o = self._lift(o)
        c = dict(self._c)
        for k, v in o._c.items():
            c[k] = c.get(k, Fraction(0)) + v
        return LogPoly(c)

    __radd__ = __add__

    def __neg__(self) -> LogPoly:
        return LogPoly({k: -v for k, v in self._c.items()})

    def __sub__(self, o: LogPoly | Number) -> LogPoly:
        return self + (-self._lift(o))

    def __rsub__(self, o: LogPoly | Number) -> LogPoly:
        return self._lift(o) - self

    def __mul__(self, o: LogPoly | Number) -> LogPoly:
        o = self._lift(o)
        c: dict[int, Fraction] = {}
        for i, a in self._c.items():
            for j, b in o._c.items():
                c[i + j] = c.get(i + j, Fraction(0)) + a * b
        return LogPoly(c)

    __rmul__ = __mul__

    def __truediv__(self, o: Number) -> LogPoly:
        if isinstance(o, LogPoly):
            o = o.rational()
        return LogPoly({k: v / Fraction(o) for k, v in self._c.items()})

    def __eq__(self, o: object) -> bool:
        if isinstance(o, (int, Fraction)):
            o = LogPoly(o)
        return isinstance(o, LogPoly) and self._c == o._c

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._c.items())))

    def rational(self) -> Fraction:
        """The value as a ``Fraction``; ``ValueError`` if it involves ``ℓ``."""
        if any(k != 0 for k in self._c):
            raise ValueError(f"{self} is not rational")
        return self._c.get(0, Fraction(0))

    def ell_multiple(self) -> int:
        """``n`` when the value is ``n·ℓ`` with integer ``n`` (or 0); ``ValueError`` otherwise."""
        if not self._c:
            return 0
        if set(self._c) != {1} or self._c[1].denominator != 1:
            raise ValueError(f"{self} is not an integer multiple of ln 3; sigmoid/exp would not be rational")
        return int(self._c[1])

    def __float__(self) -> float:
        import math

        return float(sum(float(v) * math.log(3.0) ** k for k, v in self._c.items()))

    def __repr__(self) -> str:
        if not self._c:
            return "0"
        return " + ".join(f"{v}" if k == 0 else f"({v})·ln3^{k}" for k, v in sorted(self._c.items()))


#: an entry of an exact matrix: a rational or an element of Q[ln 3, 1/ln 3]
Entry = LogPoly | Number


def _sigmoid(z: LogPoly) -> Fraction:
    t = Fraction(3) ** z.ell_multiple()
    return t / (1 + t)


def _exp(z: LogPoly) -> Fraction:
    return Fraction(3) ** z.ell_multiple()


@dataclass(frozen=True)
class GatingRate:
    """Exact quantities at one point: ``gates`` g_e, ``dL_dz`` ∂L/∂z_e, ``loss`` L, and ``rate`` = d/dt Σ_e W[e, :]
    under gradient flow (a ``d``-vector, zero for a conservation law), the router-row law of [P04] Thms 4.5-4.7."""

    gates: tuple[Fraction, ...]
    dL_dz: tuple[LogPoly, ...]
    loss: LogPoly
    rate: tuple[LogPoly, ...]


def _matvec_t(M: Sequence[Sequence[Entry]], x: Sequence[Entry]) -> list[LogPoly]:
    """``M^T x`` for ``M`` given as rows (len(x) rows)."""
    cols = len(M[0])
    return [sum((LogPoly._lift(M[i][j]) * x[i] for i in range(len(x))), LogPoly()) for j in range(cols)]


def _rationals(v: object, name: str) -> list[Number]:
    """``v`` as a non-empty list of exact rationals (ints or Fractions; floats, bools and nested lists refused)."""
    if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
        raise TypeError(f"{name} must be a sequence of rationals (int or Fraction), got {type(v).__name__}")
    items = list(v)
    if not items:
        raise ValueError(f"{name} must not be empty")
    out: list[Number] = []
    for i, e in enumerate(items):
        if isinstance(e, bool) or not isinstance(e, numbers.Rational):
            raise TypeError(f"{name}[{i}] must be an exact rational (int or Fraction), got {type(e).__name__} {e!r}")
        out.append(int(e) if isinstance(e, numbers.Integral) else Fraction(int(e.numerator), int(e.denominator)))
    return out


def gating_rate_exact(
    router: Sequence[Sequence[Entry]],
    experts: Sequence[tuple[Sequence[Sequence[Entry]], ...]],
    x: Sequence[Number],
    y: Sequence[Number],
    *,
    gating: str,
) -> GatingRate:
    """d/dt ``Σ_e W_gate[e, :]`` under gradient flow on ``L = ½‖f(x) − y‖²``, computed exactly.

    Implements the MoE of [P04] Sec. 4.3: ``f(x) = Σ_e g_e(z) E_e(x)``, ``z = W_gate x``; ``gating`` is
    ``"softmax"`` (Thm 4.5: rate 0 for any data) or ``"normalized_sigmoid"`` (``g_e = σ(z_e)/Σ σ(z_e')``, Thm 4.7).
    Each expert is a SwiGLU ``E(x) = C^T[(A^T x) ⊙ SiLU(B^T x)]`` given as ``(A, B, C)`` with ``A, B`` (d × m) and ``C``
    (m × c) as nested rows. Router logits and SwiGLU gate pre-activations must be integer multiples of ``ln 3``.
    """
    gating = choice(gating, "gating", ("softmax", "normalized_sigmoid"))
    x, y = _rationals(x, "x"), _rationals(y, "y")
    d = len(x)
    if any(len(r) != d for r in router):
        raise ValueError(f"router rows must have length len(x) = {d}")
    if len(experts) != len(router):
        raise ValueError(f"experts has {len(experts)} entries but router has {len(router)} rows")
    z = [sum((LogPoly._lift(w) * xi for w, xi in zip(row, x)), LogPoly()) for row in router]
    outs = []
    for i, (A, B, C) in enumerate(experts):
        if len(A) != d or len(B) != d:
            raise ValueError(f"experts[{i}]: A and B need {d} rows")
        a, b = _matvec_t(A, x), _matvec_t(B, x)
        hidden = [ai * (bi * _sigmoid(bi)) for ai, bi in zip(a, b)]  # (A^T x) ⊙ SiLU(B^T x)
        outs.append(_matvec_t(C, hidden))
    if any(len(o) != len(y) for o in outs):
        raise ValueError("y must have the experts' output dimension")
    E = len(z)
    if gating == "softmax":
        w = [_exp(zi) for zi in z]
        S = sum(w)
        g = [wi / S for wi in w]
        dg = [[g[e] * ((1 if e == k else 0) - g[k]) for k in range(E)] for e in range(E)]  # ∂g_e/∂z_k
    else:
        s = [_sigmoid(zi) for zi in z]
        ds = [si * (1 - si) for si in s]
        S = sum(s)
        g = [si / S for si in s]
        dg = [[(ds[e] / S if e == k else 0) - s[e] * ds[k] / S**2 for k in range(E)] for e in range(E)]
    f = [sum((g[e] * outs[e][j] for e in range(E)), LogPoly()) for j in range(len(y))]
    r = [fj - yj for fj, yj in zip(f, y)]
    loss = sum((rj * rj for rj in r), LogPoly()) / 2
    proj = [sum((rj * oj for rj, oj in zip(r, outs[e])), LogPoly()) for e in range(E)]  # ⟨r, E_e⟩
    dL_dz = [sum((proj[e] * dg[e][k] for e in range(E)), LogPoly()) for k in range(E)]
    total = sum(dL_dz, LogPoly())
    rate = tuple(-(total * xj) for xj in x)  # θ' = −∇L and ∂L/∂W[k, j] = ∂L/∂z_k · x_j
    return GatingRate(gates=tuple(g), dL_dz=tuple(dL_dz), loss=loss, rate=rate)


class Counterexample(TypedDict):
    """The exact parameters of the published counterexample to [P04] Thm 4.7 (see :func:`thm47_counterexample`)."""

    router: list[list[Entry]]
    experts: list[tuple[list[list[Entry]], list[list[Entry]], list[list[Entry]]]]
    x: list[Number]
    y: list[Number]
    expected_rate: tuple[Fraction, Fraction, Fraction]


def thm47_counterexample() -> Counterexample:
    """The published counterexample to [P04] Thm 4.7 (from the third-party audit the notes cite), as exact parameters.

    ``d = 3``, two SwiGLU experts with one hidden unit, ``x = e₁``, ``y = 0``; router rows ``0`` and ``ℓ e₁`` (logits
    ``0, ln 3``: sigmoids ``1/2, 3/4``); expert 1 has ``A = 0``; expert 2 has ``A = (4/(3ℓ)) e₁``, ``B = ℓ e₁``,
    ``C = e₁ᵀ``, so its output is exactly ``e₁`` (``SiLU(ln 3) = (3/4) ln 3``). Expected rate ``(9/250, 0, 0)``.
    """
    zero = LogPoly()

    def col(v: LogPoly) -> list[list[Entry]]:  # a d×1 matrix with v in row 0
        return [[v], [zero], [zero]]

    e1_row: list[list[Entry]] = [[1, 0, 0]]  # C: m × c with m = 1
    return {
        "router": [[zero, zero, zero], [LogPoly.ell(1), zero, zero]],
        "experts": [(col(zero), col(LogPoly.ell(1)), e1_row),
                    (col(LogPoly.ell(-1, Fraction(4, 3))), col(LogPoly.ell(1)), e1_row)],
        "x": [1, 0, 0],
        "y": [0, 0, 0],
        "expected_rate": (Fraction(9, 250), Fraction(0), Fraction(0)),
    }
