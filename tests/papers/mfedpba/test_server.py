"""The [P09] server: weights that sum to one, entropy weighting by hand, count-weighted prototypes."""

import math

import numpy as np
import pytest

from icml26.papers.mfedpba import Server, entropy_weights


def _uploads(k=4, c=5, d=3, seed=0):
    g = np.random.default_rng(seed)
    counts = g.integers(0, 6, size=(k, c)).astype(float)
    counts[:, -1] = 0  # a class nobody holds
    counts[0, 0] = 0
    return g.standard_normal((k, c, d)), 3 * g.standard_normal((k, c, c)), counts


@pytest.mark.parametrize("weighting", ["entropy", "uniform", "count"])
def test_weights_sum_to_one_over_the_holders_of_each_class(weighting) -> None:
    _, lp, n = _uploads()
    w = entropy_weights(lp, n, weighting=weighting)
    held = n.sum(0) > 0
    np.testing.assert_allclose(w.sum(0)[held], 1.0, atol=1e-12)
    assert np.all(w[n == 0] == 0.0) and np.all(w[:, ~held] == 0.0) and np.all(w >= 0)


def test_entropy_weights_by_hand() -> None:
    lp = np.zeros((2, 2, 2))
    lp[0, 0] = [4.0, 0.0]  # confident about class 0
    lp[1, 0] = [1.0, 0.0]  # less confident
    n = np.array([[3.0, 0.0], [3.0, 2.0]])

    def h(v):
        p = np.exp(v) / np.exp(v).sum()
        return -(p * np.log(p)).sum()

    w = entropy_weights(lp, n, temperature=0.5)
    e0, e1 = math.exp(-h(lp[0, 0]) / 0.5), math.exp(-h(lp[1, 0]) / 0.5)
    assert w[0, 0] == pytest.approx(e0 / (e0 + e1)) and w[0, 0] > w[1, 0]
    assert w[:, 1].tolist() == [0.0, 1.0]  # only client 1 holds class 1
    hot = entropy_weights(lp, n, temperature=1e6)  # a large temperature flattens the weights to uniform
    np.testing.assert_allclose(hot[:, 0], [0.5, 0.5], atol=1e-6)
    np.testing.assert_allclose(entropy_weights(lp, n, weighting="count")[:, 1], [0.0, 1.0])


def test_aggregate_count_weighted_prototypes_and_weighted_logits() -> None:
    p, lp, n = _uploads()
    out = Server(5).aggregate(p, lp, n)
    w = entropy_weights(lp, n)
    for c in range(5):
        if n[:, c].sum() == 0:
            assert not out.present[c] and np.all(out.protos[c] == 0) and np.all(out.logit_protos[c] == 0)
            continue
        want = sum(n[k, c] * p[k, c] for k in range(4)) / n[:, c].sum()
        np.testing.assert_allclose(out.protos[c], want, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(out.logit_protos[c], sum(w[k, c] * lp[k, c] for k in range(4)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.weights, w)


def test_aggregation_does_not_depend_on_the_order_of_clients() -> None:
    p, lp, n = _uploads(seed=3)
    perm = np.array([2, 0, 3, 1])
    a, b = Server(5).aggregate(p, lp, n), Server(5).aggregate(p[perm], lp[perm], n[perm])
    np.testing.assert_allclose(a.protos, b.protos, atol=1e-6)
    np.testing.assert_allclose(a.logit_protos, b.logit_protos, atol=1e-5)
    np.testing.assert_allclose(a.weights[perm], b.weights)


def test_server_refuses_mismatched_uploads() -> None:
    p, lp, n = _uploads()
    with pytest.raises(ValueError, match="logit_protos"):
        Server(5).aggregate(p, lp[:3], n)  # one client fewer
    with pytest.raises(ValueError, match="counts"):
        Server(5).aggregate(p, lp, n[:, :4])
    with pytest.raises(ValueError, match="n_classes"):
        Server(4).aggregate(p, lp, n)
    with pytest.raises(ValueError, match="counts must hold non-negative integers"):
        Server(5).aggregate(p, lp, n + 0.5)
