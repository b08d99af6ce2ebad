"""pass@k: the unbiased estimator vs brute force, closed forms vs Monte Carlo, properties and bad input."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.diff_smoothing import (
    categorical_pass_at_k,
    correct_set_entropy,
    expected_distinct_correct,
    pass_at_k,
    variant_pass_at_k,
)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 2, 2), (6, 0, 3), (6, 6, 1), (7, 3, 4), (8, 1, 8)])
def test_unbiased_estimator_matches_brute_force(n, c, k):
    # brute force: the fraction of k-subsets of the n samples holding at least one correct sample
    samples = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    brute = sum(any(samples[i] for i in s) for s in subsets) / len(subsets)
    assert pass_at_k(n, c, k) == pytest.approx(brute, abs=1e-12)
    assert pass_at_k(n, c, k) == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), abs=1e-12)


def test_unbiased_estimator_is_unbiased_for_categorical_pass_at_k():
    # E over c ~ Binomial(n, p) of the estimator equals 1 − (1 − p)^k exactly
    n, k, p = 10, 4, 0.23
    e = sum(math.comb(n, c) * p**c * (1 - p) ** (n - c) * pass_at_k(n, c, k) for c in range(n + 1))
    assert e == pytest.approx(1 - (1 - p) ** k, abs=1e-12)


def test_worked_example_and_vectorised():
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    out = pass_at_k(np.array([4, 4]), np.array([0, 4]), 2)
    assert out.tolist() == [0.0, 1.0]


def test_closed_forms_match_monte_carlo():
    g = np.random.default_rng(0)
    pi = np.array([0.4, 0.25, 0.15, 0.1, 0.06, 0.04])
    cor = np.array([False, True, True, False, True, False])
    k, q, n_mc = 3, 0.5, 200_000
    draws = g.choice(6, size=(n_mc, k), p=pi)
    hit = cor[draws]
    assert categorical_pass_at_k(pi, cor, k) == pytest.approx(hit.any(axis=1).mean(), abs=4e-3)
    distinct = np.array([len(set(d[c])) for d, c in zip(draws[:20000], hit[:20000])])
    assert expected_distinct_correct(pi, cor, k) == pytest.approx(distinct.mean(), abs=2e-2)
    keep = g.random((n_mc, 6)) < q  # variant: each correct answer stays correct w.p. q
    ok = (cor & keep)[np.arange(n_mc)[:, None], draws]
    assert variant_pass_at_k(pi, cor, k, keep_prob=q) == pytest.approx(ok.any(axis=1).mean(), abs=4e-3)


def test_variant_limits_and_collapse_bound():
    pi = np.array([0.5, 0.3, 0.2])
    cor = np.array([True, True, False])
    assert variant_pass_at_k(pi, cor, 5, keep_prob=1.0) == pytest.approx(categorical_pass_at_k(pi, cor, 5))
    assert variant_pass_at_k(pi, cor, 5, keep_prob=0.0) == 0.0
    collapsed = np.array([1.0, 0.0, 0.0])
    assert variant_pass_at_k(collapsed, cor, 50, keep_prob=0.3) == pytest.approx(0.3)  # <= q for every k
    assert correct_set_entropy(collapsed, cor) == 0.0
    assert correct_set_entropy(np.array([0.4, 0.4, 0.2]), cor) == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_estimator_properties(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    v = pass_at_k(n, c, k)
    assert 0.0 <= v <= 1.0
    if c < n:
        assert pass_at_k(n, c + 1, k) >= v - 1e-12
    if k < n:
        assert pass_at_k(n, c, k + 1) >= v - 1e-12


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=8), st.integers(1, 20), st.floats(0.0, 1.0))
def test_variant_between_zero_and_plain(weights, k, q):
    pi = np.array(weights) / sum(weights)
    cor = np.arange(pi.size) % 2 == 0
    v = variant_pass_at_k(pi, cor, k, keep_prob=q)
    assert -1e-12 <= v <= categorical_pass_at_k(pi, cor, k) + 1e-12


def test_bad_input_rejected():
    with pytest.raises(ValueError, match="c must satisfy"):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError, match="k = 5 exceeds n"):
        pass_at_k(3, 1, 5)
    with pytest.raises(ValueError, match="n and c must have the same shape"):
        pass_at_k(np.array([3, 3]), np.array([1]), 1)
    with pytest.raises(TypeError, match="k must be an int"):
        pass_at_k(3, 1, 1.5)
    with pytest.raises(ValueError, match="policy must sum to 1"):
        categorical_pass_at_k([0.5, 0.4], [True, False], 1)
    with pytest.raises(ValueError, match=r"policy must hold probabilities in \[0, 1\]"):
        categorical_pass_at_k([1.5, -0.5], [True, False], 1)
    with pytest.raises(ValueError, match="policy must be a non-empty"):
        categorical_pass_at_k([], [], 1)
    with pytest.raises(ValueError, match="correct has shape"):
        categorical_pass_at_k([0.5, 0.5], [True], 1)
    with pytest.raises(ValueError, match=r"keep_prob must be in \[0, 1\]"):
        variant_pass_at_k([0.5, 0.5], [True, False], 1, keep_prob=1.2)
    with pytest.raises(ValueError, match="policy must be finite"):
        correct_set_entropy([np.nan, 1.0], [True, True])
