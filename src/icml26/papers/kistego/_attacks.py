"""Channel distortions and image metrics for [P22]'s robustness and fidelity checks.

- :func:`distort`: 8-bit rounding, then JPEG-like quantisation (8 x 8 block DCT-II with the JPEG luminance table,
  scaled by ``quality`` as libjpeg does), then additive Gaussian noise, then clipping to [0, 1].
- :func:`psnr` and :func:`ssim` (Gaussian window σ = 1.5, radius 3; constants of Wang et al. 2004) on [0, 1] images.
"""

from __future__ import annotations

import numpy as np
from scipy.fft import dctn, idctn
from scipy.ndimage import gaussian_filter

from icml26.common.validation import int_at_least, positive_int, real, real_array

__all__ = ["JPEG_LUMA", "distort", "jpeg_like", "psnr", "ssim"]

#: the JPEG standard's example luminance quantisation table (ITU-T T.81, Annex K)
JPEG_LUMA = np.array([
    [16, 11, 10, 16, 24, 40, 51, 61], [12, 12, 14, 19, 26, 58, 60, 55], [14, 13, 16, 24, 40, 57, 69, 56],
    [14, 17, 22, 29, 51, 87, 80, 62], [18, 22, 37, 56, 68, 109, 103, 77], [24, 35, 55, 64, 81, 104, 113, 92],
    [49, 64, 78, 87, 103, 121, 120, 101], [72, 92, 95, 98, 112, 100, 103, 99]], dtype=np.float64)


def _img(x: object, name: str) -> np.ndarray:
    a = real_array(x, name, ndim=2)
    if a.min() < 0.0 or a.max() > 1.0:
        raise ValueError(f"{name} must hold intensities in [0, 1]")
    return a


def jpeg_like(image: np.ndarray, *, quality: int = 75) -> np.ndarray:
    """JPEG-like quantisation of [P22]'s channel: per 8 x 8 block, DCT, round to the scaled table, inverse DCT."""
    a = _img(image, "image")
    q = int_at_least(quality, "quality", 1, hi=100)
    h, w = a.shape
    if h % 8 or w % 8:
        raise ValueError(f"image shape {a.shape} must be a multiple of 8")
    scale = 5000.0 / q if q < 50 else 200.0 - 2.0 * q
    table = np.clip(np.floor((JPEG_LUMA * scale + 50.0) / 100.0), 1, 255)
    blocks = (a * 255.0 - 128.0).reshape(h // 8, 8, w // 8, 8).transpose(0, 2, 1, 3)
    c = np.asarray(dctn(blocks, axes=(2, 3), norm="ortho"))
    c = np.round(c / table) * table
    out = np.asarray(idctn(c, axes=(2, 3), norm="ortho")).transpose(0, 2, 1, 3).reshape(h, w)
    return np.clip((out + 128.0) / 255.0, 0.0, 1.0)


def distort(image: np.ndarray, *, quality: int = 75, noise: float = 0.02, seed: int) -> np.ndarray:
    """[P22] channel (ours): 8-bit rounding, :func:`jpeg_like` at ``quality``, N(0, ``noise``²) noise, clip."""
    a = _img(image, "image")
    s = real(noise, "noise", lo=0.0)
    g = np.random.default_rng(int_at_least(seed, "seed", 0))
    x = np.round(a * 255.0) / 255.0
    x = jpeg_like(x, quality=quality)
    return np.clip(x + s * g.standard_normal(x.shape), 0.0, 1.0)


def psnr(estimate: np.ndarray, reference: np.ndarray) -> float:
    """Peak signal-to-noise ratio in dB for [0, 1] images (data range 1), the fidelity metric of [P22]'s checks."""
    a, b = _img(estimate, "estimate"), _img(reference, "reference")
    if a.shape != b.shape:
        raise ValueError(f"estimate {a.shape} and reference {b.shape} must have one shape")
    mse = float(np.mean((a - b) ** 2))
    return float("inf") if mse == 0 else float(-10.0 * np.log10(mse))


def ssim(estimate: np.ndarray, reference: np.ndarray, *, sigma: float = 1.5, radius: int = 3) -> float:
    """Mean structural similarity (Wang et al. 2004; K1 = 0.01, K2 = 0.03, L = 1) with a Gaussian window, as in
    [P22]'s fidelity checks; the window is truncated at ``radius`` and edges are handled by reflection."""
    a, b = _img(estimate, "estimate"), _img(reference, "reference")
    if a.shape != b.shape:
        raise ValueError(f"estimate {a.shape} and reference {b.shape} must have one shape")
    s = real(sigma, "sigma", lo=0.0, lo_open=True)
    r = positive_int(radius, "radius")
    trunc = r / s

    def f(x: np.ndarray) -> np.ndarray:
        return gaussian_filter(x, s, truncate=trunc, mode="reflect")

    mu_a, mu_b = f(a), f(b)
    va, vb = f(a * a) - mu_a**2, f(b * b) - mu_b**2
    cov = f(a * b) - mu_a * mu_b
    c1, c2 = 0.01**2, 0.03**2
    m = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a**2 + mu_b**2 + c1) * (va + vb + c2))
    return float(m.mean())
