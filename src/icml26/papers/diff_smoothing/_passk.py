"""Pass@k and diversity measures: the unbiased estimator from n samples and closed forms for a categorical policy.

A categorical policy π over N answers with a known correct set C (a boolean mask) has
    pass@k = 1 − (1 − π(C))^k                                   (k independent samples, at least one correct),
    E[#distinct correct in k samples] = Σ_{i∈C} 1 − (1 − π_i)^k,
and, on a held-out *variant* of the prompt on which each train-correct answer stays correct independently with
probability q (a random subset S ⊆ C), the pass@k averaged over variants
    pass@k_q = 1 − Σ_{S⊆C} q^{|S|} (1 − q)^{|C|−|S|} (1 − π(S))^k,
which rewards spreading mass over C (a policy collapsed onto one correct answer has pass@k_q ≤ q for every k).
"""

from __future__ import annotations

import numbers

import numpy as np

from icml26.common import validation

__all__ = [
    "categorical_pass_at_k",
    "check_correct",
    "check_policy",
    "correct_set_entropy",
    "expected_distinct_correct",
    "pass_at_k",
    "variant_pass_at_k",
]

_MAX_VARIANT_SET = 16  # 2^16 subsets: the exact sum over variants stays cheap


def _check_int(x: object, name: str, lo: int) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(x).__name__}")
    if int(x) < lo:
        raise ValueError(f"{name} must be >= {lo}, got {x}")
    return int(x)


def check_policy(policy: object, name: str = "policy", *, atol: float = 1e-6) -> np.ndarray:
    """Validate a categorical policy (or a batch, one per row): finite, entries in [0, 1], rows summing to 1."""
    p = np.asarray(policy, dtype=float)
    if p.ndim not in (1, 2) or p.shape[-1] == 0 or p.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D (or 2-D, one policy per row) array, got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite")
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    s = p.sum(axis=-1)
    if np.any(np.abs(s - 1.0) > atol):
        raise ValueError(f"{name} must sum to 1 (got sums {np.atleast_1d(s)[:3]}...)")
    return p


def check_correct(correct: object, shape: tuple[int, ...], name: str = "correct") -> np.ndarray:
    """Validate a boolean correct-answer mask of the policy's ``shape``."""
    c = np.asarray(correct)
    if c.dtype != bool:
        if c.size and not np.all(np.isin(c, (0, 1))):
            raise ValueError(f"{name} must be a boolean mask (or 0/1)")
        c = c.astype(bool)
    if c.shape != shape:
        raise ValueError(f"{name} has shape {c.shape}, the policy has shape {shape}")
    return c


def pass_at_k(n: int | np.ndarray, c: int | np.ndarray, k: int) -> float | np.ndarray:
    """Unbiased pass@k estimate from ``n`` samples of which ``c`` are correct: 1 − C(n−c, k) / C(n, k) (the Pass@k
    metric of [P32]'s experiments; the unbiased estimator of Chen et al. 2021).

    Computed as 1 − Π_{i=n−c+1}^{n} (1 − k/i) (no large binomials). ``n`` and ``c`` may be arrays of equal shape
    (one entry per prompt); ``k`` is an int with 1 <= k <= n.
    """
    k = _check_int(k, "k", 1)
    na, ca = np.asarray(n), np.asarray(c)
    if na.shape != ca.shape:
        raise ValueError(f"n and c must have the same shape, got {na.shape} and {ca.shape}")
    if not (np.issubdtype(na.dtype, np.integer) and np.issubdtype(ca.dtype, np.integer)):
        raise TypeError("n and c must be integers")
    if np.any(ca < 0) or np.any(ca > na):
        raise ValueError("c must satisfy 0 <= c <= n")
    if np.any(na < k):
        raise ValueError(f"k = {k} exceeds n (need n >= k samples)")
    out = np.empty(na.shape, dtype=float)
    for idx in np.ndindex(na.shape):
        ni, ci = int(na[idx]), int(ca[idx])
        if ni - ci < k:
            out[idx] = 1.0
        else:
            i = np.arange(ni - ci + 1, ni + 1, dtype=float)
            out[idx] = 1.0 - float(np.prod(1.0 - k / i))
    return float(out) if out.ndim == 0 else out


def categorical_pass_at_k(policy: object, correct: object, k: int) -> float | np.ndarray:
    """Closed-form pass@k = 1 − (1 − π(C))^k of a categorical policy π (``policy``) with correct set C (``correct``).

    A 2-D ``policy`` (one prompt per row) returns one value per row. The Pass@k of [P32]'s tabular study; float32
    input is computed and returned in float64.
    """
    k = _check_int(k, "k", 1)
    p = check_policy(policy)
    c = check_correct(correct, p.shape)
    pc = np.clip((p * c).sum(axis=-1), 0.0, 1.0)
    out = 1.0 - (1.0 - pc) ** k
    return float(out) if np.ndim(out) == 0 else out


def expected_distinct_correct(policy: object, correct: object, k: int) -> float | np.ndarray:
    """Closed-form expected number of distinct correct answers among k samples: Σ_{i∈C} 1 − (1 − π_i)^k.

    A diversity measure for [P32]'s collapse claim (the toy's analogue of distinct correct answers on CountDown);
    float32 input is computed and returned in float64.
    """
    k = _check_int(k, "k", 1)
    p = check_policy(policy)
    c = check_correct(correct, p.shape)
    out = ((1.0 - (1.0 - p) ** k) * c).sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def variant_pass_at_k(policy: object, correct: object, k: int, *, keep_prob: float) -> float | np.ndarray:
    """Exact pass@k on held-out variants: each correct answer stays correct with probability ``keep_prob`` (q).

    pass@k_q = 1 − Σ_{S⊆C} q^{|S|}(1 − q)^{|C|−|S|}(1 − π(S))^k, summed exactly over the 2^{|C|} subsets (|C| <= 16).
    With q = 1 it equals :func:`categorical_pass_at_k`. (Our diversity-sensitive pass@k for the exact toy of [P32];
    see the package card.) Float32 input is computed and returned in float64.
    """
    k = _check_int(k, "k", 1)
    q = validation.real(keep_prob, "keep_prob", lo=0.0, hi=1.0)
    p = check_policy(policy)
    c = check_correct(correct, p.shape)
    p2, c2 = np.atleast_2d(p), np.atleast_2d(c)
    out = np.empty(p2.shape[0])
    for row in range(p2.shape[0]):
        pc = p2[row, c2[row]]
        m = pc.size
        if m > _MAX_VARIANT_SET:
            raise ValueError(f"correct has {m} answers in row {row}; the exact variant sum allows at most {_MAX_VARIANT_SET}")
        if m == 0:
            out[row] = 0.0
            continue
        bits = ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1).astype(float)  # (2^m, m): subsets S
        size = bits.sum(axis=1)
        w = q**size * (1.0 - q) ** (m - size)
        miss = np.clip(1.0 - bits @ pc, 0.0, 1.0)
        out[row] = 1.0 - float(np.sum(w * miss**k))
    return float(out[0]) if p.ndim == 1 else out


def correct_set_entropy(policy: object, correct: object, *, normalized: bool = True) -> float | np.ndarray:
    """Entropy (nats) of π restricted to C and renormalised, π(·|C); divided by log|C| when ``normalized``.

    The diversity among correct answers that vanilla RL collapses ([P32]'s sharpening). 0 when |C| <= 1 (normalised)
    or π(C) = 0. Float32 input is computed and returned in float64.
    """
    p = check_policy(policy)
    c = check_correct(correct, p.shape)
    pc = p * c
    mass = pc.sum(axis=-1, keepdims=True)
    q = np.divide(pc, mass, out=np.zeros_like(pc), where=mass > 0)
    ent = -np.sum(np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0)), 0.0), axis=-1)
    if normalized:
        m = c.sum(axis=-1)
        ent = np.divide(ent, np.log(np.maximum(m, 2)), out=np.zeros_like(ent, dtype=float), where=m > 1)
    return float(ent) if np.ndim(ent) == 0 else ent
