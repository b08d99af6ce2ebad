"""Label noise for [P08]'s experiments: boundary noise (the paper's premise: annotators mislabel samples near the
decision boundary) and the symmetric-noise control.

- Boundary noise: a reference classifier scores every sample; the margin of sample i is
  m_i = s_i[y_i] − max_{j≠y_i} s_i[j]; the ``round(rate · n)`` samples of lowest margin (ties by index) get their
  runner-up class argmax_{j≠y_i} s_i[j]. The reference is scikit-learn's multinomial logistic regression on the
  standardised concatenated views (log-probabilities as scores) unless the caller gives ``scores``.
- Symmetric noise: ``round(rate · n)`` samples drawn uniformly without replacement, each given a uniformly drawn
  other class.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from icml26.common.validation import int_at_least, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.emvc_purify._validate import check_labels, check_views

__all__ = ["boundary_noise", "margins", "reference_scores", "symmetric_noise"]


def reference_scores(views: Sequence[np.ndarray], labels: np.ndarray) -> np.ndarray:
    """(n, C) log-probabilities of a logistic regression fit on the standardised concatenated views (deterministic)."""
    x = StandardScaler().fit_transform(np.concatenate(list(views), axis=1))
    clf = LogisticRegression(C=1.0, max_iter=5000).fit(x, labels)
    s = np.full((x.shape[0], int(labels.max()) + 1), -np.inf)
    s[:, clf.classes_] = clf.predict_log_proba(x)
    return s


def margins(scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The margin s[y] − max_{j≠y} s[j] of each sample and its runner-up class argmax_{j≠y} s[j]."""
    other = scores.copy()
    other[np.arange(labels.shape[0]), labels] = -np.inf
    runner = other.argmax(axis=1)
    return scores[np.arange(labels.shape[0]), labels] - other[np.arange(labels.shape[0]), runner], runner


def boundary_noise(views: Sequence[ArrayLike] | None, labels: ArrayLike, *, rate: float,
                   scores: ArrayLike | None = None) -> np.ndarray:
    """Flip the ``round(rate · n)`` lowest-margin samples to their runner-up class (the noise model of [P08], §1).

    [P08] attributes label noise to annotators mislabelling samples near their decision boundary; this reconstructs
    that premise with a reference classifier's margins (see the module docstring).

    Args:
        views: the V clean views (arrays of shape (n, d_v)); used only when ``scores`` is None.
        labels: (n,) clean labels.
        rate: fraction of samples to flip, in [0, 1].
        scores: optional (n, C) reference scores (higher = more likely); by default a logistic regression's
            log-probabilities on the views.

    Returns:
        (n,) int64 noisy labels.
    """
    y = check_labels(labels)
    rate = real(rate, "rate", lo=0.0, hi=1.0)
    if scores is None:
        if views is None:
            raise ValueError("views must be given when scores is None")
        vs = check_views(views, n=y.shape[0])
        s = reference_scores(vs, y)
    else:
        s = real_array(scores, "scores", ndim=2, finite=False)
        if s.shape[0] != y.shape[0] or s.shape[1] < 2 or s.shape[1] <= y.max():
            raise ValueError(f"scores must have shape ({y.shape[0]}, C) with C >= 2 and C > max(labels), got {s.shape}")
        if np.isnan(s).any():
            raise ValueError("scores must not hold NaN")
    m, runner = margins(s, y)
    k = int(round(rate * y.shape[0]))
    flip = np.argsort(m, kind="stable")[:k]
    noisy = y.copy()
    noisy[flip] = runner[flip]
    return noisy


def symmetric_noise(labels: ArrayLike, *, rate: float, n_classes: int, seed: int | np.random.Generator) -> np.ndarray:
    """Give ``round(rate · n)`` uniformly drawn samples a uniformly drawn other class (the control of [P08]'s noise).

    Args:
        labels: (n,) clean labels in [0, n_classes).
        rate: fraction of samples to flip, in [0, 1].
        n_classes: number of classes (>= 2).
        seed: int seed or numpy Generator.

    Returns:
        (n,) int64 noisy labels.
    """
    n_classes = int_at_least(n_classes, "n_classes", 2)
    y = check_labels(labels, n_classes=n_classes)
    rate = real(rate, "rate", lo=0.0, hi=1.0)
    g = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))
    k = int(round(rate * y.shape[0]))
    flip = g.choice(y.shape[0], size=k, replace=False)
    shift = g.integers(1, n_classes, size=k)
    noisy = y.copy()
    noisy[flip] = (y[flip] + shift) % n_classes
    return noisy
