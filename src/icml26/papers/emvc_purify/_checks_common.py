"""What the [P08] claims share: the data sets by name, a noisy labelled pool per (noise kind, rate, seed), the
purification with a budget's settings, detection scores, and the fixed downstream classifier.

A seed fixes the stratified 60/20/20 split, the symmetric noise, every initialisation and the IsolationForest. The
pool (train + validation) carries the noise; the test split always keeps its clean labels. Boundary noise flips the
lowest-margin pool samples under a logistic regression fit once on the whole clean data set (the "annotator").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.papers.emvc_purify._net import MultiViewClassifier
from icml26.papers.emvc_purify._noise import boundary_noise, reference_scores, symmetric_noise
from icml26.papers.emvc_purify._purify import purify
from icml26.papers.emvc_purify._views import MultiViewData, multiview_breast_cancer, multiview_digits, split

DATASETS = {"digits": multiview_digits, "breast_cancer": multiview_breast_cancer}


def load(name: str) -> MultiViewData:
    """A data set by name."""
    return DATASETS[name]()


def annotator_scores(name: str) -> np.ndarray:
    """Reference scores of the whole clean data set (the boundary-noise annotator)."""
    d = load(name)
    return reference_scores(list(d.views), d.labels)


@dataclass
class Pool:
    """One seed's split of a data set with noisy labels on the pool (train + validation, in that order)."""

    data: MultiViewData
    train: np.ndarray
    val: np.ndarray
    test: np.ndarray
    clean: np.ndarray  # clean labels of the pool
    noisy: np.ndarray  # noisy labels of the pool

    @property
    def pool(self) -> np.ndarray:
        return np.concatenate([self.train, self.val])

    @property
    def noisy_set(self) -> np.ndarray:
        return np.flatnonzero(self.noisy != self.clean)

    def views(self, idx: np.ndarray) -> list[np.ndarray]:
        return [v[idx] for v in self.data.views]

    def parts(self, pool_labels: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, list[np.ndarray], np.ndarray]:
        """Train views and labels, validation views and labels, with ``pool_labels`` given for the pool."""
        nt = self.train.shape[0]
        return self.views(self.train), pool_labels[:nt], self.views(self.val), pool_labels[nt:]


def make_pool(name: str, kind: str, rate: float, seed: int, scores: np.ndarray | None) -> Pool:
    """The split of ``seed`` with ``kind`` noise (``boundary`` needs the annotator ``scores``) at ``rate``."""
    d = load(name)
    tr, va, te = split(d.labels, seed=seed)
    pool = np.concatenate([tr, va])
    clean = d.labels[pool]
    if rate == 0:
        noisy = clean.copy()
    elif kind == "boundary":
        assert scores is not None
        noisy = boundary_noise(None, clean, rate=rate, scores=scores[pool])
    else:
        noisy = symmetric_noise(clean, rate=rate, n_classes=d.n_classes, seed=seed)
    return Pool(d, tr, va, te, clean, noisy)


def run_purify(p: Pool, cfg: Any, contamination: float, seed: int) -> Any:
    """:func:`purify` on the pool with the budget's classifier settings ``cfg`` (a PurifyConfig)."""
    return purify(p.views(p.pool), p.noisy, contamination=contamination, seed=seed, hidden=cfg.hidden,
                  epochs=cfg.epochs, lr=cfg.lr, weight_decay=cfg.weight_decay, n_estimators=cfg.n_estimators,
                  n_classes=p.data.n_classes)


def detection_scores(detected: np.ndarray, noisy: np.ndarray) -> dict[str, float]:
    """Precision, recall and F1 of a detected index set against the truly noisy set."""
    tp = float(np.isin(detected, noisy).sum())
    prec = tp / detected.size if detected.size else 0.0
    rec = tp / noisy.size if noisy.size else 0.0
    return {"precision": prec, "recall": rec, "f1": 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0}


def downstream_accuracy(p: Pool, labels: np.ndarray, keep: np.ndarray, cfg: Any, seed: int) -> float:
    """Clean test accuracy of the fixed classifier trained on the pool samples ``keep`` with ``labels``."""
    clf = MultiViewClassifier(hidden=cfg.hidden, epochs=cfg.epochs, lr=cfg.lr, weight_decay=cfg.weight_decay,
                              seed=seed + 17)
    clf.fit([v[keep] for v in p.views(p.pool)], labels[keep], n_classes=p.data.n_classes)
    return clf.score(p.views(p.test), p.data.labels[p.test])
