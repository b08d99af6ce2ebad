"""Multi-view data sets built from scikit-learn's bundled sets (the stand-ins for [P08]'s multi-view benchmarks).

- ``multiview_digits``: the 1,797 8x8 digits of ``load_digits`` in four views: raw pixels (64), 2x2 average pooling
  (16), row and column sums (16), and gradient-orientation histograms, 8 unsigned bins in each 4x4 quadrant (32).
- ``multiview_breast_cancer``: the 569 tumours of ``load_breast_cancer`` in their three natural views: the mean, the
  standard error and the worst value of ten nucleus measurements (10 each).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split

__all__ = ["MultiViewData", "multiview_breast_cancer", "multiview_digits", "orientation_histograms", "split"]


@dataclass(frozen=True)
class MultiViewData:
    """A multi-view classification set (the setting of [P08]): V views of the same n samples and their labels.

    Attributes:
        name: the data set's name.
        views: V arrays of shape (n, d_v), float64.
        labels: (n,) int64 clean labels in [0, n_classes).
        view_names: one name per view.
        n_classes: the number of classes.
    """

    name: str
    views: tuple[np.ndarray, ...]
    labels: np.ndarray
    view_names: tuple[str, ...]
    n_classes: int

    def take(self, idx: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """The views and labels of the samples ``idx``."""
        return [v[idx] for v in self.views], self.labels[idx]


def orientation_histograms(images: np.ndarray, *, bins: int = 8, cells: int = 2) -> np.ndarray:
    """Magnitude-weighted histograms of unsigned gradient orientation in a ``cells`` x ``cells`` grid of each image.

    A small HOG-style descriptor (no block normalisation) for [P08]'s "gradient-orientation" view of the digits.

    Args:
        images: (n, h, w) grey images.
        bins: orientation bins over [0, π).
        cells: the grid is ``cells`` x ``cells``; h and w must be divisible by it.

    Returns:
        (n, cells * cells * bins) float64.
    """
    n, h, w = images.shape
    gy, gx = np.gradient(images.astype(np.float64), axis=(1, 2))
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), np.pi)
    b = np.minimum((ang / np.pi * bins).astype(int), bins - 1)
    out = np.zeros((n, cells, cells, bins))
    ch, cw = h // cells, w // cells
    for i in range(cells):
        for j in range(cells):
            sl = (slice(None), slice(i * ch, (i + 1) * ch), slice(j * cw, (j + 1) * cw))
            bb, mm = b[sl].reshape(n, -1), mag[sl].reshape(n, -1)
            for k in range(bins):
                out[:, i, j, k] = np.where(bb == k, mm, 0.0).sum(axis=1)
    return out.reshape(n, -1)


def multiview_digits() -> MultiViewData:
    """scikit-learn's digits in four views (raw, pooled, projections, orientation histograms); see the module doc.

    The multi-view digits stand-in for [P08]'s benchmarks (its real data sets are not shipped in a registry).
    """
    d: Any = load_digits()
    img = np.asarray(d.images, dtype=np.float64) / 16.0
    n = img.shape[0]
    raw = img.reshape(n, 64)
    pooled = img.reshape(n, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(n, 16)
    proj = np.concatenate([img.sum(axis=2), img.sum(axis=1)], axis=1)
    hog = orientation_histograms(img)
    return MultiViewData("digits", (raw, pooled, proj, hog), np.asarray(d.target, dtype=np.int64),
                         ("pixels", "pooled", "projections", "orientations"), 10)


def multiview_breast_cancer() -> MultiViewData:
    """scikit-learn's breast-cancer set in its three natural views (mean, standard error, worst); see the module doc.

    The second multi-view stand-in for [P08]'s benchmarks.
    """
    d: Any = load_breast_cancer()
    x = np.asarray(d.data, dtype=np.float64)
    return MultiViewData("breast_cancer", (x[:, :10], x[:, 10:20], x[:, 20:30]), np.asarray(d.target, dtype=np.int64),
                         ("mean", "error", "worst"), 2)


def split(labels: np.ndarray, *, seed: int, fractions: tuple[float, float] = (0.6, 0.2)
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stratified train / validation / test indices (``fractions`` of train and validation, the rest test)."""
    idx = np.arange(labels.shape[0])
    train_val, test = train_test_split(idx, test_size=1.0 - sum(fractions), stratify=labels, random_state=seed)
    rel = fractions[1] / sum(fractions)
    train, val = train_test_split(train_val, test_size=rel, stratify=labels[train_val], random_state=seed)
    return np.sort(train), np.sort(val), np.sort(test)
