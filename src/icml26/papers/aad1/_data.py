"""Synthetic 2-D sprite videos with known motion and their exact motion statistics ([P24] toy of §4 of the notes).

A video is ``T`` square frames of ``size × size`` pixels on a torus (the sprite wraps around at the edges): a Gaussian
sprite of width ``sigma`` at ``p_t = p_0 + v t (mod size)`` with ``v = (dx, dy)`` drawn uniformly from fixed velocity
modes (by default the eight compass moves: 1 px/frame along an axis or √2 px/frame on a diagonal). Pixel values are
in ``[-1, 1]`` (background −1, sprite peak +1). Frame 0 is the conditioning image of image-to-video generation.

The sprite is the periodised Gaussian (the sum of its images on the torus), so each axis' marginal is a shifted
periodic function and the phase of its first discrete Fourier coefficient (the circular centroid) gives the
position exactly on clean frames: up to an aliasing term of relative size exp(−2π²σ²(1 − 1/size)²), below 1e-9 at
the default ``sigma``. The data's displacement per frame is then exactly ``|v|``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common import validation as V

__all__ = ["COMPASS_MODES", "SIGMA", "MotionStats", "SpriteVideos", "centroids", "frame_error", "make_sprite_videos",
           "motion_stats", "render_sprite"]

SIGMA = 1.8  # the sprite's width (px): a blank frame is 0.28 from the nearest sprite (frame_error)
COMPASS_MODES = ((1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (-1.0, 1.0), (-1.0, 0.0), (-1.0, -1.0), (0.0, -1.0),
                 (1.0, -1.0))  # (dx, dy) px/frame: the eight compass moves


@dataclass(frozen=True)
class SpriteVideos:
    """[P24] toy data: ``videos`` (n, T, S, S) in [-1, 1], the true ``velocity`` (n, 2) and ``start`` (n, 2) as (x, y)."""

    videos: np.ndarray
    velocity: np.ndarray
    start: np.ndarray


def _sigma(sigma: float, size: int) -> float:
    return V.real(sigma, "sigma", lo=0.8, hi=size / 6)


def _axis(p: np.ndarray, size: int, sigma: float) -> np.ndarray:
    """Periodised 1-D Gaussian profile at positions ``p`` (shape ``(*p, size)``), images m = −2..2 of the torus."""
    d = np.arange(size) - (p[..., None] % size)
    return np.stack([np.exp(-0.5 * ((d + m * size) / sigma) ** 2) for m in range(-2, 3)]).sum(axis=0)


def render_sprite(positions: np.ndarray, *, size: int, sigma: float = SIGMA) -> np.ndarray:
    """[P24] toy renderer: one frame per (x, y) position (last axis of ``positions``), the periodised Gaussian sprite
    mapped to [-1, 1]; shape ``(*positions.shape[:-1], size, size)`` indexed [..., y, x]."""
    p = V.real_array(positions, "positions", allow_empty=False)
    if p.ndim < 1 or p.shape[-1] != 2:
        raise ValueError(f"positions must end in an axis of length 2 (x, y), got shape {p.shape}")
    s = V.int_at_least(size, "size", 6)
    sg = _sigma(sigma, s)
    gx, gy = _axis(p[..., 0], s, sg), _axis(p[..., 1], s, sg)
    return 2.0 * gy[..., :, None] * gx[..., None, :] - 1.0


def _modes(modes: object, size: int) -> np.ndarray:
    m = V.real_array(modes, "modes", ndim=2)
    if m.shape[1] != 2:
        raise ValueError(f"modes must have shape (k, 2) of (dx, dy) pairs, got {m.shape}")
    if np.any(np.abs(m) >= size / 2):
        raise ValueError(f"modes' components must lie in (-size/2, size/2) = (-{size / 2:g}, {size / 2:g}), "
                         f"got {m.tolist()}")
    return m


def make_sprite_videos(n: int, *, frames: int = 8, size: int = 12,
                       modes: tuple[tuple[float, float], ...] = COMPASS_MODES, sigma: float = SIGMA,
                       seed: int) -> SpriteVideos:
    """[P24] data: ``n`` videos, each with one velocity mode drawn uniformly from ``modes`` ((dx, dy) px/frame).

    Reconstructed: the paper trains on real image-to-video data; this toy keeps the motion statistics exact.
    """
    n = V.positive_int(n, "n")
    frames = V.int_at_least(frames, "frames", 2)
    size = V.int_at_least(size, "size", 6)
    m = _modes(modes, size)
    g = np.random.default_rng(V.seed(seed))
    v = m[g.integers(0, m.shape[0], size=n)]
    p0 = g.uniform(0.0, size, size=(n, 2))
    pos = p0[:, None, :] + v[:, None, :] * np.arange(frames)[None, :, None]
    return SpriteVideos(videos=render_sprite(pos % size, size=size, sigma=sigma), velocity=v, start=p0)


def _videos(videos: np.ndarray) -> np.ndarray:
    x = V.real_array(videos, "videos", ndim=4)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"videos must have square frames (n, T, S, S), got shape {x.shape}")
    return x


def centroids(videos: np.ndarray) -> np.ndarray:
    """[P24] circular centroid (x, y) in pixels of each frame's mass ``max(x + 1, 0)``: shape (n, T, 2).

    Per axis, the phase of the first Fourier coefficient of the mass' marginal: exact for the periodised sprite.
    """
    x = _videos(videos)
    s = x.shape[-1]
    m = np.clip(x + 1.0, 0.0, None)
    phase = np.exp(-2j * np.pi * np.arange(s) / s)
    zx = (m.sum(-2) * phase).sum(-1)
    zy = (m.sum(-1) * phase).sum(-1)
    return (np.stack([-np.angle(zx), -np.angle(zy)], axis=-1) * s / (2 * np.pi)) % s


@dataclass(frozen=True)
class MotionStats:
    """[P24] motion of a batch: mean |Δp| per frame over videos, the static share, per-video velocity estimates."""

    mean_displacement: float
    static_rate: float
    displacement: np.ndarray  # (n,) mean Euclidean |Δp| per frame of each video
    velocity: np.ndarray  # (n, 2) mean signed (Δx, Δy) per frame


def motion_stats(videos: np.ndarray, *, static_px: float = 0.5) -> MotionStats:
    """[P24] motion metrics: the sprite centroid's displacement between consecutive frames (wrapped on the torus).

    A video is static when its mean |Δp| per frame is below ``static_px`` (the data's smallest speed is 1 px/frame).
    """
    x = _videos(videos)
    thr = V.real(static_px, "static_px", lo=0.0, lo_open=True)
    s = x.shape[-1]
    d = np.diff(centroids(x), axis=1)
    d = (d + s / 2) % s - s / 2
    disp = np.linalg.norm(d, axis=-1).mean(axis=1)
    return MotionStats(mean_displacement=float(disp.mean()), static_rate=float((disp < thr).mean()),
                       displacement=disp, velocity=d.mean(axis=1))


def frame_error(videos: np.ndarray, *, sigma: float = SIGMA, grid: int = 4) -> np.ndarray:
    """[P24] drift metric: per frame, the MSE per pixel to the nearest clean sprite (positions on a 1/``grid`` px
    lattice of the torus). Zero for clean frames at lattice positions, at most about 1e-3 for clean frames anywhere
    (grid 4); grows as frames blur, fade or accumulate artefacts. Shape (n, T)."""
    x = _videos(videos)
    g = V.positive_int(grid, "grid")
    s = x.shape[-1]
    sg = _sigma(sigma, s)
    prof = 2.0 * _axis(np.arange(s * g) / g, s, sg)  # (s g, s): profiles at the lattice positions, mass 2 g
    flat = x.reshape(-1, s, s) + 1.0  # frames + 1 against templates + 1 = prof_y ⊗ prof_x / 2 at lattice (a, b)
    cross = 0.5 * np.einsum("nyx,ay,bx->nab", flat, prof, prof, optimize=True)
    tn = 0.25 * np.outer((prof**2).sum(1), (prof**2).sum(1))
    err = (flat**2).sum((1, 2))[:, None, None] - 2 * cross + tn[None]
    return np.maximum(err.reshape(err.shape[0], -1).min(axis=1), 0.0).reshape(x.shape[:2]) / (s * s)
