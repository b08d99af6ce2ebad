"""Tasks with per-token ground-truth difficulty ([P23] "complexity-controlled evaluation"; our instances).

Every generator returns a :class:`TokenTask`: integer fields per token, a per-token target and a per-token
difficulty the model never sees.

- :func:`pointer_chasing`: variables bound to a value or to another variable (chains, shuffled); target: each
  variable's value; difficulty: the number of pointer hops to the value.
- :func:`addition`: two numbers digit by digit, least significant first (one token per position, plus the carry-out
  position); target: each digit of the sum; difficulty: how many lower positions decide the carry into it (the
  length of the carry chain it ends).
- :func:`topological_levels` (in :mod:`._topo`): a DAG, one token per node with its parents; target: the node's round
  in Kahn's algorithm (a layered topological sort); difficulty: that round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from icml26.common.validation import int_array, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed

__all__ = ["TokenTask", "addition", "carry_lookback", "pad_rows", "pointer_chasing"]


@dataclass(frozen=True)
class TokenTask:
    """A batch of sequences with per-token targets and difficulty ([P23]); padding: ``mask`` False, fields -1.

    ``x`` (S, N, F) int64, ``y`` (S, N) int64 (-1 on padding), ``difficulty`` (S, N) int64 (-1 on padding), ``mask``
    (S, N) bool, ``vocab_sizes`` and ``n_classes`` for :class:`~icml26.papers.anira.RecurrentConfig`, ``features``
    per-token numbers (name -> (S, N) float64) for the decision-timing analysis.
    """

    name: str
    x: np.ndarray
    y: np.ndarray
    difficulty: np.ndarray
    mask: np.ndarray
    vocab_sizes: tuple[int, ...]
    n_classes: int
    features: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n_tokens(self) -> int:
        """Number of real tokens."""
        return int(self.mask.sum())


def pad_rows(rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]], n_fields: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Stack variable-length sequences (fields (n, F), targets, difficulty, features) into padded arrays."""
    S, N = len(rows), max(len(r[1]) for r in rows)
    x = np.full((S, N, n_fields), -1, dtype=np.int64)
    y = np.full((S, N), -1, dtype=np.int64)
    d = np.full((S, N), -1, dtype=np.int64)
    mask = np.zeros((S, N), dtype=bool)
    names = sorted(rows[0][3])
    feats = {k: np.zeros((S, N)) for k in names}
    for i, (xi, yi, di, fi) in enumerate(rows):
        n = len(yi)
        x[i, :n], y[i, :n], d[i, :n], mask[i, :n] = xi, yi, di, True
        for k in names:
            feats[k][i, :n] = fi[k]
    return x, y, d, mask, feats


def _range(v: tuple[int, int], name: str, lo: int) -> tuple[int, int]:
    if not isinstance(v, tuple) or len(v) != 2:
        raise TypeError(f"{name} must be a (lo, hi) tuple of ints, got {v!r}")
    a, b = int_at_least(v[0], name, lo), int_at_least(v[1], name, lo)
    if a > b:
        raise ValueError(f"{name} must have lo <= hi, got {v!r}")
    return a, b


def _one_pointer_seq(g: np.random.Generator, n: int, max_hops: int, n_names: int, n_values: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    names = g.choice(n_names, size=n, replace=False)
    x, y, hops = np.zeros((n, 2), dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    i = 0
    while i < n:
        length = min(int(g.integers(1, max_hops + 2)), n - i)
        value = int(g.integers(n_values))
        for h in range(length):
            x[i + h] = (names[i + h], value if h == 0 else n_values + names[i + h - 1])
            y[i + h], hops[i + h] = value, h
        i += length
    order = g.permutation(n)
    return x[order], y[order], hops[order], {}


def pointer_chasing(n_seqs: int, *, n_vars: tuple[int, int] = (8, 12), max_hops: int = 4, n_names: int = 32,
                    n_values: int = 8, seed: int) -> TokenTask:
    """Pointer chasing with known hop counts ([P23] T1, our instance).

    Each sequence binds ``n`` variables (``n`` uniform in ``n_vars``), drawn without replacement from ``n_names``
    names, in chains: a chain's first variable is bound to a value in ``0..n_values-1``, each next one to the variable
    before it; chain lengths are uniform in ``1..max_hops+1`` (the last one cut to fit). Tokens are shuffled.
    Fields: (name, operand) with operand ``v`` for a value and ``n_values + name`` for a variable. Target: the value
    the variable resolves to; difficulty: its number of hops (0 for a variable bound to a value).
    """
    S, g = positive_int(n_seqs, "n_seqs"), np.random.default_rng(check_seed(seed))
    lo, hi = _range(n_vars, "n_vars", 1)
    hops_max = int_at_least(max_hops, "max_hops", 0)
    names, values = positive_int(n_names, "n_names"), positive_int(n_values, "n_values")
    if hi > names:
        raise ValueError(f"n_vars: up to {hi} variables need n_names >= {hi}, got {names}")
    rows = [_one_pointer_seq(g, int(g.integers(lo, hi + 1)), hops_max, names, values) for _ in range(S)]
    x, y, d, mask, feats = pad_rows(rows, 2)
    return TokenTask("pointer", x, y, d, mask, (names, values + names), values, feats)


def carry_lookback(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per output position ``i`` of ``a + b`` (digits least significant first, same length): how many lower
    positions decide the carry into ``i`` ([P23] T2 difficulty). Position ``i - 1`` decides it unless its digits sum
    to 9 (a carry propagates through), then the look-back continues; it stops at position 0 (no carry-in)."""
    da, db = int_array(a, "a", ndim=1), int_array(b, "b", ndim=1)
    if da.shape != db.shape:
        raise ValueError(f"a and b must have the same length, got {da.shape} and {db.shape}")
    if ((da < 0) | (da > 9)).any() or ((db < 0) | (db > 9)).any():
        raise ValueError("a and b must hold decimal digits 0..9")
    s = da + db
    out = np.zeros(len(s), dtype=np.int64)
    for i in range(1, len(s)):
        j = i - 1
        while j > 0 and s[j] == 9:
            j -= 1
        out[i] = i - j
    return out


def _one_addition_seq(g: np.random.Generator, n_digits: int, p_propagate: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    a = g.integers(0, 10, size=n_digits)
    b = g.integers(0, 10, size=n_digits)
    nine = g.random(n_digits) < p_propagate
    b = np.where(nine, 9 - a, b)
    a, b = np.append(a, 0), np.append(b, 0)  # the carry-out position
    s, carry = np.zeros(n_digits + 1, dtype=np.int64), 0
    for i in range(n_digits + 1):
        t = int(a[i] + b[i]) + carry
        s[i], carry = t % 10, t // 10
    return np.stack([a, b], 1).astype(np.int64), s, carry_lookback(a, b), {}


def addition(n_seqs: int, *, digits: tuple[int, int] = (6, 8), p_propagate: float = 0.3, seed: int) -> TokenTask:
    """Addition with carry chains ([P23] T2, our instance): two ``L``-digit numbers (``L`` uniform in ``digits``),
    least significant digit first, one token ``(a_i, b_i)`` per position plus the carry-out position ``(0, 0)``.

    Digit pairs summing to 9 (a carry passes through) are drawn with probability ``p_propagate`` (uniform pairs
    otherwise), so that long carry chains occur. Target: the sum's digit; difficulty: :func:`carry_lookback`.
    Order matters: use ``positions="rope"`` (or ``"learned"``).
    """
    S, g = positive_int(n_seqs, "n_seqs"), np.random.default_rng(check_seed(seed))
    lo, hi = _range(digits, "digits", 1)
    p = real(p_propagate, "p_propagate", lo=0.0, hi=1.0)
    rows = [_one_addition_seq(g, int(g.integers(lo, hi + 1)), p) for _ in range(S)]
    x, y, d, mask, feats = pad_rows(rows, 2)
    return TokenTask("addition", x, y, d, mask, (10, 10), 10, feats)
