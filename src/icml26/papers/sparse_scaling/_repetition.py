"""The repetition half-life R_D*(s) of [P37] fitted per density at one model size: the reduced form of stages 3-4.

At a fixed architecture and a fixed density the parameter term of the law is one constant, so runs on fresh data
(U = D) and on repeated data (U fixed, D = U·epochs) at that size follow

    L = K_s + B_s / D'^β,    D' = U + U·R_D*(s)·(1 − exp(−R_D / R_D*(s))),    R_D = D/U − 1,

with K_s, B_s and R_D*(s) per density and β shared (the paper ties the data exponent across densities). The fresh
runs pin K_s, B_s and β (D' = D), the repeated runs pin R_D*(s). Fitted as the paper fits: Huber (δ = 1e-3) on the
log of the loss, L-BFGS-B from a grid of starts, the best kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common.validation import int_at_least, real
from icml26.papers.sparse_scaling._fit import R_MAX, best_of, huber_terms, r2_score, run_columns
from icml26.papers.sparse_scaling._law import positive

__all__ = ["RepetitionFit", "RepetitionProblem", "effective_data", "fit_repetition"]

_R_MIN = 1e-2


def effective_data(U: Any, D: Any, half_life: Any) -> Any:
    """[P37] effective data ``D' = U + U·R*(1 − exp(−R_D/R*))``, ``R_D = max(D/U − 1, 0)`` (Muennighoff-style
    repetition, the paper's stage 3); positive scalars or 1-D arrays that broadcast."""
    u, d, h = np.broadcast_arrays(positive(U, "U"), positive(D, "D"), positive(half_life, "half_life"))
    out = _effective(u, d, h)
    return float(out) if out.ndim == 0 else out


def _effective(U: np.ndarray, D: np.ndarray, h: np.ndarray) -> np.ndarray:
    r = np.maximum(D / U - 1.0, 0.0)
    return U + U * h * (1.0 - np.exp(-r / h))


@dataclass(frozen=True)
class RepetitionProblem:
    """The objective of :func:`fit_repetition` over ``x = [log K_j, log B_j, log β, log R*_j]`` (j over the
    ``m`` densities): runs with density index ``idx``, unique tokens ``U``, tokens ``D``, log-losses ``logy``."""

    idx: np.ndarray
    U: np.ndarray
    D: np.ndarray
    logy: np.ndarray
    m: int
    delta: float

    def parts(self, x: np.ndarray) -> tuple[Any, ...]:
        m, idx = self.m, self.idx
        K, B, beta, R = np.exp(x[:m]), np.exp(x[m:2 * m]), float(np.exp(x[2 * m])), np.exp(x[2 * m + 1:])
        r, h = np.maximum(self.D / self.U - 1.0, 0.0), R[idx]
        decay = np.exp(-r / h)
        d_eff = self.U + self.U * h * (1.0 - decay)
        term = B[idx] * d_eff ** -beta
        return K, B, beta, R, h, r, decay, d_eff, term, K[idx] + term

    def objective(self, x: np.ndarray) -> float:
        """Σ Huber_δ(log L̂ − log L)."""
        return float(huber_terms(np.log(self.parts(x)[-1]) - self.logy, self.delta)[0].sum())

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """The exact gradient of :meth:`objective` in ``x``."""
        K, _, beta, _, h, r, decay, d_eff, term, pred = self.parts(x)
        w = huber_terms(np.log(pred) - self.logy, self.delta)[1] / pred  # d objective / d pred
        dd_dh = self.U * ((1.0 - decay) - (r / h) * decay)  # d D' / d R*
        g = [w * p for p in (K[self.idx], term, -beta * np.log(d_eff) * term, -beta * term / d_eff * dd_dh * h)]
        return np.concatenate([np.bincount(self.idx, g[0], self.m), np.bincount(self.idx, g[1], self.m),
                               [g[2].sum()], np.bincount(self.idx, g[3], self.m)])


@dataclass(frozen=True)
class RepetitionFit:
    """[P37] what :func:`fit_repetition` found, per density: ``R_D_star``, the offset ``K`` and scale ``B`` of the data
    term; the shared exponent ``beta``; ``at_bound[s]`` is True where R_D*(s) sits at the upper bound
    (``R_MAX``: the runs show no saturation, so the half-life is not identified)."""

    densities: tuple[float, ...]
    R_D_star: dict[float, float]
    K: dict[float, float]
    B: dict[float, float]
    beta: float
    objective: float
    r2: float
    n_starts: int
    at_bound: dict[float, bool]


def fit_repetition(runs: Mapping[str, Any], *, betas: Sequence[float] = (0.1, 0.3, 0.6),
                   half_lives: Sequence[float] = (1.0, 4.0, 16.0), delta: float = 1e-3,
                   max_iter: int = 500) -> RepetitionFit:
    """[P37] R_D*(s) per density from runs at one architecture: ``runs`` maps ``s`` (density), ``U``, ``D`` and
    ``loss`` to equal-length 1-D arrays, fresh-data runs having ``U = D`` and repeated runs ``D > U`` (module
    docstring). Starts: every (β, R*) of ``betas`` × ``half_lives`` (the same R* for every density), K at 0.9 of
    the density's lowest loss and B from its highest; the best Huber objective wins. Every density needs at least
    one fresh and one repeated run, and three runs in all."""
    cols = run_columns(runs, ("s", "U", "D", "loss"))
    delta = real(delta, "delta", lo=0.0, lo_open=True)
    max_iter = int_at_least(max_iter, "max_iter", 1)
    starts_b = [real(b, "betas", lo=0.0, lo_open=True) for b in betas]
    starts_r = [real(r, "half_lives", lo=_R_MIN, hi=R_MAX) for r in half_lives]
    if not starts_b or not starts_r:
        raise ValueError("betas and half_lives need at least one start value each")
    s, U, D, y = cols["s"], np.minimum(cols["U"], cols["D"]), cols["D"], cols["loss"]
    dens = tuple(sorted({float(v) for v in s}, reverse=True))
    idx = np.array([dens.index(float(v)) for v in s])
    for j, d in enumerate(dens):
        here = idx == j
        if here.sum() < 3 or not np.any(D[here] > U[here]) or not np.any(D[here] == U[here]):
            raise ValueError(f"runs at density {d:g}: need >= 3 runs, some fresh (U = D) and some repeated (D > U)")
    m = len(dens)
    prob = RepetitionProblem(idx, U, D, np.log(y), m, delta)
    k0 = np.array([np.log(0.9 * y[idx == j].min()) for j in range(m)])
    starts = []
    for beta, r in itertools.product(starts_b, starts_r):
        b0 = [np.log(max(y[idx == j].max() - np.exp(k0[j]), 1e-6)) + beta * np.log(U[idx == j].min())
              for j in range(m)]
        starts.append(np.concatenate([k0, b0, [np.log(beta)], np.full(m, np.log(r))]))
    bounds = [(None, None)] * (2 * m) + [(np.log(1e-3), np.log(5.0))] + [(np.log(_R_MIN), np.log(R_MAX))] * m
    x, f, _ = best_of(prob.objective, starts, bounds, max_iter, grad=prob.gradient)
    K, B, beta, R, *_, pred = prob.parts(x)
    return RepetitionFit(dens, dict(zip(dens, map(float, R))), dict(zip(dens, map(float, K))),
                         dict(zip(dens, map(float, B))), beta, f, r2_score(y, pred), len(starts),
                         {d: bool(r >= 0.99 * R_MAX) for d, r in zip(dens, R)})
