"""Detection and calibration against their oracles: autograd for the closed-form gradients, scikit-learn's
IsolationForest called directly, hand-computed prototypes, and a planted two-view problem."""

import numpy as np
import pytest
import torch
from sklearn.ensemble import IsolationForest

from icml26.papers.emvc_purify import (
    MultiViewClassifier,
    gradient_outliers,
    last_layer_gradients,
    prototype_calibrate,
    purify,
    symmetric_noise,
)


def _autograd_grads(h: np.ndarray, W: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-sample ∂CE/∂W by one backward pass per sample (the slow reference)."""
    out = []
    for i in range(h.shape[0]):
        w = torch.tensor(W, requires_grad=True)
        z = torch.tensor(h[i : i + 1]) @ w.T + torch.tensor(b)
        torch.nn.functional.cross_entropy(z, torch.tensor(y[i : i + 1])).backward()
        out.append(w.grad.numpy().ravel())
    return np.stack(out)


@pytest.mark.parametrize(("n", "d", "c"), [(1, 1, 2), (7, 5, 3), (20, 16, 10)])
def test_closed_form_gradients_match_autograd(n: int, d: int, c: int) -> None:
    g = np.random.default_rng(n + d + c)
    h, W, b = g.normal(size=(n, d)), g.normal(size=(c, d)), g.normal(size=c)
    y = g.integers(0, c, size=n)
    z = h @ W.T + b
    np.testing.assert_allclose(last_layer_gradients(h, z, y), _autograd_grads(h, W, b, y), rtol=0, atol=1e-12)


def test_gradients_of_the_trained_classifier_head_match_autograd() -> None:
    g = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 8)
    views = [g.normal(size=(24, 4)) + y[:, None], g.normal(size=(24, 2))]
    clf = MultiViewClassifier(hidden=6, epochs=20, seed=0).fit(views, y)
    h, z = clf.features(views), clf.logits(views)
    head = clf.net_.head
    ref = _autograd_grads(h, head.weight.detach().double().numpy(), head.bias.detach().double().numpy(), y)
    np.testing.assert_allclose(last_layer_gradients(h, z, y), ref, rtol=0, atol=1e-5)  # float32 network


def test_gradient_is_zero_for_a_confident_right_label_and_large_for_a_confident_wrong_one() -> None:
    h = np.array([[1.0, 2.0], [1.0, 2.0]])
    z = np.array([[50.0, 0.0], [50.0, 0.0]])
    g = last_layer_gradients(h, z, [0, 1])
    np.testing.assert_allclose(g[0], 0.0, atol=1e-15)
    np.testing.assert_allclose(g[1], [1.0, 2.0, -1.0, -2.0], atol=1e-15)  # (p − e_1) ⊗ h = (1, −1) ⊗ (1, 2)


def test_isolation_forest_is_deterministic_per_random_state_and_matches_sklearn() -> None:
    g = np.random.default_rng(1)
    h, z = g.normal(size=(200, 6)), g.normal(size=(200, 4))
    y = g.integers(0, 4, size=200)
    a = gradient_outliers(h, z, y, contamination=0.1, random_state=3)
    b = gradient_outliers(h, z, y, contamination=0.1, random_state=3)
    np.testing.assert_array_equal(a, b)
    grads = last_layer_gradients(h, z, y)
    ref = np.flatnonzero(IsolationForest(n_estimators=100, contamination=0.1, random_state=3).fit(grads).predict(grads)
                         == -1)
    np.testing.assert_array_equal(a, ref)
    assert abs(a.size - 20) <= 1 and np.all(np.diff(a) > 0)
    others = {tuple(gradient_outliers(h, z, y, contamination=0.1, random_state=s)) for s in range(4, 8)}
    assert len(others | {tuple(a)}) > 1  # the forest's seed matters


def test_prototype_calibration_by_hand() -> None:
    # class 0 at (1, 0), class 1 at (10, 10): h = (2, 1) is nearer μ0 in Euclid but nearer μ1 in cosine
    h = np.array([[1.0, 0.0], [1.0, 0.0], [10.0, 10.0], [10.0, 10.0], [2.0, 1.0], [0.0, 3.0], [1.0, 0.1]])
    y = np.array([0, 0, 1, 1, 0, 0, 2])
    out = prototype_calibrate(h, y, [4, 5, 6], n_classes=3)
    np.testing.assert_array_equal(out, [0, 0, 1, 1, 1, 1, 0])  # class 2 has no purified sample: never assigned
    np.testing.assert_array_equal(prototype_calibrate(h, y, np.array([], dtype=int)), y)


def _planted(n: int = 300, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    g = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3)
    centers = g.normal(size=(3, 6)) * 2.5
    return [centers[y] + g.normal(size=(n, 6)), g.normal(size=(n, 3)) + 1.5 * y[:, None]], y


def test_purify_finds_and_corrects_planted_noise() -> None:
    views, y = _planted()
    noisy = symmetric_noise(y, rate=0.2, n_classes=3, seed=1)
    res = purify(views, noisy, contamination=0.2, seed=0, epochs=80)
    truly = np.flatnonzero(noisy != y)
    precision = np.isin(res.detected, truly).mean()
    assert precision > 0.2 + 0.3  # far above the base rate of a random detector
    hit = res.detected[np.isin(res.detected, truly)]
    assert np.mean(res.labels[hit] == y[hit]) > 0.5
    assert np.mean(res.labels == y) >= np.mean(noisy == y) + 0.05
    np.testing.assert_array_equal(res.labels[~np.isin(np.arange(300), res.detected)],
                                  noisy[~np.isin(np.arange(300), res.detected)])
    assert set(res.changed) <= set(res.detected)
    again = purify(views, noisy, contamination=0.2, seed=0, epochs=80)
    np.testing.assert_array_equal(res.labels, again.labels)
    np.testing.assert_array_equal(res.detected, again.detected)


def test_purify_leaves_the_global_torch_rng_alone() -> None:
    views, y = _planted(60)
    state = torch.random.get_rng_state()
    purify(views, y, contamination=0.05, seed=0, epochs=5)
    assert torch.equal(state, torch.random.get_rng_state())
