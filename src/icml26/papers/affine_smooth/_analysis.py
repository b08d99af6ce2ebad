"""Running a method on an objective, measuring rates, and fitting the affine-smoothness constants of [P26]."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from icml26.common.validation import int_at_least, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.affine_smooth._optim import GradientMethod

__all__ = [
    "AffineSmoothnessFit",
    "Objective",
    "Trajectory",
    "estimate_affine_smoothness",
    "hessian_norm",
    "iterations_to_eps",
    "linear_rate",
    "run_method",
]


class Objective(Protocol):
    """What :func:`run_method` needs: ``dim``, ``theta0``, ``log_loss(θ)`` and ``grad(θ)`` (one of [P26]'s test
    objectives)."""

    dim: int
    theta0: np.ndarray

    def log_loss(self, theta: Any) -> float: ...

    def grad(self, theta: Any) -> np.ndarray: ...


@dataclass(frozen=True)
class Trajectory:
    """A run of a method of [P26]: ``log_f[k]`` = log f(θ_k) for k = 0..K (K = iterations actually taken), and the
    iterates kept.

    Attributes:
        method: the method's name.
        log_f: shape (K+1,), natural log of the loss along the run.
        kept_steps: the iteration indices whose iterates are in ``thetas``.
        thetas: shape (len(kept_steps), d).
        stopped_early: True when the run stopped because log f fell below ``log_f_floor``.
        theta: the last iterate θ_K.
    """

    method: str
    log_f: np.ndarray
    kept_steps: np.ndarray
    thetas: np.ndarray
    stopped_early: bool
    theta: np.ndarray


def run_method(
    objective: Objective,
    method: GradientMethod,
    *,
    iters: int,
    theta0: np.ndarray | None = None,
    keep: int = 0,
    log_f_floor: float = -600.0,
) -> Trajectory:
    """Run ``method`` for ``iters`` deterministic full-gradient steps from ``theta0`` (default ``objective.theta0``).

    Implements the deterministic iteration θ_{k+1} = update(∇f(θ_k), state_k, θ_k) analysed in [P26]. The run stops
    early once log f < ``log_f_floor`` (default −600, i.e. f < 1e-260, before gradients underflow). ``keep`` iterates
    at log-spaced steps are stored for :func:`estimate_affine_smoothness`.
    """
    if not isinstance(method, GradientMethod):
        raise TypeError(f"method must be a GradientMethod, got {type(method).__name__}")
    iters = int_at_least(iters, "iters", 1)
    keep = int_at_least(keep, "keep", 0)
    log_f_floor = real(log_f_floor, "log_f_floor")
    theta = real_array(objective.theta0 if theta0 is None else theta0, "theta0", shape=(objective.dim,)).copy()
    keep_at = set(np.unique(np.geomspace(1, iters + 1, keep).astype(int) - 1).tolist()) if keep else set()
    state = method.init(theta)
    log_f = [objective.log_loss(theta)]
    kept, thetas = [], []
    stopped = False
    for k in range(iters):
        if k in keep_at:
            kept.append(k)
            thetas.append(theta.copy())
        theta, state = method.update(objective.grad(theta), state, theta)
        log_f.append(objective.log_loss(theta))
        if log_f[-1] < log_f_floor:
            stopped = True
            break
    if not np.all(np.isfinite(log_f)):
        raise FloatingPointError(f"{method.name} diverged (non-finite loss); reduce lr")
    return Trajectory(method.name, np.asarray(log_f), np.asarray(kept, dtype=int),
                      np.asarray(thetas).reshape(len(thetas), objective.dim), stopped, theta)


def linear_rate(log_f: Sequence[float] | np.ndarray, *, window: int) -> float:
    """Least-squares slope of log f_k against k over the last ``window`` iterations (negative = decreasing): the
    rate measure for [P26]'s linear-convergence claims.

    A linear rate f_k ≈ C ρ^k gives the constant slope log ρ; a sublinear f_k ≈ C/k gives ≈ −1/k → 0.
    ``window`` must lie in [2, len(log_f)]: a caller with a run that stopped early (at its ``log_f_floor``) passes
    ``window=min(window, len(log_f))`` to fit it whole.
    """
    y = real_array(log_f, "log_f", ndim=1)
    w = int_at_least(window, "window", 2)
    if w > y.size:
        raise ValueError(f"window must be at most len(log_f) = {y.size}, got {w}")
    k = np.arange(y.size - w, y.size, dtype=np.float64)
    return float(np.polyfit(k, y[-w:], 1)[0])


def iterations_to_eps(log_f: Sequence[float] | np.ndarray, eps: Sequence[float] | np.ndarray) -> np.ndarray:
    """First k with f_k ≤ ε, for each ε (``-1`` where the run never got there): the iteration counts of [P26]'s
    Ω(1/ε) vs O(log 1/ε) lower-bound separation.

    ``log_f`` (natural log of f along a run) may hold −inf (f = 0, every ε reached) but no NaN and no +inf (a
    diverged run has no iteration count); ``eps`` must be finite and positive.
    """
    y = real_array(log_f, "log_f", ndim=1, finite=False)
    if np.isnan(y).any() or np.isposinf(y).any():
        raise ValueError("log_f must not hold NaN or +inf (a diverged run has no iteration count)")
    e = real_array(eps, "eps", ndim=1)
    if np.any(e <= 0):
        raise ValueError(f"eps must be positive, got min {e.min():g}")
    best = np.minimum.accumulate(y)
    out = np.searchsorted(-best, -np.log(e), side="left")
    return np.where(out < y.size, out, -1).astype(int)


def hessian_norm(hess_vec: Callable[[np.ndarray], np.ndarray], dim: int, *, iters: int = 100, seed: int = 0) -> float:
    """‖∇²f‖_2 (largest |eigenvalue| of the symmetric Hessian) by ``iters`` >= 1 steps of power iteration on
    ``hess_vec`` from a random start drawn from ``seed``. Measures the curvature side of [P26]'s
    affine-smoothness assumption along trajectories."""
    if not callable(hess_vec):
        raise TypeError(f"hess_vec must be callable, got {type(hess_vec).__name__}")
    dim = int_at_least(dim, "dim", 1)
    iters = int_at_least(iters, "iters", 1)
    seed = check_seed(seed)
    v = np.random.default_rng(seed).standard_normal(dim)
    v /= np.linalg.norm(v)
    lam = 0.0
    for _ in range(iters):
        w = np.asarray(hess_vec(v), dtype=np.float64)
        nw = float(np.linalg.norm(w))
        if nw == 0.0 or not np.isfinite(nw):
            return 0.0 if nw == 0.0 else float("nan")
        lam, v = nw, w / nw
    return lam


@dataclass(frozen=True)
class AffineSmoothnessFit:
    """The tightest affine envelope ‖∇²f(θ)‖ ≤ L0 + L1 f(θ) over the points, and the gradient-domination ratio (an
    empirical check of the (H0, H1)-smoothness assumption of [P26]).

    Attributes:
        L0, L1: the envelope (minimises the summed relative slack Σ_i (L0 + L1 f_i) / ‖∇²f(θ_i)‖ subject to
            covering every point, L0, L1 ≥ 0; relative, so that points with f ~ 1e-40 count as much as f ~ 1).
        f, hess_norm, grad_norm: per point, f(θ_i), ‖∇²f(θ_i)‖_2, ‖∇f(θ_i)‖_2.
        loglog_slope: slope of log ‖∇²f‖ on log f (≈ 1 when curvature is proportional to f).
        mu: min_i ‖∇f(θ_i)‖ / f(θ_i), the empirical gradient-domination constant (with f* = 0).
    """

    L0: float
    L1: float
    f: np.ndarray
    hess_norm: np.ndarray
    grad_norm: np.ndarray
    loglog_slope: float
    mu: float


def estimate_affine_smoothness(
    f: Callable[[np.ndarray], float],
    grad: Callable[[np.ndarray], np.ndarray],
    hess_vec: Callable[[np.ndarray, np.ndarray], np.ndarray],
    trajectory: np.ndarray | Sequence[np.ndarray],
    *,
    power_iters: int = 100,
    seed: int = 0,
) -> AffineSmoothnessFit:
    """Fit the (L0, L1) of the assumption ‖∇²f(θ)‖ ≤ L0 + L1 f(θ) of [P26] (its (H0, H1)-smoothness, ℓ2 norm) along
    the points of ``trajectory`` (shape (T, d)); ‖∇²f‖ by power iteration on ``hess_vec(θ, v)``.

    Symbols: H0 ↔ ``L0``, H1 ↔ ``L1``. The envelope solves the linear programme min Σ_i (L0 + L1 f_i) / h_i s.t.
    L0 + L1 f_i ≥ h_i = ‖∇²f(θ_i)‖, L0, L1 ≥ 0, exactly, by enumerating its vertices (values span 40 decades,
    too many for an LP solver's absolute tolerances).
    """
    for name, fn in (("f", f), ("grad", grad), ("hess_vec", hess_vec)):
        if not callable(fn):
            raise TypeError(f"{name} must be callable, got {type(fn).__name__}")
    power_iters = int_at_least(power_iters, "power_iters", 1)
    seed = check_seed(seed)
    P = real_array(trajectory, "trajectory", ndim=2)
    if P.shape[0] < 2:
        raise ValueError(f"trajectory must hold T >= 2 points (T, d), got shape {P.shape}")
    fs = np.array([float(f(p)) for p in P])
    if not np.all(np.isfinite(fs)) or np.any(fs < 0):
        raise ValueError("f must return finite, non-negative values along the trajectory")
    hs = np.array([hessian_norm(lambda v, p=p: hess_vec(p, v), P.shape[1], iters=power_iters, seed=seed) for p in P])
    gs = np.array([float(np.linalg.norm(grad(p))) for p in P])
    L0, L1 = _affine_envelope(fs, hs)
    pos = (fs > 0) & (hs > 0)
    slope = float(np.polyfit(np.log(fs[pos]), np.log(hs[pos]), 1)[0]) if pos.sum() >= 2 else float("nan")
    mu = float(np.min(gs[fs > 0] / fs[fs > 0])) if np.any(fs > 0) else float("nan")
    return AffineSmoothnessFit(L0, L1, fs, hs, gs, slope, mu)


def _affine_envelope(fs: np.ndarray, hs: np.ndarray) -> tuple[float, float]:
    """Exact vertex enumeration of min Σ_i (L0 + L1 f_i)/h_i (over h_i > 0) s.t. L0 + L1 f_i ≥ h_i, L0, L1 ≥ 0."""
    w = np.zeros_like(hs)
    np.divide(1.0, hs, out=w, where=hs > 0)
    c0, c1 = float(w.sum()), float(w @ fs)
    cands = [(float(hs.max()), 0.0)]
    if np.all((fs > 0) | (hs == 0)):  # the vertex on L0 = 0 exists unless some point has f = 0 < h
        r = np.zeros_like(hs)
        np.divide(hs, fs, out=r, where=fs > 0)
        cands.append((0.0, float(r.max())))
    i, j = np.triu_indices(fs.size, 1)
    df = fs[j] - fs[i]
    ok = df != 0
    slope = (hs[j][ok] - hs[i][ok]) / df[ok]
    icpt = hs[i][ok] - slope * fs[i][ok]
    good = (slope >= 0) & (icpt >= 0)
    cands += list(zip(icpt[good].tolist(), slope[good].tolist()))
    best: tuple[float, float] | None = None
    for a, b in cands:
        if np.all(a + b * fs >= hs * (1.0 - 1e-9)) and (best is None or a * c0 + b * c1 < best[0] * c0 + best[1] * c1):
            best = (a, b)
    assert best is not None  # (max h, 0) is always feasible
    return best
