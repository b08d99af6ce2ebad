"""The shadow-variable bridge function of [P36]: E{b(S, A, Z) | R, S, A} = R with Z = S_{t+1}, fitted on the complete
cases by the linear-sieve min-max problem (= ridge two-stage least squares), and the shadow-relevance diagnostic."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _sst

from icml26.common.validation import real, real_array

__all__ = ["BridgeFit", "fit_bridge", "ridge_solve", "shadow_relevance"]


def ridge_solve(X: np.ndarray, y: np.ndarray, ridge: float, weights: np.ndarray | None = None) -> np.ndarray:
    """argmin_θ (1/n) Σ w_i (y_i − x_iᵀθ)² + ridge·‖θ‖² (normal equations, Cholesky with an lstsq fallback)."""
    n = X.shape[0]
    if n == 0:
        return np.zeros((X.shape[1],) + y.shape[1:])
    Xw = X if weights is None else X * weights[:, None]
    A = Xw.T @ X / n + ridge * np.eye(X.shape[1])
    b = Xw.T @ y / n
    try:
        c = np.linalg.cholesky(A)
        return np.linalg.solve(c.T, np.linalg.solve(c, b))
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(A, b, rcond=None)[0]


@dataclass(frozen=True)
class BridgeFit:
    """A fitted linear bridge b(s, a, z) = φ(s, z)ᵀβ for one action at one step (the bridge function of [P36]).

    Attributes: ``beta`` (β over [W(s), X(z)]), ``n_complete`` (complete cases used), ``shadow_F`` (partial F of the
    shadow features in the regression of R on [W(S), X(Z)]: ≈ 1 when Z carries no information on R), ``shadow_pvalue``,
    ``condition`` (condition number of the instrumented design's nonzero spectrum).
    """

    beta: np.ndarray
    n_complete: int
    shadow_F: float
    shadow_pvalue: float
    condition: float


def fit_bridge(W: np.ndarray, X: np.ndarray, U: np.ndarray, r: np.ndarray, *, ridge: float) -> BridgeFit:
    """Fit the bridge on complete cases. Implements the linear-sieve min-max estimator of [P36] (paper card, Eq. B2):

        min_β max_θ  E_n[η ψᵀθ (R − φᵀβ) − ½ (ψᵀθ)²] + ridge·‖β‖²,

    whose inner maximum is ½‖P_Ψ(R − Φβ)‖² on the complete cases, i.e. ridge two-stage least squares.

    Args: rows are complete cases (η = 1) of one action at one step. ``W`` = w(S_t) (conditioning features with a
    constant, shared by φ and ψ), ``X`` = x(S_{t+1}) (shadow features, no constant), ``U`` = u(R_t) (instrument
    features of the reward, no constant), ``r`` = R_t; φ = [W, X], ψ = [W, U]; ``ridge`` = the Tikhonov weight.
    All finite, with one row per complete case: at least p_W + k + 1 of them (the relevance test's regression needs
    one residual degree of freedom; fewer, zero included, is a ValueError naming ``W``); ``ridge`` finite and >= 0.
    Raises TypeError / ValueError naming the offending argument.
    """
    ridge = real(ridge, "ridge", lo=0.0)
    W, X, U = (_finite(a, name, 2) for a, name in ((W, "W"), (X, "X"), (U, "U")))
    r = _finite(r, "r", 1)
    n = W.shape[0]
    for a, name in ((X, "X"), (U, "U"), (r, "r")):
        if a.shape[0] != n:
            raise ValueError(f"{name} must have one row per row of W ({n}), got {a.shape[0]}")
    if n == 0:
        raise ValueError("W has no rows: the bridge needs complete cases (rows with an observed reward) to be fitted")
    Phi = np.concatenate([W, X], axis=1)
    Psi = np.concatenate([W, U], axis=1)
    # standardise columns (scale only) so that one ridge value means the same for every feature
    scale = np.sqrt(np.mean(Phi**2, axis=0)) + 1e-12
    pscale = np.sqrt(np.mean(Psi**2, axis=0)) + 1e-12
    Phi_s, Psi_s = Phi / scale, Psi / pscale
    # first stage: projection of φ on the instrument space (tiny ridge keeps it defined for collinear ψ)
    Phi_hat = Psi_s @ ridge_solve(Psi_s, Phi_s, max(ridge, 1e-10))
    # second stage: β = argmin ‖R − Φ̂β‖² + ridge‖β‖²  (the minimum-norm solution when β is not point-identified)
    beta = ridge_solve(Phi_hat, r, ridge) / scale
    sv = np.linalg.svd(Phi_hat / np.sqrt(n), compute_uv=False)
    nz = sv[sv > sv[0] * 1e-8] if sv.size and sv[0] > 0 else sv
    cond = float(nz[0] / nz[-1]) if nz.size and nz[-1] > 0 else float("inf")
    F, p = shadow_relevance(W, X, r)
    return BridgeFit(beta, n, F, p, cond)


def _finite(a: object, name: str, ndim: int) -> np.ndarray:
    """A finite real array of ``ndim`` dimensions (complete cases only: no NaN rewards); zero rows pass here."""
    return real_array(a, name, ndim=ndim, allow_empty=True)


def shadow_relevance(W: np.ndarray, X: np.ndarray, r: np.ndarray) -> tuple[float, float]:
    """Shadow-variable relevance diagnostic (the completeness condition of [P36] made testable, paper card, Eq. B4).

    Under the shadow exclusion Z ⊥ η | (S, A, R), Z and R are dependent given (S, A) in the complete cases iff they are
    in the full data; a bridge can only exist when they are. Returns the partial F statistic (and its p-value) of the
    shadow features X(Z) in the least-squares regression of R on [W(S), X(Z)] against [W(S)] (complete cases of one
    action). Under irrelevance F ~ F(k, n − p) ≈ 1; the weak-instrument rule of thumb asks for F >= 10.
    Needs n >= p_W + k + 1 rows (one residual degree of freedom), else ValueError; no shadow feature (k = 0) gives
    (0.0, 1.0).
    """
    W, X = _finite(W, "W", 2), _finite(X, "X", 2)
    r = _finite(r, "r", 1)
    n, pw = W.shape
    for a, name in ((X, "X"), (r, "r")):
        if a.shape[0] != n:
            raise ValueError(f"{name} must have one row per row of W ({n}), got {a.shape[0]}")
    k = X.shape[1]
    dof = n - pw - k
    if k == 0:
        return 0.0, 1.0
    if dof < 1:
        raise ValueError(f"too few rows for the shadow-relevance test: n = {n}, but it needs at least "
                         f"{pw + k + 1} = {pw} columns of W + {k} columns of X + 1")
    full = np.concatenate([W, X], axis=1)
    rss_w = _rss(W, r)
    rss_f = _rss(full, r)
    if rss_f <= 1e-14 * max(rss_w, 1e-300):
        return float("inf"), 0.0
    F = ((rss_w - rss_f) / k) / (rss_f / dof)
    F = max(float(F), 0.0)
    return F, float(_sst.f.sf(F, k, dof))


def _rss(X: np.ndarray, y: np.ndarray) -> float:
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    res = y - X @ coef
    return float(res @ res)
