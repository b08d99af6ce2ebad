"""Monte Carlo estimates of E max_i X_i and Σ_j E max_{i∈S_j} X_i, independent or correlated (explicit seed).

The correlated case (X ~ N(μ, Σ)) is the variant of [P33] where the allocation acts through a covariance; it has no
quadrature here, so Monte Carlo is its evaluator, and for Σ = diag(σ²) it is the oracle the quadrature is checked by.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._quadrature import _as_float_vector, check_mu_sigma, check_sets

__all__ = ["MCEstimate", "mc_expected_max", "mc_expected_sum_max"]


@dataclass(frozen=True)
class MCEstimate:
    """A Monte Carlo mean with its standard error (``value ± 1.96·stderr`` is a 95% interval).

    Returned by the Monte Carlo estimates of [P33]'s objective (also for a correlated covariance Σ).
    """

    value: float
    stderr: float
    n_samples: int


def _check_samples(n_samples: object) -> int:
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 2:
        raise ValueError(f"n_samples must be an int >= 2, got {n_samples!r}")
    return int(n_samples)


def _check_batch(batch: object) -> int:
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)):
        raise TypeError(f"batch must be an int >= 1, got {type(batch).__name__} {batch!r}")
    if batch < 1:
        raise ValueError(f"batch must be an int >= 1, got {batch!r}")
    return int(batch)


def _draw(mu: np.ndarray, sigma: np.ndarray | None, cov: np.ndarray | None, n_samples: int,
          seed: int | np.random.Generator | None, batch: int) -> list[np.ndarray]:
    from icml26.common.seeding import rng

    batch = _check_batch(batch)
    g = rng(seed)
    if cov is not None:
        vals, vecs = np.linalg.eigh(cov)
        if vals.min() < -1e-10 * max(1.0, abs(vals.max())):
            raise ValueError("cov must be positive semi-definite")
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))  # cov = root @ root.T
    out = []
    left = n_samples
    while left > 0:
        b = min(batch, left)
        z = g.standard_normal((b, mu.size))
        out.append(mu + (z @ root.T if cov is not None else z * sigma))
        left -= b
    return out


def _estimate(chunks: list[np.ndarray]) -> MCEstimate:
    x = np.concatenate(chunks)
    return MCEstimate(value=float(x.mean()), stderr=float(x.std(ddof=1) / np.sqrt(x.size)), n_samples=int(x.size))


def mc_expected_max(mu: object, sigma: object | None = None, *, cov: object | None = None, n_samples: int = 100_000,
                    seed: int | np.random.Generator | None, batch: int = 65_536) -> MCEstimate:
    """Monte Carlo E max_i X_i, X ~ N(μ, diag σ²) or N(μ, Σ) (the objective of [P33], abstract, m = 1).

    Args:
        mu: means μ_i, shape (n,).
        sigma: standard deviations σ_i ≥ 0 (independent case); exclusive with ``cov``.
        cov: covariance Σ, shape (n, n), symmetric positive semi-definite (correlated case).
        n_samples: number of draws.
        seed: seed or generator (required keyword: results are reproducible only with an explicit seed).
        batch: draws per block (int >= 1; bounds memory).
    """
    m, samples = _prepare(mu, sigma, cov, n_samples)
    chunks = _draw(m, samples[0], samples[1], samples[2], seed, batch)
    return _estimate([c.max(axis=1) for c in chunks])


def mc_expected_sum_max(mu: object, sigma: object | None = None, sets: object = None, *, cov: object | None = None,
                        n_samples: int = 100_000, seed: int | np.random.Generator | None,
                        batch: int = 65_536) -> MCEstimate:
    """Monte Carlo Σ_j E max_{i∈S_j} X_i (the general-m objective of [P33], abstract), common random numbers over j.

    Args:
        mu: means μ_i, shape (n,).
        sigma: standard deviations σ_i ≥ 0 (independent case); exclusive with ``cov``.
        sets: the family S_1..S_m, each a non-empty collection of indices into [0, n).
        cov: covariance Σ (correlated case).
        n_samples: number of draws.
        seed: seed or generator.
        batch: draws per block (int >= 1).
    """
    m, samples = _prepare(mu, sigma, cov, n_samples)
    if sets is None:
        raise ValueError("sets must be given (a sequence of index collections)")
    fam = check_sets(sets, m.size)
    chunks = _draw(m, samples[0], samples[1], samples[2], seed, batch)
    return _estimate([sum(c[:, idx].max(axis=1) for idx in fam) for c in chunks])


def _prepare(mu: object, sigma: object | None, cov: object | None, n_samples: object):
    if (sigma is None) == (cov is None):
        raise ValueError("give exactly one of sigma (independent) or cov (correlated)")
    k = _check_samples(n_samples)
    if sigma is not None:
        m, s = check_mu_sigma(mu, sigma)
        return m, (s, None, k)
    m = _as_float_vector(mu, "mu")
    c = np.asarray(cov, dtype=float)
    if c.shape != (m.size, m.size):
        raise ValueError(f"cov must have shape ({m.size}, {m.size}) to match mu, got {c.shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError("cov must be finite (no nan/inf)")
    if not np.allclose(c, c.T, atol=1e-12):
        raise ValueError("cov must be symmetric")
    return m, (None, c, k)
