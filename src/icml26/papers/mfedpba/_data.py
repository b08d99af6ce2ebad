"""Two modalities from scikit-learn's bundled digits, Dirichlet label skew and the modality-imbalance knob ([P09]).

The paper's data sets are not available here; this is our test bed (a reconstruction, not the paper's benchmark):

- modality ``"a"``: the left half of each 8 × 8 digit (32 pixels) plus Gaussian noise;
- modality ``"b"``: the right half seen through a fixed random linear map to 24 dimensions, plus noise — a different
  sensor, not a copy of ``"a"``: neither half alone identifies every digit, both together do better;
- label skew: for each class, its samples are split over the clients in Dirichlet(α) proportions (small α: few
  classes per client);
- modality imbalance: a fraction of the clients holds one modality only (alternately ``"a"`` and ``"b"``), the rest
  hold both, paired sample by sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common.validation import int_at_least, positive_int, real, real_array
from icml26.common.validation import seed as check_seed

__all__ = ["MODALITIES", "MultimodalDigits", "assign_modalities", "dirichlet_partition", "multimodal_digits"]

#: the two modalities of the digits test bed
MODALITIES: tuple[str, str] = ("a", "b")
_B_DIM = 24
_B_MAP_SEED = 20260917  # part of the data set's definition: the "b" sensor is the same for every seed


@dataclass(frozen=True)
class MultimodalDigits:
    """The digits test bed of [P09] (our reconstruction): ``x[m]`` (n, d_m) float32 per modality, ``y`` (n,) int64."""

    x: dict[str, np.ndarray]
    y: np.ndarray
    n_classes: int


def multimodal_digits(*, noise: float = 0.3, seed: int) -> MultimodalDigits:
    """The two-modality test bed of [P09] (ours) from ``sklearn.datasets.load_digits`` (1797 samples, 10 classes).

    Pixels are scaled to [0, 1]; ``noise`` is the standard deviation of the Gaussian noise added to each modality
    (drawn from ``seed``); each modality is then standardised feature by feature.
    """
    from sklearn.datasets import load_digits

    noise = real(noise, "noise", lo=0.0)
    g = np.random.default_rng(check_seed(seed))
    d: Any = load_digits()  # a Bunch (the stubs also allow a tuple)
    img = (np.asarray(d.images) / 16.0).astype(np.float64)
    left = img[:, :, :4].reshape(len(img), -1)
    right = img[:, :, 4:].reshape(len(img), -1)
    b_map = np.random.default_rng(_B_MAP_SEED).standard_normal((right.shape[1], _B_DIM)) / np.sqrt(right.shape[1])
    xa = left + noise * g.standard_normal(left.shape)
    xb = right @ b_map + noise * g.standard_normal((len(img), _B_DIM))
    x = {m: ((v - v.mean(0)) / (v.std(0) + 1e-8)).astype(np.float32) for m, v in zip(MODALITIES, (xa, xb))}
    return MultimodalDigits(x=x, y=np.asarray(d.target).astype(np.int64), n_classes=10)


def dirichlet_partition(y: np.ndarray, *, n_clients: int, alpha: float, min_size: int = 10, seed: int
                        ) -> list[np.ndarray]:
    """Split sample indices over ``n_clients`` with Dirichlet(``alpha``) label skew ([P09]'s non-IID setting).

    For each class its (shuffled) indices are cut in proportions p ~ Dir(α·1_K); the draw is repeated (from the same
    generator) until every client holds at least ``min_size`` samples. Returns one sorted index array per client.
    """
    y = real_array(y, "y", ndim=1)
    if np.any(y != np.round(y)) or np.any(y < 0):
        raise ValueError("y must hold non-negative integer class labels")
    labels = y.astype(np.int64)
    n_clients = int_at_least(n_clients, "n_clients", 2)
    alpha = real(alpha, "alpha", lo=0.0, lo_open=True)
    min_size = int_at_least(min_size, "min_size", 1)
    if n_clients * min_size > labels.size:
        raise ValueError(f"n_clients * min_size = {n_clients * min_size} exceeds the {labels.size} samples")
    g = np.random.default_rng(check_seed(seed))
    for _ in range(1000):
        parts: list[list[int]] = [[] for _ in range(n_clients)]
        for c in np.unique(labels):
            idx = g.permutation(np.flatnonzero(labels == c))
            cuts = (np.cumsum(g.dirichlet(np.full(n_clients, alpha)))[:-1] * idx.size).astype(int)
            for k, chunk in enumerate(np.split(idx, cuts)):
                parts[k].extend(chunk.tolist())
        if min(len(p) for p in parts) >= min_size:
            return [np.sort(np.asarray(p, dtype=np.int64)) for p in parts]
    raise ValueError(f"no Dirichlet({alpha:g}) split gave every client >= {min_size} samples in 1000 draws: "
                     "raise alpha or lower min_size")


def assign_modalities(n_clients: int, *, unimodal_fraction: float) -> list[tuple[str, ...]]:
    """The modality-imbalance knob of [P09] (our reading): round(f·K) clients hold one modality, the rest both.

    The unimodal clients alternate between ``("a",)`` and ``("b",)``; which data each client receives is random
    (the Dirichlet split), so the assignment itself is fixed.
    """
    n_clients = positive_int(n_clients, "n_clients")
    f = real(unimodal_fraction, "unimodal_fraction", lo=0.0, hi=1.0)
    n_uni = int(round(f * n_clients))
    return [(MODALITIES[k % 2],) if k < n_uni else MODALITIES for k in range(n_clients)]
