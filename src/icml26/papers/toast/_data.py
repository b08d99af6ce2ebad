"""The image set of the [P35] experiments: scikit-learn's bundled handwritten digits (1,797 images, 8×8, 10 classes).

Pixels are scaled to [0, 1] and standardised with the training split's mean and standard deviation; the split is
stratified and seeded. Nothing is downloaded: the set ships inside scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import int_at_least, positive_int
from icml26.common.validation import seed as check_seed

__all__ = ["ImageSplit", "digits_split"]


@dataclass(frozen=True)
class ImageSplit:
    """Train and test images (N, 1, 8, 8) float32 with int64 labels."""

    x_train: Tensor
    y_train: Tensor
    x_test: Tensor
    y_test: Tensor


def digits_split(*, test_size: int = 360, train_limit: int = 0, seed: int = 0) -> ImageSplit:
    """scikit-learn's digits ([P35] experiments), split stratified into ``test_size`` test images and the rest.

    ``train_limit`` > 0 keeps only that many training images (a stratified subset, for quick runs).
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    s = check_seed(seed)
    n_test = positive_int(test_size, "test_size", hi=1000)
    limit = int_at_least(train_limit, "train_limit", 0)
    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    parts = train_test_split(x, y, test_size=n_test, stratify=y, random_state=s)
    xtr, xte, ytr, yte = (np.asarray(a) for a in parts)
    if 0 < limit < len(ytr):
        sub = train_test_split(xtr, ytr, train_size=limit, stratify=ytr, random_state=s)
        xtr, ytr = np.asarray(sub[0]), np.asarray(sub[2])
    mu, sd = float(xtr.mean()), float(xtr.std())
    return ImageSplit(torch.from_numpy((xtr - mu) / sd), torch.from_numpy(ytr.astype(np.int64)),
                      torch.from_numpy((xte - mu) / sd), torch.from_numpy(yte.astype(np.int64)))
