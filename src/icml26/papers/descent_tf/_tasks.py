"""The stand-in tasks of the [P07] experiments (notes §4), all built from scikit-learn's bundled 8 × 8 digits or
synthesised: digit-sequence denoising (for video denoising), digit-row classification (for text classification) and
sparse coding with a known dictionary (the predecessor line's unrolled-network sanity task)."""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.common.validation import int_at_least, positive_int, real, real_array
from icml26.common.validation import seed as check_seed

__all__ = ["digit_rows", "digits_split", "gaussian_dictionary", "moving_digits", "sparse_codes"]


def digits_split(*, test_size: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's digits (1797 images) scaled to [0, 1], split at random from ``seed`` ([P07] stand-in data).

    Returns (train images (N, 8, 8), train labels, test images, test labels).
    """
    from sklearn.datasets import load_digits

    k = int_at_least(test_size, "test_size", 1, hi=1796)
    g = np.random.default_rng(check_seed(seed))
    d: Any = load_digits()  # a Bunch (the stubs also allow a tuple)
    images = np.asarray(d.images, dtype=np.float64) / 16.0
    labels = np.asarray(d.target, dtype=np.int64)
    perm = g.permutation(len(labels))
    te, tr = perm[:k], perm[k:]
    return images[tr], labels[tr], images[te], labels[te]


def _images(images: np.ndarray) -> np.ndarray:
    a = real_array(images, "images", ndim=3)
    if a.shape[1:] != (8, 8):
        raise ValueError(f"images must have shape (N, 8, 8), got {a.shape}")
    return a


def moving_digits(images: np.ndarray, *, frames: int, speed: int, sigma: float, seed: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Digit "videos" for the [P07] denoising stand-in (notes §4): each image slides ``speed`` px per frame (circular,
    left or right at random) over ``frames`` frames; every pixel gets N(0, sigma²) noise.

    Returns (noisy, clean), float32 of shape (N, frames, 64): one frame per token.
    """
    a = _images(images)
    T = positive_int(frames, "frames")
    v = int_at_least(speed, "speed", 0, hi=7)
    s = real(sigma, "sigma", lo=0.0)
    g = np.random.default_rng(check_seed(seed))
    direction = g.choice([-1, 1], size=len(a))
    clean = np.empty((len(a), T, 64))
    for t in range(T):
        for d in (-1, 1):
            sel = direction == d
            clean[sel, t] = np.roll(a[sel], d * v * t, axis=2).reshape(-1, 64)
    noisy = clean + s * g.standard_normal(clean.shape)
    return noisy.astype(np.float32), clean.astype(np.float32)


def digit_rows(images: np.ndarray, *, noise: float, shift: int, seed: int) -> np.ndarray:
    """Digit images as sequences of their 8 rows (8 tokens of 8 pixels) for the [P07] classification stand-in.

    ``shift`` > 0 moves each image horizontally by a random non-zero amount in [−shift, shift] (zero fill) and
    ``noise`` adds N(0, noise²) per pixel: the out-of-distribution versions. Returns float32 (N, 8, 8).
    """
    a = _images(images).copy()
    sd = real(noise, "noise", lo=0.0)
    k = int_at_least(shift, "shift", 0, hi=7)
    g = np.random.default_rng(check_seed(seed))
    if k:
        amounts = g.choice([s for s in range(-k, k + 1) if s], size=len(a))
        out = np.zeros_like(a)
        for s in np.unique(amounts):
            sel = amounts == s
            if s > 0:
                out[sel, :, s:] = a[sel, :, :-s]
            else:
                out[sel, :, :s] = a[sel, :, -s:]
        a = out
    a = a + sd * g.standard_normal(a.shape)
    return a.astype(np.float32)


def gaussian_dictionary(m: int, n: int, *, seed: int) -> np.ndarray:
    """A known m × n dictionary with i.i.d. Gaussian entries and unit-norm columns ([P07] sparse-coding task)."""
    rows, cols = positive_int(m, "m"), positive_int(n, "n")
    g = np.random.default_rng(check_seed(seed))
    A = g.standard_normal((rows, cols))
    return A / np.linalg.norm(A, axis=0, keepdims=True)


def sparse_codes(dictionary: np.ndarray, *, count: int, density: float, noise: float, seed: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Sparse codes x (each entry non-zero with probability ``density``, N(0, 1) amplitudes) and measurements
    y = A x + N(0, noise²) ([P07] sparse-coding task). Returns (y (count, m), x (count, n)), float32."""
    A = real_array(dictionary, "dictionary", ndim=2)
    N = positive_int(count, "count")
    p = real(density, "density", lo=0.0, hi=1.0, lo_open=True)
    sd = real(noise, "noise", lo=0.0)
    g = np.random.default_rng(check_seed(seed))
    x = (g.random((N, A.shape[1])) < p) * g.standard_normal((N, A.shape[1]))
    y = x @ A.T + sd * g.standard_normal((N, A.shape[0]))
    return y.astype(np.float32), x.astype(np.float32)
