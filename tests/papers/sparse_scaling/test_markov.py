"""The [P37] Markov corpus: its entropy floor equals the exact conditional entropy, and sampling follows the chain."""

import itertools

import numpy as np
import pytest
from scipy.stats import entropy

from icml26.papers.sparse_scaling import markov_corpus


def _dense_stationary(P: np.ndarray, V: int, k: int) -> np.ndarray:
    """Brute force: the V^k x V^k transition matrix of the contexts and its left eigenvector for eigenvalue 1."""
    n = V ** k
    T = np.zeros((n, n))
    for ctx in range(n):
        for y in range(V):
            T[ctx, (ctx * V + y) % n] += P[ctx, y]
    w, vecs = np.linalg.eig(T.T)
    v = np.real(vecs[:, np.argmin(np.abs(w - 1))])
    return v / v.sum()


@pytest.mark.parametrize(("V", "k", "alpha"), [(3, 1, 0.3), (4, 2, 0.1), (3, 3, 1.0)])
def test_entropy_floor_is_the_exact_conditional_entropy(V: int, k: int, alpha: float) -> None:
    ch = markov_corpus(vocab=V, order=k, concentration=alpha, seed=5)
    pi = _dense_stationary(ch.transition, V, k)
    np.testing.assert_allclose(ch.stationary, pi, atol=1e-12)
    want = float(pi @ entropy(ch.transition, axis=1))  # scipy's entropy in nats, row by row
    assert ch.entropy_floor == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(ch.transition.sum(axis=1), 1.0, atol=1e-14)
    assert ch.transition.min() >= 0.01 / V * (1 - 1e-12)  # the smoothing keeps every transition possible


def test_order_one_floor_by_hand() -> None:
    ch = markov_corpus(vocab=2, order=1, concentration=1.0, seed=0, smoothing=0.5)
    (a, b), (c, d) = ch.transition
    pi0 = c / (b + c)  # two-state chain: π0 = P(1→0) / (P(0→1) + P(1→0))
    h = lambda p: -(p * np.log(p) + (1 - p) * np.log(1 - p))  # noqa: E731
    assert ch.entropy_floor == pytest.approx(pi0 * h(a) + (1 - pi0) * h(d), rel=1e-12)


def test_sample_averages_to_the_floor_and_follows_the_chain() -> None:
    ch = markov_corpus(vocab=5, order=2, concentration=0.2, seed=1)
    x = ch.sample(4000, 40, seed=2)
    nll = -ch.log_prob(x)
    se = nll.std() / np.sqrt(nll.size)
    assert abs(nll.mean() - ch.entropy_floor) < 4 * se  # ergodic average of −log p = the conditional entropy
    counts = np.zeros_like(ch.transition)
    for t in range(2, 40):
        np.add.at(counts, (x[:, t - 2] * 5 + x[:, t - 1], x[:, t]), 1)
    freq = counts / counts.sum(axis=1, keepdims=True)
    busy = counts.sum(axis=1) > 2000
    assert np.abs(freq[busy] - ch.transition[busy]).max() < 0.05
    first = np.bincount(x[:, 0] * 5 + x[:, 1], minlength=25) / 4000  # the start is stationary
    assert np.abs(first - ch.stationary).max() < 0.03


def test_sampling_is_seeded() -> None:
    ch = markov_corpus(vocab=4, order=1, concentration=0.5, seed=0)
    assert np.array_equal(ch.sample(10, 8, seed=3), ch.sample(10, 8, seed=3))
    assert not np.array_equal(ch.sample(10, 8, seed=3), ch.sample(10, 8, seed=4))
    assert ch.sample(10, 8, seed=3).dtype == np.int64 and ch.sample(10, 8, seed=3).max() < 4
    same = markov_corpus(vocab=4, order=1, concentration=0.5, seed=0)
    assert np.array_equal(same.transition, ch.transition)


def test_log_prob_by_enumeration() -> None:
    ch = markov_corpus(vocab=3, order=1, concentration=0.5, seed=2)
    total = 0.0
    for seq in itertools.product(range(3), repeat=3):  # Σ over all continuations of a fixed first token
        if seq[0] == 1:
            total += float(np.exp(ch.log_prob(np.array([seq])).sum()))
    assert total == pytest.approx(1.0, rel=1e-12)


def test_too_many_contexts_and_bad_sequences_are_refused() -> None:
    with pytest.raises(ValueError, match="contexts"):
        markov_corpus(vocab=64, order=3, concentration=0.1, seed=0)
    ch = markov_corpus(vocab=3, order=2, concentration=0.5, seed=0)
    with pytest.raises(ValueError, match="seqs"):
        ch.log_prob(np.array([[0, 1]]))
    with pytest.raises(ValueError, match="seqs"):
        ch.log_prob(np.array([[0, 1, 5]]))
