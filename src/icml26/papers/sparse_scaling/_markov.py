"""A synthetic corpus with a known entropy floor for the tiny-model runs of [P37]: an order-k Markov chain over a
small vocabulary whose rows are sparse Dirichlet draws (smoothed so that every transition has positive probability,
which makes the chain ergodic), sampled as independent sequences started from the stationary distribution.

The paper trains on C4 (an unknown floor); here the best possible loss is known exactly: at every position with a
full context, the Bayes loss is the conditional entropy ``H = Σ_c π(c)·H(P(·|c))`` under the stationary
distribution π of the contexts, which :class:`MarkovChain` computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common.validation import int_at_least, real, real_array
from icml26.common.validation import seed as check_seed

__all__ = ["MarkovChain", "markov_corpus"]

_MAX_CONTEXTS = 1 << 16


@dataclass(frozen=True, eq=False)
class MarkovChain:
    """[P37] corpus source: an order-``order`` chain on ``vocab`` tokens (built by :func:`markov_corpus`).

    Attributes:
        transition: ``(vocab**order, vocab)`` next-token probabilities per context; a context is the base-``vocab``
            number of its last ``order`` tokens, the most recent last.
        stationary: ``(vocab**order,)`` stationary distribution of the contexts.
        entropy_floor: the conditional entropy rate in nats/token, the loss floor at full-context positions.
    """

    vocab: int
    order: int
    transition: np.ndarray
    stationary: np.ndarray
    entropy_floor: float

    def sample(self, n_seq: int, length: int, *, seed: int) -> np.ndarray:
        """``n_seq`` independent sequences of ``length`` tokens (int64), each starting from a stationary context
        (its first ``order`` tokens), drawn from ``seed``; sequences are i.i.d., so their tokens are unique data."""
        n_seq = int_at_least(n_seq, "n_seq", 1)
        length = int_at_least(length, "length", self.order + 1)
        g = np.random.default_rng(check_seed(seed))
        V, k = self.vocab, self.order
        ctx = g.choice(V ** k, size=n_seq, p=self.stationary)
        out = np.empty((n_seq, length), dtype=np.int64)
        for i in range(k):  # the context's digits, oldest first
            out[:, i] = (ctx // V ** (k - 1 - i)) % V
        cum = np.cumsum(self.transition, axis=1)
        for t in range(k, length):
            u = g.random(n_seq)[:, None]
            y = np.minimum((cum[ctx] < u * cum[ctx, -1:]).sum(axis=1), V - 1)
            out[:, t] = y
            ctx = (ctx * V + y) % V ** k
        return out

    def log_prob(self, seqs: np.ndarray) -> np.ndarray:
        """Exact log P(x_t | last ``order`` tokens) for every position ``t >= order`` of ``seqs`` (n, T) -> (n, T-k)."""
        x = real_array(seqs, "seqs", ndim=2, dtype=np.int64)
        V, k = self.vocab, self.order
        if x.shape[1] <= k or x.min() < 0 or x.max() >= V:
            raise ValueError(f"seqs must be (n, T > {k}) token ids in [0, {V})")
        ctx = np.zeros(x.shape[0], dtype=np.int64)
        for i in range(k):
            ctx = ctx * V + x[:, i]
        out = np.empty((x.shape[0], x.shape[1] - k))
        for t in range(k, x.shape[1]):
            out[:, t - k] = np.log(self.transition[ctx, x[:, t]])
            ctx = (ctx * V + x[:, t]) % V ** k
        return out


def _stationary(P: np.ndarray, V: int, k: int, *, tol: float = 1e-14, max_iter: int = 100_000) -> np.ndarray:
    """Power iteration of the context distribution: the context (c_1..c_k) moves to (c_2..c_k, y) w.p. P[c, y]."""
    Pr = P.reshape(V, V ** (k - 1), V)
    pi = np.full(V ** k, 1.0 / V ** k)
    for _ in range(max_iter):
        new = np.einsum("ar,ary->ry", pi.reshape(V, V ** (k - 1)), Pr).reshape(-1)
        new /= new.sum()
        if np.abs(new - pi).sum() < tol:
            return new
        pi = new
    raise RuntimeError(f"the chain's stationary distribution did not converge in {max_iter} steps")


def markov_corpus(*, vocab: int, order: int, concentration: float, seed: int, smoothing: float = 0.01) -> MarkovChain:
    """[P37] the synthetic corpus of this package (its reproduction uses C4): each of the ``vocab**order`` contexts
    gets next-token probabilities ``(1 − smoothing)·Dirichlet(concentration) + smoothing/vocab`` drawn from
    ``seed``; a small ``concentration`` gives sparse rows (few likely successors). The entropy floor is exact
    (module docstring)."""
    V = int_at_least(vocab, "vocab", 2)
    k = int_at_least(order, "order", 1)
    if V ** k > _MAX_CONTEXTS:
        raise ValueError(f"vocab**order = {V ** k} contexts exceeds {_MAX_CONTEXTS} (the floor is computed exactly)")
    alpha = real(concentration, "concentration", lo=0.0, lo_open=True)
    lam = real(smoothing, "smoothing", lo=0.0, hi=1.0, lo_open=True)
    g = np.random.default_rng(check_seed(seed))
    P = (1.0 - lam) * g.dirichlet(np.full(V, alpha), size=V ** k) + lam / V
    P /= P.sum(axis=1, keepdims=True)
    pi = _stationary(P, V, k)
    floor = float(pi @ -(P * np.log(P)).sum(axis=1))
    P.setflags(write=False)
    pi.setflags(write=False)
    return MarkovChain(V, k, P, pi, floor)
