"""Reference optimiser for OPT = max_{Σσ²=1} Σ_j E max_{i∈S_j} X_i, and the simple baselines.

The reference is projected gradient ascent on σ over the non-negative part of the unit sphere {σ ≥ 0, ‖σ‖₂ = 1}
(projection: clip at 0, renormalise), with exact quadrature values and gradients, a backtracking step and many
restarts. The problem is not concave (e.g. for zero means an equal split over 10 variables is worth less than the
average of two disjoint 5-splits), so the result is a lower bound on OPT, made tight by restarts; it is the oracle
the approximation algorithms are measured against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from icml26.common.validation import int_at_least, positive_int, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.gauss_sup._quadrature import _as_float_vector, _single, check_sets

__all__ = ["Allocation", "equal_split", "optimal_allocation_reference", "project_to_sphere", "sum_max_value"]


@dataclass(frozen=True)
class Allocation:
    """A variance allocation and its objective value: the output of every [P33] algorithm here (PTAS, greedy
    buckets, reference OPT).

    Attributes:
        sigma: standard deviations σ_i (Σσ_i² = 1), shape (n,).
        value: the objective Σ_j E max_{i∈S_j} X_i at ``sigma`` (quadrature).
        evaluations: how many objective evaluations the algorithm used.
        info: algorithm-specific extras (e.g. the best support size, the bucket, per-restart values).
    """

    sigma: np.ndarray
    value: float
    evaluations: int = 0
    info: dict = field(default_factory=dict)

    @property
    def variance(self) -> np.ndarray:
        """The allocated variances w_i = σ_i²."""
        return self.sigma**2

    def support(self, *, threshold: float = 0.0) -> np.ndarray:
        """Indices i with σ_i² > ``threshold``."""
        return np.flatnonzero(self.sigma**2 > threshold)


def project_to_sphere(x: np.ndarray) -> np.ndarray:
    """Euclidean projection onto {σ ≥ 0, ‖σ‖₂ = 1}: clip at zero and renormalise (the largest entry if none is > 0).

    The feasible set of [P33]'s variance budget Σσ_i² = 1; the projection step of :func:`optimal_allocation_reference`.

    ``x`` must be a finite, non-empty 1-D real vector (``ValueError``/``TypeError`` naming ``x`` otherwise).
    """
    x = _as_float_vector(x, "x")
    y = np.maximum(x, 0.0)
    norm = float(np.linalg.norm(y))
    if norm == 0.0:
        y = np.zeros_like(y)
        y[int(np.argmax(x))] = 1.0
        return y
    return y / norm


def _family(mu: np.ndarray, sets: object | None) -> list[np.ndarray]:
    if sets is None:
        return [np.arange(mu.size)]
    return check_sets(sets, mu.size)


def _value_grad(mu: np.ndarray, sigma: np.ndarray, fam: list[np.ndarray]) -> tuple[float, np.ndarray]:
    total, grad = 0.0, np.zeros_like(mu)
    for idx in fam:
        v, g = _single(mu[idx], sigma[idx], want_grad=True)
        total += v
        np.add.at(grad, idx, g)
    return total, grad


def sum_max_value(mu: np.ndarray, sigma: np.ndarray, fam: list[np.ndarray]) -> float:
    """Σ_j E max_{i∈S_j} X_i for already-validated arrays and family (internal fast path)."""
    return float(sum(_single(mu[idx], sigma[idx], want_grad=False)[0] for idx in fam))


def equal_split(n: int, support: Sequence[int] | np.ndarray) -> np.ndarray:
    """σ with σ_i² = 1/k on the k indices of ``support`` and 0 elsewhere (the bucket allocation of [P33]).

    ``n`` is an int >= 1 and ``support`` a non-empty collection of integer indices in [0, n) (floats are refused,
    not truncated).
    """
    n = positive_int(n, "n")
    raw = np.asarray(support)
    if raw.size == 0:
        raise ValueError("support must be non-empty")
    if raw.ndim != 1 or not np.issubdtype(raw.dtype, np.integer):
        raise TypeError(f"support must be a 1-D collection of integer indices, got dtype {raw.dtype}, shape {raw.shape}")
    idx = np.unique(raw.astype(np.intp))
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"support has indices outside [0, {n})")
    s = np.zeros(n)
    s[idx] = 1.0 / np.sqrt(idx.size)
    return s


def _ascend(mu: np.ndarray, fam: list[np.ndarray], sigma: np.ndarray, iters: int, tol: float) -> tuple[np.ndarray, float, int]:
    s = project_to_sphere(sigma)
    v, g = _value_grad(mu, s, fam)
    evals, step, stall = 1, 0.5, 0
    for _ in range(iters):
        # Riemannian step: remove the radial component, then project back onto the sphere's positive part
        d = g - float(g @ s) * s
        improved = False
        while step > 1e-10:
            cand = project_to_sphere(s + step * d)
            vc, gc = _value_grad(mu, cand, fam)
            evals += 1
            if vc > v:
                improved = True
                break
            step *= 0.5
        if not improved:
            break
        gain = vc - v
        s, v, g = cand, vc, gc
        step = min(2.0, step * 1.5)
        stall = stall + 1 if gain < tol else 0
        if stall >= 5:
            break
    return s, v, evals


def optimal_allocation_reference(
    mu: object,
    sets: object | None = None,
    *,
    restarts: int = 20,
    iters: int = 300,
    tol: float = 1e-10,
    seed: int | np.random.Generator,
    inits: Sequence[np.ndarray] = (),
) -> Allocation:
    """Reference OPT of [P33] (abstract): max over Σσ_i² = 1 of Σ_j E max_{i∈S_j} X_i, by projected gradient ascent.

    Starts: the uniform split, equal splits over the top-k means for k = 1..min(n, 8), the caller's ``inits``, and
    ``restarts`` random points (σ² ~ Dirichlet(1), from ``seed``). Each start is refined by ascent along the projected
    (Riemannian) gradient of Eq. (F-grad) with a backtracking step.

    Args:
        mu: means μ_i, shape (n,).
        sets: the family S_1..S_m (index collections); ``None`` means m = 1 with S_1 = [n].
        restarts: number of random starts (≥ 0).
        iters: maximum ascent steps per start.
        tol: a step gaining less than this five times in a row stops the ascent.
        seed: an int >= 0 or a numpy Generator for the random starts (required: no fresh entropy).
        inits: extra starting allocations σ (any non-negative vectors; they are projected onto the sphere).

    Returns:
        The best :class:`Allocation` found; ``info["values"]`` holds every start's final value.
    """
    m = _as_float_vector(mu, "mu")
    fam = _family(m, sets)
    restarts = int_at_least(restarts, "restarts", 0)
    iters = int_at_least(iters, "iters", 1)
    tol = real(tol, "tol", lo=0.0)
    g = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))
    n = m.size
    order = np.argsort(-m, kind="stable")
    starts = [np.ones(n)] + [equal_split(n, order[:k]) for k in range(1, min(n, 8) + 1)]
    for j, x in enumerate(inits):
        x = real_array(x, f"inits[{j}]", shape=(n,))
        if np.any(x < 0):
            raise ValueError(f"inits[{j}] must be non-negative (an allocation of standard deviations)")
        starts.append(x)
    starts += [np.sqrt(g.dirichlet(np.ones(n))) for _ in range(restarts)] if n > 1 else []
    best_s, best_v, total, values = None, -np.inf, 0, []
    for x in starts:
        s, v, e = _ascend(m, fam, x, iters, tol)
        total += e
        values.append(v)
        if v > best_v:
            best_s, best_v = s, v
    assert best_s is not None
    return Allocation(sigma=best_s, value=float(best_v), evaluations=total, info={"values": values})
