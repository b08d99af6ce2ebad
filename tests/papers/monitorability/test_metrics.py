"""g-mean², its bootstrap and the majority-vote formula of [P02] against scikit-learn, brute force and hand values."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import recall_score

from icml26.papers.monitorability import (
    confusion_rates,
    g_mean2,
    g_mean2_bootstrap,
    g_mean2_ci,
    majority_vote_probability,
)


def test_g_mean2_is_tpr_times_tnr_as_sklearn_computes_them() -> None:
    g = np.random.default_rng(0)
    for _ in range(20):
        y = g.integers(0, 2, 50)
        y[:2] = [0, 1]
        m = g.integers(0, 2, 50)
        tpr, tnr = confusion_rates(y, m)
        assert tpr == pytest.approx(recall_score(y, m, pos_label=1))
        assert tnr == pytest.approx(recall_score(y, m, pos_label=0))
        assert g_mean2(y, m) == pytest.approx(tpr * tnr)


def test_planted_confusion_matrix_and_degenerate_monitors() -> None:
    # 10 positives (8 flagged), 20 negatives (18 unflagged): TPR 0.8, TNR 0.9, g-mean² 0.72 whatever the imbalance
    y = np.r_[np.ones(10), np.zeros(20)].astype(int)
    m = np.r_[np.ones(8), np.zeros(2), np.zeros(18), np.ones(2)].astype(int)
    assert g_mean2(y, m) == pytest.approx(0.72)
    assert g_mean2(y, np.ones(30, dtype=int)) == 0.0  # flags everything: TNR 0
    assert g_mean2(y, np.zeros(30, dtype=int)) == 0.0  # flags nothing: TPR 0
    with pytest.raises(ValueError, match="both classes"):
        g_mean2(np.ones(4, dtype=int), np.ones(4, dtype=int))
    with pytest.raises(ValueError, match="only 0 and 1"):
        g_mean2(np.array([0, 1, 2]), np.array([0, 1, 1]))


def test_bootstrap_ci_covers_and_pairs_monitors() -> None:
    g = np.random.default_rng(1)
    y = (g.random(4000) < 0.3).astype(int)
    m = np.where(y == 1, g.random(4000) < 0.8, g.random(4000) < 0.1).astype(int)
    est = g_mean2_ci(y, m, n_boot=400, seed=0)
    assert est.lo <= 0.72 <= est.hi and est.hi - est.lo < 0.06
    assert est.n == 4000 and est.n_pos == y.sum()
    pts, reps = g_mean2_bootstrap(y, [m, m], n_boot=100, seed=0)
    assert reps.shape == (100, 2) and np.array_equal(reps[:, 0], reps[:, 1])  # same resample for every monitor
    assert pts[0] == pytest.approx(g_mean2(y, m))
    grouped = g_mean2_ci(y, m, groups=np.arange(4000) // 40, n_boot=200, seed=0)
    assert grouped.n == 100 and grouped.g_mean2 == pytest.approx(est.g_mean2)


def test_majority_vote_probability_against_enumeration() -> None:
    for p, k in ((0.6, 1), (0.6, 3), (0.3, 5), (0.55, 9), (0.5, 4)):
        brute = sum(np.prod([p if b else 1 - p for b in bits]) for bits in itertools.product([0, 1], repeat=k)
                    if sum(bits) > k / 2)
        assert majority_vote_probability(p, k) == pytest.approx(brute)
    assert majority_vote_probability(0.7, 51) > majority_vote_probability(0.7, 5) > 0.7
    assert majority_vote_probability(0.3, 51) < 0.3
