"""Fitting the [P37] law to runs: the paper's recipe, a Huber loss (δ = 1e-3) on the log of the loss, minimised by
L-BFGS from a grid of starting points, the best end point kept (the authors' notebook, stages 1-4).

:func:`fit_law` fits any subset of the law's 14 constants to runs of (N_raw, s, U, D, loss); :func:`fit_repetition`
(in ``_repetition.py``) fits the repetition half-life R_D*(s) per density at one model size and one unique-data
budget, the reduced form that tiny-model runs can identify (stages 3-4 with the parameter term held constant).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from scipy.optimize import minimize

from icml26.common.validation import int_at_least, real, real_array
from icml26.papers.sparse_scaling._law import PAPER_PARAMS, LawParams, _law

__all__ = ["DEFAULT_GRID", "R_MAX", "LawFit", "best_of", "fit_law", "huber", "huber_terms", "r2_score", "run_columns"]

#: starting values per constant for :func:`fit_law` (three each; the notebook's grids are wider and per stage)
DEFAULT_GRID: dict[str, tuple[float, ...]] = {
    "a": (2.0, 5.0, 8.0), "b": (2.0, 5.0, 8.0), "e": (-0.5, 0.5, 1.0), "alpha": (0.1, 0.3, 0.6),
    "beta": (0.1, 0.3, 0.6), "epsilon": (-0.5, 0.0, 0.5), "mu": (0.5, 1.0, 2.0), "c": (-0.5, 0.0, 0.5),
    "r_n": (2.0, 8.0, 16.0), "r_d": (2.0, 8.0, 16.0), "lambda_n": (-1.0, 0.0, 2.0), "sigma_n": (-2.0, 0.0, 1.0),
    "lambda_d": (-1.0, 0.0, 2.0), "sigma_d": (-2.0, 0.0, 1.0),
}
_BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "alpha": (1e-3, 3.0), "beta": (1e-3, 3.0), "mu": (1e-3, 10.0), "r_n": (1e-3, 1e4), "r_d": (1e-3, 1e4)}
_NAMES = tuple(f.name for f in fields(LawParams))
_BAD = 1e12  # the objective where the law is undefined (a non-positive density factor or loss)
R_MAX = 1e3  # fit_repetition's upper bound on R_D*: a fit there found no saturation


def huber(r: Any, *, delta: float) -> Any:
    """[P37] the fit's Huber loss of residuals ``r``: ``r²/2`` for ``|r| <= δ``, else ``δ(|r| - δ/2)``."""
    delta = real(delta, "delta", lo=0.0, lo_open=True)
    return huber_terms(real_array(r, "r", ndim=(0, 1), allow_empty=True), delta)[0]


def _central_grad(fn: Callable[[np.ndarray], float], x: np.ndarray) -> np.ndarray:
    g = np.empty_like(x)
    for i in range(x.size):
        h = 1e-6 * max(1.0, abs(x[i]))
        up, dn = x.copy(), x.copy()
        up[i] += h
        dn[i] -= h
        g[i] = (fn(up) - fn(dn)) / (2 * h)
    return g


def best_of(fn: Callable[[np.ndarray], float], starts: Sequence[np.ndarray],
            bounds: Sequence[tuple[float | None, float | None]], max_iter: int,
            grad: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[np.ndarray, float, bool]:
    """L-BFGS-B from every start (``grad``, else central differences); the lowest end point, whether it converged."""
    jac = grad if grad is not None else (lambda x: _central_grad(fn, x))
    best_x, best_f, ok = starts[0], np.inf, False
    for x0 in starts:
        res = minimize(fn, x0, jac=jac, method="L-BFGS-B", bounds=bounds,
                       options={"maxiter": max_iter, "ftol": 1e-15, "gtol": 1e-12})
        if float(res.fun) < best_f:
            best_x, best_f, ok = np.asarray(res.x, dtype=float), float(res.fun), bool(res.success)
    return best_x, best_f, ok


def huber_terms(r: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Huber values and derivatives of residuals ``r`` (unchecked, for objectives)."""
    x = np.abs(r)
    return np.where(x <= delta, 0.5 * r * r, delta * (x - 0.5 * delta)), np.clip(r, -delta, delta)


def r2_score(y: np.ndarray, pred: np.ndarray) -> float:
    ss = float(((y - y.mean()) ** 2).sum())
    return float(1.0 - ((y - pred) ** 2).sum() / ss) if ss > 0 else float("nan")


def run_columns(runs: object, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
    if not isinstance(runs, Mapping):
        raise TypeError(f"runs must be a mapping of equal-length 1-D arrays with keys {list(keys)}, "
                        f"got {type(runs).__name__}")
    missing = [k for k in keys if k not in runs]
    if missing:
        raise ValueError(f"runs lacks the columns {missing} (needs {list(keys)})")
    cols = {k: real_array(runs[k], f"runs[{k!r}]", ndim=1) for k in keys}
    n = {v.size for v in cols.values()}
    if len(n) != 1:
        raise ValueError(f"runs columns must have equal lengths, got { {k: v.size for k, v in cols.items()} }")
    for k, v in cols.items():
        if np.any(v <= 0):
            raise ValueError(f"runs[{k!r}] must be > 0, got min {v.min():g}")
    if np.any(cols["s"] > 1):
        raise ValueError("runs['s'] is the density and must lie in (0, 1]")
    return cols


@dataclass(frozen=True)
class LawFit:
    """[P37] what :func:`fit_law` found: the constants, the Huber objective, R² of the loss, the starts tried."""

    params: LawParams
    objective: float
    r2: float
    n_starts: int
    free: tuple[str, ...]
    converged: bool


def _starts(free: tuple[str, ...], init: LawParams, grid: Mapping[str, Sequence[float]], max_starts: int
            ) -> list[np.ndarray]:
    axes = [tuple(float(v) for v in grid[n]) if n in grid else (getattr(init, n),) for n in free]
    count = int(np.prod([len(a) for a in axes]))
    if count > max_starts:
        raise ValueError(f"grid gives {count} starts (> max_starts={max_starts}): pass a smaller grid")
    return [np.array(p, dtype=float) for p in itertools.product(*axes)]


def _free_names(free: object, tie: bool) -> tuple[str, ...]:
    if isinstance(free, str) or not isinstance(free, Sequence) or not free:
        raise TypeError(f"free must be a non-empty sequence of constant names from {list(_NAMES)}, got {free!r}")
    names = tuple(free)
    bad = [n for n in names if n not in _NAMES]
    if bad or len(set(names)) != len(names):
        raise ValueError(f"free must name distinct constants of {list(_NAMES)}, got {list(names)}")
    if tie and "beta" in names:
        raise ValueError("free names 'beta' but tie_alpha_beta=True sets beta = alpha (free 'alpha' instead)")
    return names


def fit_law(runs: Mapping[str, Any], *, free: Sequence[str], init: LawParams = PAPER_PARAMS,
            grid: Mapping[str, Sequence[float]] | None = None, delta: float = 1e-3, tie_alpha_beta: bool = True,
            max_iter: int = 300, max_starts: int = 1000) -> LawFit:
    """[P37] fit of the law's constants named in ``free`` (others held at ``init``) to ``runs``, a mapping of 1-D
    arrays ``N_raw``, ``s`` (density), ``U``, ``D``, ``loss``: minimises Σ Huber_δ(log L̂ − log L) by L-BFGS-B
    from every point of ``grid`` (the product of the start values it lists per free constant; constants it does
    not list start at ``init``; default :data:`DEFAULT_GRID`) and keeps the best, as the paper's notebook does.
    ``tie_alpha_beta`` keeps β = α (the paper's choice). Deterministic: no random starts."""
    tie = bool(tie_alpha_beta)
    names = _free_names(free, tie)
    if not isinstance(init, LawParams):
        raise TypeError(f"init must be a LawParams, got {type(init).__name__}")
    delta = real(delta, "delta", lo=0.0, lo_open=True)
    max_iter = int_at_least(max_iter, "max_iter", 1)
    max_starts = int_at_least(max_starts, "max_starts", 1)
    cols = run_columns(runs, ("N_raw", "s", "U", "D", "loss"))
    if grid is None:
        grid = {n: DEFAULT_GRID[n] for n in names}
    elif not isinstance(grid, Mapping) or any(k not in names for k in grid):
        raise ValueError(f"grid must map some of the free constants {list(names)} to start values, got {grid!r}")
    N, s = cols["N_raw"] * cols["s"], cols["s"]
    U, D, y = np.minimum(cols["U"], cols["D"]), cols["D"], np.log(cols["loss"])
    base = init.to_dict()

    def params_of(x: np.ndarray) -> dict[str, float]:
        p = {**base, **dict(zip(names, map(float, x)))}
        if tie:
            p["beta"] = p["alpha"]
        return p

    def objective(x: np.ndarray) -> float:
        p = params_of(x)
        with np.errstate(all="ignore"):
            pred = _eval(N, s, U, D, p)
        if not np.all(np.isfinite(pred)) or np.any(pred <= 0):
            return _BAD
        return float(huber_terms(np.log(pred) - y, delta)[0].sum())

    starts = _starts(names, init, grid, max_starts)
    bounds = [_BOUNDS.get(n, (None, None)) for n in names]
    x, f, ok = best_of(objective, starts, bounds, max_iter)
    fitted = LawParams(**params_of(x))
    pred = _law(N, s, U, D, fitted)
    return LawFit(fitted, f, r2_score(cols["loss"], pred), len(starts), names, ok)


def _eval(N: np.ndarray, s: np.ndarray, U: np.ndarray, D: np.ndarray, p: Mapping[str, float]) -> np.ndarray:
    """The law at raw constants (no LawParams validation: the minimiser may step outside the valid region)."""
    q = object.__new__(LawParams)
    for k, v in p.items():
        object.__setattr__(q, k, v)
    return _law(N, s, U, D, q)
