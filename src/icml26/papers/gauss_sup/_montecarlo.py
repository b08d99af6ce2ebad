"""Monte Carlo estimates of E max_i X_i and Σ_j E max_{i∈S_j} X_i, independent or correlated (explicit seed).

The correlated case (X ~ N(μ, Σ)) is the variant of [P33] where the allocation acts through a covariance; it has no
quadrature here, so Monte Carlo is its evaluator, and for Σ = diag(σ²) it is the oracle the quadrature is checked by.

The draws are streamed: each block of draws is reduced to one number per draw (the max, or the sum of maxima) and
folded into a running mean and sum of squares, so memory is O(block × n) whatever ``n_samples`` is. The normals are
drawn row by row from one generator, so the estimate does not depend on the block size (up to the rounding of the
running sums).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icml26.common.validation import int_at_least, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.gauss_sup._quadrature import _as_float_vector, check_mu_sigma, check_sets

__all__ = ["MAX_DRAWS", "MCEstimate", "mc_expected_max", "mc_expected_sum_max"]

#: default cap on n_samples × n normal draws (about a minute of drawing); a larger request is refused up front
MAX_DRAWS = 10**10
#: largest block of normals held at once (2^22 float64 = 32 MiB); ``batch`` is lowered to fit for large n
_MAX_BLOCK = 2**22


@dataclass(frozen=True)
class MCEstimate:
    """A Monte Carlo mean with its standard error (``value ± 1.96·stderr`` is a 95% interval).

    Returned by the Monte Carlo estimates of [P33]'s objective (also for a correlated covariance Σ).
    """

    value: float
    stderr: float
    n_samples: int


@dataclass(frozen=True)
class _Sampler:
    """X = μ + σ ⊙ Z (independent) or μ + root Z with root rootᵀ = Σ (correlated)."""

    mu: np.ndarray
    sigma: np.ndarray | None
    root: np.ndarray | None

    def draw(self, g: np.random.Generator, rows: int) -> np.ndarray:
        z = g.standard_normal((rows, self.mu.size))
        if self.root is not None:
            return self.mu + z @ self.root.T
        assert self.sigma is not None
        return self.mu + z * self.sigma


def _stream(sampler: _Sampler, reduce: Callable[[np.ndarray], np.ndarray], n_samples: int,
            g: np.random.Generator, batch: int) -> MCEstimate:
    """Mean and standard error of ``reduce(draws)`` over ``n_samples`` draws, one block at a time (Chan et al.'s
    pairwise update of the mean and the sum of squared deviations)."""
    rows = max(1, min(batch, _MAX_BLOCK // max(1, sampler.mu.size)))
    count, mean, m2 = 0, 0.0, 0.0
    while count < n_samples:
        y = np.asarray(reduce(sampler.draw(g, min(rows, n_samples - count))), dtype=np.float64)
        b, bm = y.size, float(y.mean())
        bm2 = float(((y - bm) ** 2).sum())
        delta = bm - mean
        total = count + b
        mean += delta * b / total
        m2 += bm2 + delta * delta * count * b / total
        count = total
    return MCEstimate(value=mean, stderr=float(np.sqrt(m2 / (count - 1) / count)), n_samples=count)


def _prepare(mu: object, sigma: object | None, cov: object | None, n_samples: object, batch: object,
             max_draws: object) -> tuple[_Sampler, int, int]:
    if (sigma is None) == (cov is None):
        raise ValueError("give exactly one of sigma (independent) or cov (correlated)")
    k = int_at_least(n_samples, "n_samples", 2)
    b = int_at_least(batch, "batch", 1)
    cap = int_at_least(max_draws, "max_draws", 1)
    if sigma is not None:
        m, s = check_mu_sigma(mu, sigma)
        sampler = _Sampler(m, s, None)
    else:
        m = _as_float_vector(mu, "mu")
        c = real_array(cov, "cov", shape=(m.size, m.size))
        if not np.allclose(c, c.T, atol=1e-12):
            raise ValueError("cov must be symmetric")
        vals, vecs = np.linalg.eigh(c)
        if vals.min() < -1e-10 * max(1.0, abs(vals.max())):
            raise ValueError("cov must be positive semi-definite")
        sampler = _Sampler(m, None, vecs * np.sqrt(np.clip(vals, 0.0, None)))  # cov = root @ root.T
    if k * m.size > cap:
        raise ValueError(f"n_samples={k} with n={m.size} variables needs {k * m.size:.3g} normal draws "
                         f"(> max_draws={cap:.3g}); lower n_samples or raise max_draws")
    return sampler, k, b


def _generator(seed: int | np.random.Generator) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_seed(seed))


def mc_expected_max(mu: object, sigma: object | None = None, *, cov: object | None = None, n_samples: int = 100_000,
                    seed: int | np.random.Generator, batch: int = 65_536, max_draws: int = MAX_DRAWS) -> MCEstimate:
    """Monte Carlo E max_i X_i, X ~ N(μ, diag σ²) or N(μ, Σ) (the objective of [P33], abstract, m = 1).

    Args:
        mu: means μ_i, shape (n,).
        sigma: standard deviations σ_i ≥ 0 (independent case); exclusive with ``cov``.
        cov: covariance Σ, shape (n, n), symmetric positive semi-definite (correlated case).
        n_samples: number of draws (int >= 2).
        seed: an int >= 0 or a numpy Generator (required keyword: results are reproducible only with a seed).
        batch: draws per block (int >= 1; lowered so that a block holds at most 2^22 normals).
        max_draws: refuse (``ValueError``, before drawing) when ``n_samples × n`` exceeds this.

    Memory is O(batch × n): the draws are reduced block by block, never kept.
    """
    sampler, k, b = _prepare(mu, sigma, cov, n_samples, batch, max_draws)
    return _stream(sampler, _row_max, k, _generator(seed), b)


def _row_max(x: np.ndarray) -> np.ndarray:
    return x.max(axis=1)


@dataclass(frozen=True)
class _SumOfMaxima:
    sets: tuple[np.ndarray, ...]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.sum([x[:, idx].max(axis=1) for idx in self.sets], axis=0)


def mc_expected_sum_max(mu: object, sigma: object | None = None, sets: object = None, *, cov: object | None = None,
                        n_samples: int = 100_000, seed: int | np.random.Generator, batch: int = 65_536,
                        max_draws: int = MAX_DRAWS) -> MCEstimate:
    """Monte Carlo Σ_j E max_{i∈S_j} X_i (the general-m objective of [P33], abstract), common random numbers over j.

    Args:
        mu: means μ_i, shape (n,).
        sigma: standard deviations σ_i ≥ 0 (independent case); exclusive with ``cov``.
        sets: the family S_1..S_m, each a non-empty collection of indices into [0, n).
        cov: covariance Σ (correlated case).
        n_samples: number of draws (int >= 2).
        seed: an int >= 0 or a numpy Generator.
        batch: draws per block (int >= 1).
        max_draws: refuse (``ValueError``, before drawing) when ``n_samples × n`` exceeds this.
    """
    sampler, k, b = _prepare(mu, sigma, cov, n_samples, batch, max_draws)
    if sets is None:
        raise ValueError("sets must be given (a sequence of index collections)")
    fam = check_sets(sets, sampler.mu.size)
    return _stream(sampler, _SumOfMaxima(tuple(fam)), k, _generator(seed), b)
