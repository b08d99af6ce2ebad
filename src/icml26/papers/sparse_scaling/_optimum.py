"""Where the [P37] law puts the loss-optimal density, on a slice of (model size, tokens) chosen by the caller.

The law decreases in the raw size N_raw and in the tokens D (N' and D' grow with them and saturate), so leaving one
of them free means taking its limit: with both free the loss at density s is the data-limited floor
``E + A·f(s)/(N*(U)(1 + R_N*(s)))^α + B/(U(1 + R_D*(s)))^β``, the best any model and any number of epochs reach on
``U`` unique tokens. :func:`iso_flop_optimum` instead fixes the training compute C = 6·N·D (N active).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from icml26.common.validation import int_at_least, real
from icml26.papers.sparse_scaling._law import PAPER_PARAMS, LawParams, _law

__all__ = ["DensityOptimum", "iso_flop_optimum", "loss_optimal_density"]


@dataclass(frozen=True)
class DensityOptimum:
    """[P37] the loss-minimising density on a slice, its loss, and the dense loss on the same slice."""

    density: float
    loss: float
    dense_loss: float

    @property
    def sparsity(self) -> float:
        """1 − density."""
        return 1.0 - self.density


def _minimise_density(f: Callable[[float], float], s_min: float, n_grid: int) -> DensityOptimum:
    """Grid over [s_min, 1], then a bounded scalar refinement around the best grid point."""
    grid = np.linspace(s_min, 1.0, n_grid)
    vals = np.array([f(float(s)) for s in grid])
    i = int(np.argmin(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, n_grid - 1)]
    best_s, best = float(grid[i]), float(vals[i])
    if hi > lo:
        res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-7})
        if float(res.fun) < best:
            best_s, best = float(res.x), float(res.fun)
    return DensityOptimum(best_s, best, float(vals[-1]))


def _check(params: object) -> LawParams:
    if not isinstance(params, LawParams):
        raise TypeError(f"params must be a LawParams, got {type(params).__name__}")
    return params


def loss_optimal_density(U: float, *, N_raw: float | None = None, D: float | None = None,
                         params: LawParams = PAPER_PARAMS, s_min: float = 0.01, n_grid: int = 991) -> DensityOptimum:
    """[P37] the density minimising the law's loss on ``U`` unique tokens, with the raw size ``N_raw`` and the
    tokens ``D`` fixed where given and free (their limit, module docstring) where ``None``: both ``None`` is the
    abstract's "with fixed data"; both given is a fixed architecture and epoch count (e.g. the notes' 520M, 16
    epochs). Searched over densities in [``s_min``, 1] (a grid of ``n_grid``, then refined)."""
    p = _check(params)
    U = real(U, "U", lo=0.0, lo_open=True)
    n = np.inf if N_raw is None else real(N_raw, "N_raw", lo=0.0, lo_open=True)
    d = np.inf if D is None else real(D, "D", lo=0.0, lo_open=True)
    s_min = real(s_min, "s_min", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    n_grid = int_at_least(n_grid, "n_grid", 3)
    u = min(U, d)

    def loss_at(s: float) -> float:
        a = np.asarray(float(s))
        with np.errstate(invalid="ignore"):
            return float(_law(n * a, a, np.asarray(u), np.asarray(d), p))

    return _minimise_density(loss_at, s_min, n_grid)


def _iso_flop_loss(s: float, U: float, C: float, p: LawParams) -> float:
    """Min over the active size N (D = C / 6N) of the law at density s, unique tokens min(U, D)."""

    def at(log_n: float) -> float:
        n = np.exp(log_n)
        d = C / (6.0 * n)
        return float(_law(np.asarray(n), np.asarray(s), np.asarray(min(U, d)), np.asarray(d), p))

    grid = np.linspace(np.log(1e5), np.log(C / 6.0 / 1e5), 61)
    vals = [at(x) for x in grid]
    i = int(np.argmin(vals))
    res = minimize_scalar(at, bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 60)]), method="bounded")
    return float(min(res.fun, vals[i]))


def iso_flop_optimum(U: float, C: float, *, params: LawParams = PAPER_PARAMS, s_min: float = 0.05,
                     n_grid: int = 96) -> DensityOptimum:
    """[P37] the loss-minimising density at training compute ``C`` FLOPs (6·N·D, N active) on ``U`` unique
    tokens, the model size chosen best for each density (the paper's iso-FLOP view of the optimal sparsity)."""
    p = _check(params)
    U = real(U, "U", lo=0.0, lo_open=True)
    C = real(C, "C", lo=6e10, lo_open=True)
    s_min = real(s_min, "s_min", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    n_grid = int_at_least(n_grid, "n_grid", 3)
    return _minimise_density(lambda s: _iso_flop_loss(float(s), U, C, p), s_min, n_grid)
