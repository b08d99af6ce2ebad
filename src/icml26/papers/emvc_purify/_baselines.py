"""The label-noise baselines [P08]'s purification is compared with, at an equal budget of flagged samples.

- Small-loss filtering: flag the ``budget`` samples with the largest cross-entropy under the model trained on the
  noisy labels (the "small-loss trick" of co-teaching-style methods, used here as a one-shot filter).
- Confident learning (Northcutt et al., 2021), rank-and-prune form: out-of-fold predicted probabilities from a
  K-fold cross-fit of the same classifier; flag the ``budget`` samples of lowest self-confidence p̂(ỹ_i | x_i).
  The budget is fixed by the caller instead of the confident joint's estimate, so every method flags as many.
Both return the flagged indices; the caller drops them (filtering), while [P08] relabels its detected set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.model_selection import StratifiedKFold

from icml26.common.validation import int_at_least, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.emvc_purify._net import MultiViewClassifier
from icml26.papers.emvc_purify._validate import check_labels, check_views

__all__ = ["confident_learning_filter", "out_of_fold_probabilities", "small_loss_filter"]


def _lowest(score: np.ndarray, budget: int) -> np.ndarray:
    return np.sort(np.argsort(score, kind="stable")[:budget]).astype(np.int64)


def small_loss_filter(logits: ArrayLike, labels: ArrayLike, *, budget: int) -> np.ndarray:
    """The ``budget`` samples of largest cross-entropy −log softmax(z_i)[ỹ_i] (a baseline of [P08]).

    Args:
        logits: (n, C) logits of a model trained on the noisy labels.
        labels: (n,) noisy labels.
        budget: how many to flag (0 <= budget <= n).

    Returns:
        Sorted int64 indices.
    """
    z = real_array(logits, "logits", ndim=2)
    y = check_labels(labels, n=z.shape[0], n_classes=z.shape[1])
    k = int_at_least(budget, "budget", 0, hi=z.shape[0])
    zs = z - z.max(axis=1, keepdims=True)
    nll = np.log(np.exp(zs).sum(axis=1)) - zs[np.arange(y.shape[0]), y]
    return _lowest(-nll, k)


def out_of_fold_probabilities(views: Sequence[np.ndarray], labels: np.ndarray, *, n_classes: int, folds: int,
                              seed: int, **fit_kw: Any) -> np.ndarray:
    """(n, C) predicted probabilities of each sample from a classifier that did not see it (stratified K-fold)."""
    probs = np.zeros((labels.shape[0], n_classes))
    split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for k, (tr, te) in enumerate(split.split(views[0], labels)):
        clf = MultiViewClassifier(**fit_kw, seed=seed + k).fit([v[tr] for v in views], labels[tr],
                                                               n_classes=n_classes)
        z = clf.logits([v[te] for v in views])
        e = np.exp(z - z.max(axis=1, keepdims=True))
        probs[te] = e / e.sum(axis=1, keepdims=True)
    return probs


def confident_learning_filter(views: Sequence[ArrayLike], labels: ArrayLike, *, budget: int, seed: int,
                              folds: int = 3, n_classes: int | None = None, hidden: int = 64, epochs: int = 150,
                              lr: float = 1e-2, weight_decay: float = 1e-4) -> np.ndarray:
    """The ``budget`` samples of lowest out-of-fold self-confidence p̂(ỹ_i | x_i) (a baseline of [P08]).

    Args:
        views: V arrays of shape (n, d_v).
        labels: (n,) noisy labels.
        budget: how many to flag (0 <= budget <= n).
        seed: seeds the folds and the classifiers.
        folds: K of the cross-fit (>= 2; every class needs >= K samples).
        n_classes: number of classes (default max(labels) + 1).
        hidden: width of each fold's :class:`MultiViewClassifier`.
        epochs: its full-batch Adam steps.
        lr: its learning rate.
        weight_decay: its L2 penalty.

    Returns:
        Sorted int64 indices.
    """
    vs = check_views(views)
    y = check_labels(labels, n=vs[0].shape[0])
    k = int_at_least(budget, "budget", 0, hi=y.shape[0])
    s = check_seed(seed)
    kf = int_at_least(folds, "folds", 2)
    c = int(y.max()) + 1 if n_classes is None else int_at_least(n_classes, "n_classes", 2)
    if y.max() >= c:
        raise ValueError(f"labels must be < n_classes = {c}, got max {y.max()}")
    if np.bincount(y, minlength=c)[np.unique(y)].min() < kf:
        raise ValueError(f"folds = {kf} needs at least {kf} samples of every class in labels")
    p = out_of_fold_probabilities(vs, y, n_classes=c, folds=kf, seed=s, hidden=hidden, epochs=epochs, lr=lr,
                                  weight_decay=weight_decay)
    return _lowest(p[np.arange(y.shape[0]), y], k)
