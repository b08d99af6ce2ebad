"""Exact (quadrature) evaluation of F(σ) = E max_i X_i and of F_m(σ) = Σ_j E max_{i∈S_j} X_i, with σ-gradients.

Model of [P33]: X_i ~ N(μ_i, σ_i²) independent, a variance budget Σ_i σ_i² = 1. A variable with σ_i = 0 is the
constant μ_i (it still takes part in the max). With R(t) = Π_{σ_k>0} Φ((t − μ_k)/σ_k) and the floor
c = max{μ_i : σ_i = 0} (−∞ if none), the distribution function of the max is G(t) = 1{t ≥ c}·R(t), hence

    F = a + ∫_a^∞ (1 − R(t)) dt,     a = max(c, lower end of the support of R),                      (F-int)
    ∂F/∂σ_i = ∫ G_{−i}(t) φ(z_i) z_i / σ_i dt,  z_i = (t − μ_i)/σ_i   (σ_i > 0),                        (F-grad)

where G_{−i} is G without variable i. For σ_i = 0 the one-sided derivative is φ(0)·(jump of G_{−i} at μ_i), which
is non-zero only when μ_i ties the floor of the other constants. The integrals are composite Gauss-Legendre with
panel ends at μ_k + σ_k·{0, ±1.25, ±2.5, ±4, ±6, ±9}, so every variable's scale is resolved.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import log_ndtr

from icml26.common.validation import paired_vectors, real_array

__all__ = ["check_mu_sigma", "check_sets", "expected_max", "expected_max_and_grad", "expected_sum_max",
           "expected_sum_max_and_grad"]

_TAIL = 9.0  # Φ(−9) ≈ 1e-19: beyond ±9σ a Gaussian is invisible at double precision
_OFFSETS = np.array([-9.0, -6.0, -4.0, -2.5, -1.25, 0.0, 1.25, 2.5, 4.0, 6.0, 9.0])
_GL_X, _GL_W = np.polynomial.legendre.leggauss(12)
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


def _as_float_vector(x: object, name: str) -> np.ndarray:
    """A finite, non-empty 1-D float64 vector (complex, strings, NaN and inf refused, naming ``name``)."""
    return real_array(x, name, ndim=1)


def check_mu_sigma(mu: object, sigma: object) -> tuple[np.ndarray, np.ndarray]:
    """Validate means μ and standard deviations σ (1-D, same length, finite, σ ≥ 0); return float arrays."""
    m, s = paired_vectors(mu, "mu", sigma, "sigma")
    if np.any(s < 0):
        raise ValueError("sigma must be >= 0 (standard deviations; negative variances are meaningless)")
    return m, s


def check_sets(sets: object, n: int) -> list[np.ndarray]:
    """Validate the family S_1..S_m: a non-empty sequence of non-empty integer index collections within [0, n)."""
    if isinstance(sets, (str, bytes)) or not isinstance(sets, Sequence) and not isinstance(sets, np.ndarray):
        raise TypeError("sets must be a sequence of index sequences")
    if len(sets) == 0:
        raise ValueError("sets must contain at least one set S_j")
    out = []
    for j, s in enumerate(sets):
        a = np.asarray(s)
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"sets[{j}] must be a non-empty 1-D collection of indices")
        if not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"sets[{j}] must hold integer indices, got dtype {a.dtype}")
        if a.min() < 0 or a.max() >= n:
            raise ValueError(f"sets[{j}] has indices outside [0, {n})")
        out.append(np.unique(a.astype(np.intp)))
    return out


def _nodes(mu: np.ndarray, sigma: np.ndarray, lo: float, hi: float,
           forced: np.ndarray | None = None, *, merge: float = 0.4, order: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes/weights on [lo, hi], panel ends adapted to every variable's scale (+ ``forced``)."""
    pts = (mu[:, None] + sigma[:, None] * _OFFSETS[None, :]).ravel()
    own = np.repeat(sigma, _OFFSETS.size)
    keep = (pts > lo) & (pts < hi)
    pts, own = pts[keep], own[keep]
    srt = np.argsort(pts, kind="stable")
    pts, own = pts[srt], own[srt]
    ends = [lo]
    last_scale = np.inf
    for p, s in zip(pts.tolist(), own.tolist()):  # merge ends closer than `merge` times the finer of the two scales
        if p - ends[-1] >= merge * min(s, last_scale):
            ends.append(p)
            last_scale = s
    if hi - ends[-1] < 1e-12 * max(1.0, abs(hi)) and len(ends) > 1:
        ends[-1] = hi
    else:
        ends.append(hi)
    e = np.asarray(ends)
    if forced is not None and forced.size:
        e = np.unique(np.concatenate([e, np.clip(forced, lo, hi)]))
    half = 0.5 * np.diff(e)
    mid = 0.5 * (e[1:] + e[:-1])
    gx, gw = (_GL_X, _GL_W) if order == _GL_X.size else np.polynomial.legendre.leggauss(order)
    t = (mid[:, None] + half[:, None] * gx[None, :]).ravel()
    w = (half[:, None] * gw[None, :]).ravel()
    return t, w


def _single(mu: np.ndarray, sigma: np.ndarray, want_grad: bool) -> tuple[float, np.ndarray]:
    """(F, ∂F/∂σ) of one max by Eq. (F-int)/(F-grad); the gradient is zeros unless ``want_grad``."""
    # σ_i below 1e-12 of the largest σ acts as a constant (it changes E max by < 1e-12·σ_max; avoids overflow in z)
    det = sigma <= 1e-12 * float(sigma.max())
    rnd = ~det
    floor = float(mu[det].max()) if det.any() else -np.inf
    grad = np.zeros_like(mu)
    if not rnd.any():
        if want_grad:  # a constant tied with another constant at the top: jump 1 of G_{-i}
            top = mu == floor
            if top.sum() >= 2:
                grad[top] = _INV_SQRT_2PI
        return floor, grad
    mr, sr = mu[rnd], sigma[rnd]
    lo = max(floor, float(np.max(mr - _TAIL * sr)))
    hi = max(lo, float(np.max(mr + _TAIL * sr)))
    if hi <= lo:  # the floor dominates every random variable up to 9σ
        return lo, grad
    t, w = _nodes(mr, sr, lo, hi)
    z = (t[:, None] - mr[None, :]) / sr[None, :]
    logphi = log_ndtr(z)  # (T, k)
    log_r = logphi.sum(axis=1)
    # Eq. (F-int): F = a + ∫_a^hi (1 − R)
    value = lo + float(w @ (-np.expm1(log_r)))
    if want_grad:
        # Eq. (F-grad) for random variables; G_{-i} = R / Φ(z_i) on t ≥ floor
        g_minus = np.exp(log_r[:, None] - logphi)
        dens = np.exp(-0.5 * z * z) * _INV_SQRT_2PI
        grad[rnd] = (w @ (g_minus * dens * z)) / sr
        if det.any():  # one-sided derivative of a constant: φ(0)·R(μ_i) when it ties another constant at the top
            top = np.flatnonzero(det & (mu == floor))
            if top.size >= 2:
                zc = (floor - mr) / sr
                grad[top] = _INV_SQRT_2PI * float(np.exp(log_ndtr(zc).sum()))
    return value, grad


def expected_max(mu: object, sigma: object) -> float:
    """E max_i X_i for independent X_i ~ N(μ_i, σ_i²), by quadrature (the objective F(σ) of [P33]).

    Implements the m = 1 objective of [P33] (abstract: E max_i X_i) through Eq. (F-int) of this module.

    Args:
        mu: means μ_i, shape (n,), finite.
        sigma: standard deviations σ_i ≥ 0, shape (n,); σ_i = 0 makes X_i the constant μ_i.
            The budget Σσ_i² = 1 is *not* imposed here, so any σ can be evaluated.

    Returns:
        The expectation (absolute error ~1e-10 for well-scaled inputs).
    """
    m, s = check_mu_sigma(mu, sigma)
    return _single(m, s, want_grad=False)[0]


def expected_max_and_grad(mu: object, sigma: object) -> tuple[float, np.ndarray]:
    """F(σ) = E max_i X_i and its gradient ∂F/∂σ_i (Eq. (F-grad)); one-sided (σ_i → 0⁺) where σ_i = 0.

    The m = 1 objective of [P33] (abstract: E max_i X_i) with its σ-gradient, as used by the reference optimiser.
    (F-grad) is this module's label, not a paper equation number.

    Args:
        mu: means μ_i, shape (n,).
        sigma: standard deviations σ_i ≥ 0, shape (n,).
    """
    m, s = check_mu_sigma(mu, sigma)
    return _single(m, s, want_grad=True)


def expected_sum_max_and_grad(mu: object, sigma: object, sets: object) -> tuple[float, np.ndarray]:
    """F_m(σ) = Σ_j E max_{i∈S_j} X_i and ∂F_m/∂σ (the general-m objective of [P33], abstract).

    Args:
        mu: means μ_i, shape (n,).
        sigma: standard deviations σ_i ≥ 0, shape (n,).
        sets: the family S_1..S_m, each a non-empty collection of indices into [0, n) (duplicates are merged).
    """
    m, s = check_mu_sigma(mu, sigma)
    fam = check_sets(sets, m.size)
    total = 0.0
    grad = np.zeros_like(m)
    for idx in fam:
        v, g = _single(m[idx], s[idx], want_grad=True)
        total += v
        np.add.at(grad, idx, g)
    return total, grad


def expected_sum_max(mu: object, sigma: object, sets: object) -> float:
    """F_m(σ) = Σ_j E max_{i∈S_j} X_i by quadrature (the objective OPT maximises in [P33], abstract).

    Args:
        mu: means μ_i, shape (n,).
        sigma: standard deviations σ_i ≥ 0, shape (n,).
        sets: the family S_1..S_m, each a non-empty collection of indices into [0, n).
    """
    m, s = check_mu_sigma(mu, sigma)
    fam = check_sets(sets, m.size)
    return float(sum(_single(m[idx], s[idx], want_grad=False)[0] for idx in fam))
