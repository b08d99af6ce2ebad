r"""Detect-then-calibrate label purification, the method of [P08] (Sec. 3 as released in the authors' code).

1. Train a classifier f on the noisy labels ỹ.
2. Detect (gradient space): the per-sample gradient of the cross-entropy with respect to the last linear layer W,
   g_i = ∂ CE(W h_i + b, ỹ_i) / ∂W = (p_i − e_{ỹ_i}) h_iᵀ with p_i = softmax(W h_i + b), flattened to C·d numbers
   (closed form: no backward pass per sample); an IsolationForest on {g_i} flags the outliers N as noisy.
3. Retrain on D \ N.
4. Calibrate (feature space): prototypes μ_c = mean of the retrained model's h over D \ N with label c; each i ∈ N
   is relabelled argmax_c cos(h_i, μ_c).
The corrected labels then train the downstream multi-view model (here: :class:`EvolutionaryFusion`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.ensemble import IsolationForest

from icml26.common.validation import int_at_least, positive_int, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.emvc_purify._net import MultiViewClassifier
from icml26.papers.emvc_purify._validate import check_labels, check_views

__all__ = ["PurifyResult", "gradient_outliers", "last_layer_gradients", "prototype_calibrate", "purify"]


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _features_logits_labels(features: ArrayLike, logits: ArrayLike, labels: ArrayLike
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h = real_array(features, "features", ndim=2)
    z = real_array(logits, "logits", ndim=2)
    if z.shape[0] != h.shape[0]:
        raise ValueError(f"logits must have one row per sample of features ({h.shape[0]}), got {z.shape[0]}")
    if z.shape[1] < 2:
        raise ValueError(f"logits must have >= 2 columns (classes), got {z.shape[1]}")
    y = check_labels(labels, n=h.shape[0], n_classes=z.shape[1])
    return h, z, y


def last_layer_gradients(features: ArrayLike, logits: ArrayLike, labels: ArrayLike) -> np.ndarray:
    """Per-sample gradients of the cross-entropy w.r.t. the last linear layer's weight, in closed form ([P08], step 2).

    For logits z_i = W h_i + b (W of shape (C, d)): g_i = (softmax(z_i) − e_{y_i}) h_iᵀ, flattened row-major, i.e.
    in the layout of ``torch.nn.Linear(d, C).weight.grad.flatten()``. The bias gradient (p_i − e_{y_i}) is left out,
    as in the authors' code (which takes the weight's gradient only).

    Args:
        features: (n, d) inputs h_i of the last linear layer.
        logits: (n, C) outputs of that layer.
        labels: (n,) the (possibly noisy) labels ỹ_i.

    Returns:
        (n, C·d) float64.
    """
    h, z, y = _features_logits_labels(features, logits, labels)
    r = _softmax(z)
    r[np.arange(y.shape[0]), y] -= 1.0
    return (r[:, :, None] * h[:, None, :]).reshape(h.shape[0], -1)


def gradient_outliers(features: ArrayLike, logits: ArrayLike, labels: ArrayLike, *, contamination: float,
                      random_state: int, n_estimators: int = 100) -> np.ndarray:
    """The samples whose last-layer gradient is an outlier: [P08]'s detection step (gradient-space perception).

    Runs scikit-learn's ``IsolationForest(n_estimators, contamination, random_state)`` on
    :func:`last_layer_gradients` and returns the samples it predicts as outliers (about ``contamination · n``).
    The authors' code uses 100 trees and ``contamination = 0.05``; it projects CIFAR's 5,120-dimensional gradients
    to 2,048 first, which at our sizes (C·d <= 640) is not needed.

    Args:
        features: (n, d) last-layer inputs.
        logits: (n, C) last-layer outputs.
        labels: (n,) noisy labels.
        contamination: expected fraction of noisy samples, in (0, 0.5] (IsolationForest's range).
        random_state: the forest's seed (an int >= 0).
        n_estimators: number of trees.

    Returns:
        Sorted int64 indices of the detected samples.
    """
    c = real(contamination, "contamination", lo=0.0, hi=0.5, lo_open=True)
    rs = check_seed(random_state, "random_state")
    trees = positive_int(n_estimators, "n_estimators")
    g = last_layer_gradients(features, logits, labels)
    forest = IsolationForest(n_estimators=trees, contamination=c, random_state=rs)  # type: ignore[arg-type]
    forest.fit(g)
    return np.flatnonzero(forest.predict(g) == -1).astype(np.int64)


def _indices(detected: ArrayLike, n: int) -> np.ndarray:
    a = np.asarray(detected)
    if a.dtype.kind == "b":
        raise TypeError("detected must hold sample indices, got dtype bool (use np.flatnonzero(mask))")
    d = real_array(a, "detected", ndim=1, allow_empty=True)
    if not np.all(d == np.round(d)) or (d.size and (d.min() < 0 or d.max() >= n)):
        raise ValueError(f"detected must hold whole sample indices in [0, {n})")
    d = d.astype(np.int64)
    if np.unique(d).size != d.size:
        raise ValueError("detected must not repeat an index")
    return d


def prototype_calibrate(features: ArrayLike, labels: ArrayLike, detected: ArrayLike, *,
                        n_classes: int | None = None) -> np.ndarray:
    """Relabel the detected samples by their nearest class prototype in cosine similarity ([P08], step 4).

    μ_c is the mean feature of the samples *not* in ``detected`` with label c; each detected sample i gets
    argmax_c cos(h_i, μ_c) over the classes that have a prototype. The other labels are returned unchanged.

    Args:
        features: (n, d) features h_i (in [P08], of the model retrained on the purified set).
        labels: (n,) noisy labels.
        detected: int indices of the samples flagged as noisy (may be empty).
        n_classes: number of classes (default max(labels) + 1).

    Returns:
        (n,) int64 corrected labels.
    """
    h = real_array(features, "features", ndim=2)
    y = check_labels(labels, n=h.shape[0])
    c = int(y.max()) + 1 if n_classes is None else int_at_least(n_classes, "n_classes", 2)
    if y.max() >= c:
        raise ValueError(f"labels must be < n_classes = {c}, got max {y.max()}")
    det = _indices(detected, h.shape[0])
    out = y.copy()
    if det.size == 0:
        return out
    keep = np.ones(h.shape[0], dtype=bool)
    keep[det] = False
    if not keep.any():
        raise ValueError("detected covers every sample: no purified sample is left to build prototypes from")
    present = np.unique(y[keep])
    mu = np.stack([h[keep & (y == k)].mean(axis=0) for k in present])
    mu /= np.maximum(np.linalg.norm(mu, axis=1, keepdims=True), 1e-12)
    hd = h[det] / np.maximum(np.linalg.norm(h[det], axis=1, keepdims=True), 1e-12)
    out[det] = present[np.argmax(hd @ mu.T, axis=1)]
    return out


@dataclass(frozen=True)
class PurifyResult:
    """What :func:`purify` ([P08]'s detect-then-calibrate) returns.

    Attributes:
        labels: (n,) corrected labels (the input labels outside ``detected``).
        noisy_labels: (n,) the labels given to :func:`purify`.
        detected: sorted indices of the samples detected as noisy.
        first_model: the classifier trained on the noisy labels (step 1).
        purified_model: the classifier retrained on the samples not detected (step 3).
    """

    labels: np.ndarray
    noisy_labels: np.ndarray
    detected: np.ndarray
    first_model: Any
    purified_model: Any

    @property
    def changed(self) -> np.ndarray:
        """Indices whose label was changed by the calibration (a subset of ``detected``)."""
        return self.detected[self.labels[self.detected] != self.noisy_labels[self.detected]]


def purify(views: Sequence[ArrayLike], labels: ArrayLike, *, contamination: float, seed: int, hidden: int = 64,
           epochs: int = 150, lr: float = 1e-2, weight_decay: float = 1e-4, n_estimators: int = 100,
           n_classes: int | None = None) -> PurifyResult:
    """Detect-then-calibrate purification of noisy labels on multi-view data ([P08], steps 1-4 of the module doc).

    Steps 1 and 3 train a :class:`MultiViewClassifier` (``hidden``, ``epochs``, ``lr``, ``weight_decay``; seeded by
    ``seed`` and ``seed + 1``); step 2 is :func:`gradient_outliers` (``contamination``, ``n_estimators``,
    ``random_state = seed``); step 4 is :func:`prototype_calibrate` on the retrained model's features.

    Args:
        views: V arrays of shape (n, d_v): the views of the same n samples.
        labels: (n,) noisy labels.
        contamination: the fraction to flag, in (0, 0.5] (the authors' default is 0.05).
        seed: an int >= 0.
        hidden: the classifier's width.
        epochs: its full-batch Adam steps.
        lr: its learning rate.
        weight_decay: its L2 penalty.
        n_estimators: the IsolationForest's trees.
        n_classes: number of classes (default max(labels) + 1).

    Returns:
        A :class:`PurifyResult`.
    """
    vs = check_views(views)
    y = check_labels(labels, n=vs[0].shape[0])
    seed = check_seed(seed)
    real(contamination, "contamination", lo=0.0, hi=0.5, lo_open=True)
    kw = {"hidden": hidden, "epochs": epochs, "lr": lr, "weight_decay": weight_decay}
    first = MultiViewClassifier(**kw, seed=seed).fit(vs, y, n_classes=n_classes)
    det = gradient_outliers(first.features(vs), first.logits(vs), y, contamination=contamination,
                            random_state=seed, n_estimators=n_estimators)
    keep = np.setdiff1d(np.arange(y.shape[0]), det)
    if keep.size == 0:
        raise ValueError("contamination flagged every sample: nothing left to retrain on")
    second = MultiViewClassifier(**kw, seed=seed + 1).fit([v[keep] for v in vs], y[keep], n_classes=first.n_classes_)
    corrected = prototype_calibrate(second.features(vs), y, det, n_classes=first.n_classes_)
    return PurifyResult(labels=corrected, noisy_labels=y, detected=det, first_model=first, purified_model=second)
