"""Boundary noise flips exactly the lowest-margin samples to their runner-up class; symmetric noise flips exactly
round(rate · n) samples to another class."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from icml26.papers.emvc_purify import boundary_noise, multiview_breast_cancer, multiview_digits, symmetric_noise


def test_boundary_noise_by_hand() -> None:
    scores = np.array([[3.0, 1.0, 0.0],   # y=0: margin 2, runner-up 1
                       [0.0, 0.5, 1.0],   # y=1: margin −0.5, runner-up 2
                       [2.0, 0.0, 1.9],   # y=2: margin −0.1, runner-up 0
                       [0.0, 4.0, 0.0],   # y=1: margin 4 (runner-up 0: the first of the ties)
                       [1.0, 0.0, 0.9]])  # y=0: margin 0.1, runner-up 2
    y = np.array([0, 1, 2, 1, 0])
    np.testing.assert_array_equal(boundary_noise(None, y, rate=0.4, scores=scores), [0, 2, 0, 1, 0])
    np.testing.assert_array_equal(boundary_noise(None, y, rate=0.6, scores=scores), [0, 2, 0, 1, 2])
    np.testing.assert_array_equal(boundary_noise(None, y, rate=0.0, scores=scores), y)
    assert np.all(boundary_noise(None, y, rate=1.0, scores=scores) != y)


@pytest.mark.parametrize("data", [multiview_breast_cancer, multiview_digits])
def test_boundary_noise_flips_the_lowest_margins_of_an_independent_reference(data) -> None:
    d = data()
    idx = np.arange(0, d.labels.size, 3)
    views, y = [v[idx] for v in d.views], d.labels[idx]
    noisy = boundary_noise(views, y, rate=0.2, scores=None)
    # the oracle: margins recomputed here with a logistic regression and a plain loop
    x = StandardScaler().fit_transform(np.concatenate(views, axis=1))
    lp = LogisticRegression(C=1.0, max_iter=5000).fit(x, y).predict_log_proba(x)
    margin = np.empty(y.size)
    runner = np.empty(y.size, dtype=int)
    for i in range(y.size):
        other = [(lp[i, j], -j) for j in range(lp.shape[1]) if j != y[i]]
        best = max(other)
        runner[i], margin[i] = -best[1], lp[i, y[i]] - best[0]
    flipped = np.flatnonzero(noisy != y)
    assert flipped.size == round(0.2 * y.size)
    assert margin[flipped].max() <= np.delete(margin, flipped).min() + 1e-9
    np.testing.assert_array_equal(noisy[flipped], runner[flipped])


def test_symmetric_noise_flips_exactly_k_to_another_class() -> None:
    y = np.repeat(np.arange(4), 50)
    a = symmetric_noise(y, rate=0.3, n_classes=4, seed=5)
    assert np.sum(a != y) == 60
    np.testing.assert_array_equal(a, symmetric_noise(y, rate=0.3, n_classes=4, seed=5))
    assert not np.array_equal(a, symmetric_noise(y, rate=0.3, n_classes=4, seed=6))
    g = np.random.default_rng(0)
    np.testing.assert_array_equal(symmetric_noise(y, rate=0.3, n_classes=4, seed=np.random.default_rng(0)),
                                  symmetric_noise(y, rate=0.3, n_classes=4, seed=g))
    assert set(np.unique(symmetric_noise(y, rate=1.0, n_classes=4, seed=0) - y) % 4) <= {1, 2, 3}


def test_views_have_the_advertised_shapes() -> None:
    d = multiview_digits()
    assert [v.shape for v in d.views] == [(1797, 64), (1797, 16), (1797, 16), (1797, 32)] and d.n_classes == 10
    np.testing.assert_allclose(d.views[2][:, :8].sum(axis=1), d.views[0].sum(axis=1))  # row sums add to the total
    b = multiview_breast_cancer()
    assert [v.shape for v in b.views] == [(569, 10)] * 3 and b.n_classes == 2
