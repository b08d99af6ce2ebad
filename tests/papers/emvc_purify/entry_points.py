"""The public entry points of [P08] for the bad-input conformance test (tiny inputs: every call takes milliseconds)."""

import numpy as np

from icml26.papers.emvc_purify import (
    EvolutionaryFusion,
    MultiViewClassifier,
    boundary_noise,
    confident_learning_filter,
    gradient_outliers,
    last_layer_gradients,
    prototype_calibrate,
    purify,
    small_loss_filter,
    symmetric_noise,
    train_fusion,
)
from support.badinput import Entry

_g = np.random.default_rng(0)
_y = np.repeat([0, 1, 2], 10)
_views = [_g.normal(size=(30, 3)) + _y[:, None], _g.normal(size=(30, 3)) - _y[:, None]]  # equal widths: an array too
_h = _g.normal(size=(30, 4))
_z = _g.normal(size=(30, 3))
_fast = {"hidden": 4, "epochs": 2}


def fit_search(train_views, train_labels, val_views, val_labels, *, population, generations, crossover, mutation,
               seed):
    return EvolutionaryFusion(population=population, generations=generations, crossover=crossover,
                              mutation=mutation, width=4, epochs=2, seed=seed).fit(
        train_views, train_labels, val_views, val_labels)


def fit_classifier(views, labels, *, hidden, epochs, lr, seed):
    return MultiViewClassifier(hidden=hidden, epochs=epochs, lr=lr, seed=seed).fit(views, labels)


ENTRY_POINTS = [
    Entry("last_layer_gradients", last_layer_gradients, valid={"features": _h, "logits": _z, "labels": _y},
          kinds={"features": "array", "logits": "array", "labels": "array"}),
    Entry("gradient_outliers", gradient_outliers,
          valid={"features": _h, "logits": _z, "labels": _y, "contamination": 0.1, "random_state": 0,
                 "n_estimators": 10},
          kinds={"features": "array", "logits": "array", "labels": "array", "contamination": "posreal",
                 "random_state": "seed", "n_estimators": "int"}),
    Entry("prototype_calibrate", prototype_calibrate,
          valid={"features": _h, "labels": _y, "detected": np.array([0, 11, 25])},
          kinds={"features": "array", "labels": "array", "detected": "array"},
          skip={"detected:empty": "an empty detected set is valid: nothing to relabel"}),
    Entry("purify", purify, valid={"views": _views, "labels": _y, "contamination": 0.1, "seed": 0, **_fast},
          kinds={"views": "array", "labels": "array", "contamination": "posreal", "seed": "seed", "hidden": "int",
                 "epochs": "int"}),
    Entry("boundary_noise", boundary_noise, valid={"views": _views, "labels": _y, "rate": 0.2},
          kinds={"views": "array", "labels": "array", "rate": "nonneg"}),
    Entry("symmetric_noise", symmetric_noise, valid={"labels": _y, "rate": 0.2, "n_classes": 3, "seed": 0},
          kinds={"labels": "array", "rate": "nonneg", "n_classes": "int", "seed": "seed"}),
    Entry("small_loss_filter", small_loss_filter, valid={"logits": _z, "labels": _y, "budget": 3},
          kinds={"logits": "array", "labels": "array", "budget": "int"}),
    Entry("confident_learning_filter", confident_learning_filter,
          valid={"views": _views, "labels": _y, "budget": 3, "seed": 0, "folds": 2, **_fast},
          kinds={"views": "array", "labels": "array", "budget": "int", "seed": "seed", "folds": "int"}),
    Entry("train_fusion", train_fusion,
          valid={"tree": ("cat", 0, 1), "views": _views, "labels": _y, "width": 4, "epochs": 2, "seed": 0},
          kinds={"views": "array", "labels": "array", "width": "int", "epochs": "int", "seed": "seed"}),
    Entry("EvolutionaryFusion.fit", fit_search,
          valid={"train_views": _views, "train_labels": _y, "val_views": _views, "val_labels": _y, "population": 2,
                 "generations": 1, "crossover": 0.9, "mutation": 0.2, "seed": 0},
          kinds={"train_views": "array", "train_labels": "array", "val_views": "array", "val_labels": "array",
                 "population": "int", "generations": "int", "crossover": "real", "mutation": "real", "seed": "seed"}),
    Entry("MultiViewClassifier.fit", fit_classifier,
          valid={"views": _views, "labels": _y, "hidden": 4, "epochs": 2, "lr": 0.01, "seed": 0},
          kinds={"views": "array", "labels": "array", "hidden": "int", "epochs": "int", "lr": "posreal",
                 "seed": "seed"}),
]
