"""The two algorithms of [P33]: a grid-enumeration PTAS for m = 1 and the bucketed greedy O(log n) approximation.

PTAS (m = 1), as reconstructed here:
  1. Support is a prefix of the means. Moving variance σ² from a variable a to an unused variable b with μ_b ≥ μ_a
     never lowers E max (condition on the max M of the rest: E max(M ∨ μ_a, μ_b + σZ) ≥ E max(M ∨ μ_b, μ_a + σZ),
     because E(σZ − x)⁺ decreases in x). So some optimal allocation uses exactly the k largest means, for some k.
  2. Structure: only O_ε(1) variables matter, and variances can be rounded to a grid of N = ⌈2/ε⌉ units of 1/N
     (at most N variables then receive a unit, so k ≤ N).
  3. Enumerate every k ≤ min(n, N) and every composition of the N units into k positive parts over the top-k
     variables; the unused variables stay at their means (they are constants in the max). Return the best.
  Step 2's grid is a practical choice, not the paper's worst-case constant (which is far finer); the claim check
  measures how close to OPT it lands.

Greedy buckets (m > 1): for each k in {1, 2, 4, …} ∪ {n}, give variance 1/k to k variables chosen one by one, each
time the one that raises Σ_j E max_{i∈S_j} X_i most; return the best bucket. OPT's variance can be sorted into
O(log n) geometric levels, one of which carries a 1/O(log n) share of the value; equal variances within a level and
the greedy choice lose only constant factors, hence an O(log n) approximation.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import log_ndtr

from icml26.common.validation import int_at_least, real
from icml26.papers.gauss_sup._optimize import Allocation, _family, equal_split, sum_max_value
from icml26.papers.gauss_sup._quadrature import _TAIL, _as_float_vector, _nodes, _single

__all__ = ["greedy_buckets", "ptas_grid_size", "ptas_single"]


def _check_int(value: object, name: str, *, low: int = 1) -> int:
    """An int (not bool, not a float) >= ``low``; TypeError/ValueError naming ``name`` otherwise."""
    return int_at_least(value, name, low)


def _check_eps(eps: object) -> float:
    return real(eps, "eps", lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def ptas_grid_size(n: int, *, eps: float) -> tuple[int, int]:
    """(N, number of allocations) the PTAS enumerates for n variables: Σ_{k ≤ min(n,N)} C(N−1, k−1), N = ⌈2/ε⌉.

    The size of the grid enumeration of :func:`ptas_single` (our reconstruction of [P33]'s m = 1 PTAS; N is our
    practical grid, not the paper's).

    Args:
        n: number of variables (int >= 1).
        eps: accuracy ε in (0, 1), keyword-only as in :func:`ptas_single`.
    """
    n = _check_int(n, "n")
    units = math.ceil(2.0 / _check_eps(eps) - 1e-12)
    return units, sum(math.comb(units - 1, k - 1) for k in range(1, min(n, units) + 1))


def ptas_single(mu: object, *, eps: float, max_evaluations: int = 2_000_000, chunk: int = 4096) -> Allocation:
    """PTAS of [P33] (abstract: "a PTAS for computing OPT when m = 1") by grid enumeration over mean-prefixes.

    Maximises F(σ) = E max_i (μ_i + σ_i Z_i) over Σσ_i² = 1 to within the grid: every k ≤ min(n, N), every split of
    N = ⌈2/ε⌉ variance units of 1/N over the k largest means (steps 1-3 of the module docstring). Exact values of
    the winner are recomputed with :func:`expected_max`'s quadrature.

    Args:
        mu: means μ_i, shape (n,), finite.
        eps: accuracy ε in (0, 1); the target is F ≥ (1 − ε)·OPT.
        max_evaluations: refuse (``ValueError``) when the enumeration would exceed this many allocations (int >= 1).
        chunk: allocations evaluated per vectorised batch (int >= 1; memory ~ chunk × nodes × 8 bytes).

    Returns:
        :class:`Allocation` with ``info = {"units": N, "k": support size, "enumerated": count}``.
    """
    m = _as_float_vector(mu, "mu")
    e = _check_eps(eps)
    max_evaluations = _check_int(max_evaluations, "max_evaluations")
    chunk = _check_int(chunk, "chunk")
    n = m.size
    units, count = ptas_grid_size(n, eps=e)
    if count > max_evaluations:
        raise ValueError(f"eps={eps!r} with n={n} needs {count} allocations (> max_evaluations={max_evaluations}); "
                         "use a larger eps or raise max_evaluations")
    order = np.argsort(-m, kind="stable")
    kmax = min(n, units)
    top = m[order[:kmax]]
    levels = np.sqrt(np.arange(1, units + 1) / units)  # σ for 1..N units
    # one quadrature grid for every candidate: panel ends at μ_i + σ_u·offsets and at the possible floors
    mus = np.repeat(top, units)
    sig = np.tile(levels, kmax)
    lo = float(top[0]) - _TAIL  # σ_top ≤ 1 and the top variable always has variance
    hi = float(top[0]) + _TAIL
    floors = m[order[1:kmax + 1]]  # the constant left at the top when the support is the k largest means
    t, w = _nodes(mus, sig, lo, hi, forced=floors[(floors > lo) & (floors < hi)], merge=1.0, order=6)
    # table[i, u, :] = log Φ((t − μ_i)/σ_u)
    table = log_ndtr((t[None, None, :] - top[:, None, None]) / levels[None, :, None])
    best_v, best_c, best_k = -np.inf, None, 0
    for k in range(1, kmax + 1):
        floor = float(m[order[k]]) if k < n else -np.inf
        above = t >= floor
        below_w = float(w[~above].sum())
        cuts = itertools.combinations(range(1, units), k - 1)
        while True:
            block = list(itertools.islice(cuts, chunk))
            if not block:
                break
            c = np.asarray(block, dtype=np.intp).reshape(len(block), k - 1)
            bounds = np.concatenate([np.zeros((c.shape[0], 1), np.intp), c, np.full((c.shape[0], 1), units)], axis=1)
            comp = np.diff(bounds, axis=1)  # (B, k) units per variable, each ≥ 1
            log_r = np.zeros((comp.shape[0], t.size))
            for i in range(k):
                log_r += table[i, comp[:, i] - 1, :]
            # Eq. (F-int) with the floor: F = lo + ∫ (1 − 1{t ≥ floor}·R(t)) dt
            vals = lo + below_w + (-np.expm1(log_r[:, above])) @ w[above]
            j = int(np.argmax(vals))
            if vals[j] > best_v:
                best_v, best_c, best_k = float(vals[j]), comp[j].copy(), k
    assert best_c is not None
    sigma = np.zeros(n)
    sigma[order[:best_k]] = np.sqrt(best_c / units)
    value = _single(m, sigma, want_grad=False)[0]
    return Allocation(sigma=sigma, value=float(value), evaluations=count,
                      info={"units": units, "k": best_k, "enumerated": count, "grid_value": best_v})


def greedy_buckets(mu: object, sets: object | None = None, *, levels: tuple[int, ...] | None = None) -> Allocation:
    """The O(log n)-approximation of [P33] (abstract, general m): best over geometric buckets of a greedy equal split.

    For each bucket size k (default {1, 2, 4, …} ∪ {n}), the variance 1/k is given to k variables chosen greedily
    to maximise F_m(σ) = Σ_j E max_{i∈S_j} X_i (unchosen variables stay at their means); the best bucket is returned.

    Args:
        mu: means μ_i, shape (n,).
        sets: the family S_1..S_m (index collections); ``None`` means m = 1 with S_1 = [n].
        levels: bucket sizes to try (ints in [1, n]); default powers of two up to n, and n.

    Returns:
        :class:`Allocation` with ``info = {"k": best bucket, "bucket_values": {k: value}}``.
    """
    m = _as_float_vector(mu, "mu")
    fam = _family(m, sets)
    n = m.size
    if levels is None:
        ks = sorted({2**j for j in range(int(math.log2(n)) + 1)} | {n})
    else:
        if isinstance(levels, (str, bytes)) or not hasattr(levels, "__iter__"):
            raise TypeError(f"levels must be a sequence of ints, got {type(levels).__name__}")
        for k in levels:
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
                raise TypeError(f"levels must hold ints (bucket sizes), got {k!r}")
        ks = sorted({int(k) for k in levels})
        if not ks or ks[0] < 1 or ks[-1] > n:
            raise ValueError(f"levels must be non-empty sizes in [1, {n}], got {levels!r}")
    member: list[list[int]] = [[] for _ in range(n)]
    for j, idx in enumerate(fam):
        for i in idx.tolist():
            member[i].append(j)
    zero = np.zeros(n)
    base = np.array([_single(m[idx], zero[idx], want_grad=False)[0] for idx in fam])
    evals = len(fam)
    results: dict[int, float] = {}
    best: tuple[float, np.ndarray, int] | None = None
    for k in ks:
        s_val = 1.0 / math.sqrt(k)
        sigma = np.zeros(n)
        cur = base.copy()
        chosen: list[int] = []
        for _ in range(k):
            best_gain, best_i, best_new = -np.inf, -1, None
            for i in range(n):
                if sigma[i] > 0:
                    continue
                sigma[i] = s_val
                new = {j: _single(m[fam[j]], sigma[fam[j]], want_grad=False)[0] for j in member[i]}
                sigma[i] = 0.0
                evals += len(new)
                gain = sum(v - cur[j] for j, v in new.items())
                if gain > best_gain:
                    best_gain, best_i, best_new = gain, i, new
            assert best_new is not None  # k <= n: an unchosen variable is always left
            sigma[best_i] = s_val
            chosen.append(best_i)
            for j, v in best_new.items():
                cur[j] = v
        value = float(cur.sum())
        results[k] = value
        if best is None or value > best[0]:
            best = (value, equal_split(n, chosen), k)
    assert best is not None
    value = sum_max_value(m, best[1], fam)
    return Allocation(sigma=best[1], value=value, evaluations=evals, info={"k": best[2], "bucket_values": results})
