"""First-order stochastic dominance (FSD) and the distances used to compare distributions in [P18].

Z_E dominates Z_pi in the first order iff q_E(tau) >= q_pi(tau) for every tau in (0, 1), equivalently iff
rho_g(Z_E) >= rho_g(Z_pi) for every distortion g. The violation of that order,

    V(Z_pi, Z_E) = int_0^1 (q_pi(tau) - q_E(tau))_+ dtau,                                 (FSD violation)

is zero exactly when the expert dominates; with a distortion's weights dg(tau) in place of dtau it becomes the
DRM-weighted violation that the reward step of :class:`DistributionalIRL` minimises.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from icml26.common.validation import positive_int, real, real_array
from icml26.papers.dist_irl._risk import DistortionRiskMeasure, quantile_grid

__all__ = [
    "empirical_quantiles",
    "first_order_dominates",
    "fsd_violation",
    "gaussian_mixture_quantiles",
    "standardized_wasserstein",
]


def _vector(x: np.ndarray | list[float], name: str) -> np.ndarray:
    return real_array(x, name, ndim=1)


def _quantile_vector(x: np.ndarray | list[float], name: str) -> np.ndarray:
    """A quantile function on a grid: a non-empty finite 1-D array, non-decreasing up to a relative 1e-9."""
    a = _vector(x, name)
    drop = np.diff(a)
    if drop.size and drop.min() < -1e-9 * (1.0 + np.abs(a).max()):
        i = int(np.argmin(drop))
        raise ValueError(f"{name} must be non-decreasing (quantiles on an increasing tau grid), got "
                         f"{name}[{i}] = {a[i]!r} > {name}[{i + 1}] = {a[i + 1]!r}")
    return a


def empirical_quantiles(samples: np.ndarray | list[float], n_quantiles: int) -> np.ndarray:
    """q(tau_i) of the empirical distribution of ``samples`` on the midpoint grid tau_i = (2i - 1) / (2N).

    The quantile representation q_Z(tau) of [P18] for sampled returns (used by :func:`first_order_dominates`).

    The quantile at level tau is the order statistic Z_(floor(tau M)) (0-based), so the map from samples to
    quantiles is piecewise linear and its (sub)gradient selects one sample per level.
    """
    z = np.sort(_vector(samples, "samples"))
    idx = np.minimum((quantile_grid(n_quantiles) * z.size).astype(int), z.size - 1)
    return z[idx]


def fsd_violation(
    quantiles_policy: np.ndarray | list[float],
    quantiles_expert: np.ndarray | list[float],
    *,
    risk_measure: DistortionRiskMeasure | None = None,
) -> float:
    """FSD violation V = sum_i w_i (q_pi(tau_i) - q_E(tau_i))_+ on a shared quantile grid (Eq. FSD violation).

    The FSD violation that the reward step of [P18] minimises (DRM-weighted when ``risk_measure`` is given).

    Args:
        quantiles_policy: q_pi on the N-point midpoint grid (the learner's return quantiles).
        quantiles_expert: q_E on the same grid (the expert's return quantiles).
        risk_measure: if given, w_i are its distortion weights g(i/N) - g((i-1)/N) (DRM-weighted violation);
            otherwise w_i = 1/N (the plain integral over tau).

    Returns 0 iff the expert's quantiles are >= the learner's wherever w_i > 0. Quantiles must be non-decreasing
    (up to rounding), else ValueError.
    """
    qp = _quantile_vector(quantiles_policy, "quantiles_policy")
    qe = _quantile_vector(quantiles_expert, "quantiles_expert")
    if qp.shape != qe.shape:
        raise ValueError(f"quantiles_policy and quantiles_expert must have the same length, got {qp.size} and {qe.size}")
    if risk_measure is not None and not isinstance(risk_measure, DistortionRiskMeasure):
        raise TypeError(f"risk_measure must be a DistortionRiskMeasure, got {type(risk_measure).__name__}")
    w = np.full(qp.size, 1.0 / qp.size) if risk_measure is None else risk_measure.weights(qp.size)
    return float(w @ np.maximum(qp - qe, 0.0))


def first_order_dominates(
    samples_a: np.ndarray | list[float], samples_b: np.ndarray | list[float], *, n_quantiles: int = 64, tol: float = 0.0
) -> bool:
    """True when the empirical distribution of ``samples_a`` FSD-dominates that of ``samples_b`` (up to ``tol``).

    The first-order stochastic dominance order of [P18]: A dominates B iff q_A(tau) >= q_B(tau) for all tau.

    ``tol`` must be a finite number >= 0 (q_a(tau) >= q_b(tau) - tol on every grid level)."""
    tol = real(tol, "tol", lo=0.0)
    qa = empirical_quantiles(_vector(samples_a, "samples_a"), n_quantiles)
    qb = empirical_quantiles(_vector(samples_b, "samples_b"), n_quantiles)
    return bool(np.all(qa >= qb - tol))


def gaussian_mixture_quantiles(
    weights: np.ndarray, means: np.ndarray, stds: np.ndarray, taus: np.ndarray, *, iters: int = 80
) -> np.ndarray:
    """Quantiles of sum_k w_k N(m_k, s_k^2) at levels ``taus`` by bisection on the CDF (exact up to 2^-iters).

    The quantile function q_Z of [P18] for an exact (Gaussian-mixture) return law.

    Components with s_k = 0 are point masses. This is the exact return distribution of a tabular MDP with Gaussian
    rewards once all trajectories are enumerated (the oracle used in tests and the claim checks).
    """
    w = _vector(weights, "weights")
    m = _vector(means, "means")
    s = _vector(stds, "stds")
    if not (w.shape == m.shape == s.shape):
        raise ValueError("weights, means and stds must have the same length")
    if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError("weights must be non-negative and sum to 1")
    if np.any(s < 0):
        raise ValueError("stds must be >= 0")
    t = real_array(taus, "taus")
    if np.any((t <= 0) | (t >= 1)):
        raise ValueError("taus must lie in (0, 1)")
    iters = positive_int(iters, "iters")
    spread = 12.0 * (s.max() + 1e-12)
    lo = np.full(t.shape, m.min() - spread)
    hi = np.full(t.shape, m.max() + spread)
    safe = np.where(s > 0, s, 1.0)

    def cdf(x: np.ndarray) -> np.ndarray:
        d = (x[..., None] - m) / safe
        comp = np.where(s > 0, stats.norm.cdf(d), (x[..., None] >= m).astype(float))
        return comp @ w

    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        below = cdf(mid) < t
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return hi


def standardized_wasserstein(
    learned: tuple[np.ndarray, np.ndarray], true: tuple[np.ndarray, np.ndarray], *, n_grid: int = 512
) -> np.ndarray:
    """W1 between learned and true per-group Gaussian reward distributions after standardisation.

    The reward-distribution recovery metric of the notes for [P18]'s ``reward_shape`` claim (not the paper's own).

    IRL rewards are identified only up to a positive affine map r -> a r + b, so each side is first standardised by
    the mean and standard deviation of its own equal-weight mixture over the compared groups; then
    W1_k = int_0^1 |q_learned,k(tau) - q_true,k(tau)| dtau per group k (quantile-grid quadrature).

    Args:
        learned: (means, stds) of the learned reward distributions, one entry per group (a (2, K) array-like).
        true: (means, stds) of the true reward distributions, same groups.
        n_grid: the number of quantile levels of the W1 quadrature.

    Returns the per-group distances (an array of length K).
    """
    ml, sl = real_array(learned, "learned", shape=(2, None))
    mt, st = real_array(true, "true", shape=(2, None))
    if ml.size == 0 or ml.shape != mt.shape:
        raise ValueError(f"learned and true must hold (means, stds) of one common, non-zero length, got {ml.size} "
                         f"and {mt.size}")
    n_grid = positive_int(n_grid, "n_grid")
    if np.any(sl < 0) or np.any(st < 0):
        raise ValueError("stds must be >= 0")

    def standardize(m: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean = m.mean()
        var = np.mean(s**2 + m**2) - mean**2
        scale = np.sqrt(max(var, 0.0))
        if scale <= 1e-12:
            raise ValueError("cannot standardise: all compared reward distributions are the same point mass")
        return (m - mean) / scale, s / scale

    ml, sl = standardize(ml, sl)
    mt, st = standardize(mt, st)
    z = stats.norm.ppf(quantile_grid(n_grid))
    # both sides are Gaussians: q_k(tau) = m_k + s_k z(tau)
    return np.mean(np.abs((ml - mt)[:, None] + (sl - st)[:, None] * z[None, :]), axis=1)
