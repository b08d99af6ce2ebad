"""Bad input raises a ValueError/TypeError naming the argument: mismatched view counts, NaN, wrong shapes."""

import numpy as np
import pytest

from icml26.papers.emvc_purify import (
    EvolutionaryFusion,
    boundary_noise,
    confident_learning_filter,
    gradient_outliers,
    last_layer_gradients,
    prototype_calibrate,
    purify,
    small_loss_filter,
    train_fusion,
)

G = np.random.default_rng(0)
Y = np.repeat([0, 1, 2], 10)
V = [G.normal(size=(30, 3)), G.normal(size=(30, 5))]
H, Z = G.normal(size=(30, 4)), G.normal(size=(30, 3))


@pytest.mark.parametrize(("views", "match"), [
    ([V[0], V[1][:-1]], "same number of samples"),
    ([], "at least one view"),
    ([V[0], np.where(np.eye(30, 5) > 0, np.nan, V[1])], r"views\[1\] must be finite"),
    ([V[0], V[1][:, 0]], r"views\[1\] must be 2-dimensional"),
    ("views", "list of 2-D arrays"),
    (V[0], "must be 2-dimensional"),  # one 2-D array is read as a stack of 1-D views
])
def test_purify_refuses_bad_views(views, match) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        purify(views, Y, contamination=0.1, seed=0, epochs=2)


@pytest.mark.parametrize(("labels", "match"), [
    (Y[:-1], "labels must have length 30"),
    (Y.astype(bool), "dtype bool"),
    (Y + 0.5, "whole numbers"),
    (Y - 1, ">= 0"),
    (np.where(np.arange(30) == 3, np.nan, Y), "finite"),
])
def test_purify_refuses_bad_labels(labels, match) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        purify(V, labels, contamination=0.1, seed=0, epochs=2)


def test_detection_and_calibration_refuse_mismatches() -> None:
    with pytest.raises(ValueError, match="logits must have one row per sample"):
        last_layer_gradients(H, Z[:-1], Y)
    with pytest.raises(ValueError, match="labels must be < n_classes = 2"):
        last_layer_gradients(H, Z[:, :2], Y)
    with pytest.raises(ValueError, match="contamination"):
        gradient_outliers(H, Z, Y, contamination=0.6, random_state=0)
    with pytest.raises(TypeError, match="random_state"):
        gradient_outliers(H, Z, Y, contamination=0.1, random_state=None)
    for bad, match in [([40], "detected must hold whole sample indices"), ([1, 1], "repeat"),
                       (np.zeros(30, bool), "dtype bool"), ([0.5], "whole")]:
        with pytest.raises((ValueError, TypeError), match=match):
            prototype_calibrate(H, Y, bad)
    with pytest.raises(ValueError, match="covers every sample"):
        prototype_calibrate(H, Y, np.arange(30))


def test_noise_and_baselines_refuse_mismatches() -> None:
    with pytest.raises(ValueError, match="scores must have shape"):
        boundary_noise(None, Y, rate=0.2, scores=Z[:, :2])
    with pytest.raises(ValueError, match="views must be given"):
        boundary_noise(None, Y, rate=0.2)
    with pytest.raises(ValueError, match="rate"):
        boundary_noise(V, Y, rate=1.5)
    with pytest.raises(ValueError, match="budget"):
        small_loss_filter(Z, Y, budget=31)
    with pytest.raises(ValueError, match="folds = 11"):
        confident_learning_filter(V, Y, budget=3, seed=0, folds=11, epochs=2)


def test_search_refuses_mismatched_views_and_trees() -> None:
    with pytest.raises(ValueError, match="val_views must hold 2 views"):
        EvolutionaryFusion(population=2, generations=0, epochs=1, seed=0).fit(V, Y, V[:1], Y)
    with pytest.raises(ValueError, match="val_labels must have length 30"):
        EvolutionaryFusion(population=2, generations=0, epochs=1, seed=0).fit(V, Y, V, Y[:5])
    with pytest.raises(ValueError, match="population"):
        EvolutionaryFusion(population=1, seed=0).fit(V, Y, V, Y)
    with pytest.raises(TypeError, match="seed"):
        EvolutionaryFusion(population=2, seed=None).fit(V, Y, V, Y)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not fitted"):
        EvolutionaryFusion(seed=0).predict(V)
    with pytest.raises(ValueError, match="leaf 2 is not a view index"):
        train_fusion(("add", 0, 2), V, Y, seed=0)
