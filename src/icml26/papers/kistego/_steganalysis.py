"""Steganalysers for [P22]'s indistinguishability check: can a detector tell stego images from plain samples?

Two work on noise residuals r = x - median3x3(x) (the usual first step of steganalysis, after SRM-style filters):
- :func:`residual_features` + logistic regression (scikit-learn), scored by k-fold cross-validated ROC AUC;
- a small CNN on residuals (two conv layers, global average pooling), trained on one half and scored on the other.
The third knows the public layout (Kerckhoffs: extraction needs no key, so an adversary reads the shares exactly as
the receiver does): :func:`readout_features` (the sorted magnitudes of the layout's soft bits, how confidently
each bit reads) + the same cross-validated logistic regression (:func:`layout_auc`). Guidance that pushes every bit
beyond a margin leaves stego images without bits near their threshold, which unguided samples have.
An AUC of 1/2 is chance. Our reconstruction: the abstract names no steganalyser.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from scipy.ndimage import median_filter
from torch import nn

from icml26.common.validation import int_at_least, positive_int, real_array
from icml26.papers.kistego._adaptive import ProjectionLayout, projection_soft_bits
from icml26.papers.kistego._halftone import PairLayout, soft_bits

__all__ = ["cnn_auc", "layout_auc", "logistic_auc", "readout_features", "residual_features"]


def _pair(covers: np.ndarray, stegos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = real_array(covers, "covers", ndim=3)
    s = real_array(stegos, "stegos", ndim=3)
    if c.shape[1:] != s.shape[1:]:
        raise ValueError(f"covers {c.shape[1:]} and stegos {s.shape[1:]} must share the image shape")
    if min(c.shape[0], s.shape[0]) < 4:
        raise ValueError("covers and stegos need at least 4 images each")
    return np.concatenate([c, s]), np.r_[np.zeros(c.shape[0]), np.ones(s.shape[0])]


def residual_features(images: np.ndarray) -> np.ndarray:
    """Flattened median residuals plus the residuals' 2 x 2-block horizontal-difference statistics ([P22] check).

    Returns (n, H W + 4): the residual image and mean |Δ|, mean Δ², of horizontal differences between adjacent
    2 x 2 blocks, at even and odd block offsets (the statistics a pair-difference embedding would move).
    """
    x = real_array(images, "images", ndim=3)
    r = x - median_filter(x, size=(1, 3, 3), mode="reflect")
    n, h, w = x.shape
    blocks = x[:, : h - h % 2, : w - w % 2].reshape(n, h // 2, 2, w // 2, 2).mean(axis=(2, 4))
    d = np.diff(blocks, axis=2)
    even, odd = d[:, :, 0::2], d[:, :, 1::2]
    stats = np.stack([np.abs(even).mean((1, 2)), (even**2).mean((1, 2)), np.abs(odd).mean((1, 2)),
                      (odd**2).mean((1, 2))], axis=1)
    return np.concatenate([r.reshape(n, -1), stats], axis=1)


def _cv_logistic_auc(features: np.ndarray, y: np.ndarray, folds: int, seed: int) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    k = int_at_least(folds, "folds", 2)
    cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=int_at_least(seed, "seed", 0))
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=2000))
    p = np.asarray(cross_val_predict(clf, features, y, cv=cv, method="predict_proba"))[:, 1]
    return float(roc_auc_score(y, p))


def logistic_auc(covers: np.ndarray, stegos: np.ndarray, *, folds: int = 5, seed: int) -> float:
    """Cross-validated ROC AUC of a standardised logistic regression on :func:`residual_features` ([P22] check)."""
    x, y = _pair(covers, stegos)
    return _cv_logistic_auc(residual_features(x), y, folds, seed)


def readout_features(images: np.ndarray, layout: PairLayout | ProjectionLayout) -> np.ndarray:
    """Sorted magnitudes of the public read-out's soft bits, (n, bits) ([P22] check; module docstring).

    ``layout``: the :class:`PairLayout` (black-minus-white site differences) or the :class:`ProjectionLayout`
    (projections minus thresholds) the stego images were written in; it is public, so the adversary has it.
    """
    x = real_array(images, "images", ndim=3)
    if isinstance(layout, ProjectionLayout):
        soft = projection_soft_bits(x, layout)
    elif isinstance(layout, PairLayout):
        if x.shape[1:] != layout.image_shape:
            raise ValueError(f"images of shape {x.shape[1:]} do not match the layout's {layout.image_shape}")
        soft = soft_bits(x, layout)
    else:
        raise TypeError(f"layout must be a PairLayout or a ProjectionLayout, got {type(layout).__name__}")
    return np.sort(np.abs(soft.reshape(x.shape[0], -1)), axis=1)


def layout_auc(covers: np.ndarray, stegos: np.ndarray, *, layout: PairLayout | ProjectionLayout, folds: int = 5,
               seed: int) -> float:
    """Cross-validated ROC AUC of a logistic regression on :func:`readout_features`: the steganalyser of [P22]'s
    check that knows the public layout (module docstring)."""
    x, y = _pair(covers, stegos)
    return _cv_logistic_auc(readout_features(x, layout), y, folds, seed)


class _ResidualCNN(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(1, width, 3, padding=1)
        self.c2 = nn.Conv2d(width, width, 3, padding=1, stride=2)
        self.head = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.c2(F.relu(self.c1(x))))
        return self.head(h.mean(dim=(2, 3)))[:, 0]


def cnn_auc(covers: np.ndarray, stegos: np.ndarray, *, epochs: int = 30, width: int = 16, seed: int) -> float:
    """Held-out ROC AUC of a small CNN on median residuals, trained on a random half ([P22] check)."""
    from sklearn.metrics import roc_auc_score

    x, y = _pair(covers, stegos)
    s = int_at_least(seed, "seed", 0)
    r = x - median_filter(x, size=(1, 3, 3), mode="reflect")
    rng = np.random.default_rng(s)
    idx = rng.permutation(len(y))
    tr, te = idx[: len(y) // 2], idx[len(y) // 2:]
    if len(set(y[te])) < 2 or len(set(y[tr])) < 2:
        raise ValueError("covers and stegos are too few for a split with both classes")
    r = r / max(float(r[tr].std()), 1e-8)  # the scale from the training half only
    xt = torch.as_tensor(r, dtype=torch.float32).unsqueeze(1)
    yt = torch.as_tensor(y, dtype=torch.float32)
    with torch.random.fork_rng(devices=[]):  # the initial weights from ``seed``, the global generator untouched
        torch.manual_seed(s)
        model = _ResidualCNN(positive_int(width, "width"))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(s)
    for _ in range(positive_int(epochs, "epochs")):
        for b in torch.randperm(len(tr), generator=g).split(32):
            i = torch.as_tensor(tr[b.numpy()])
            loss = F.binary_cross_entropy_with_logits(model(xt[i]), yt[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        score = model(xt[torch.as_tensor(te)]).numpy()
    return float(roc_auc_score(y[te], score))
