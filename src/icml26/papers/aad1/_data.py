"""Synthetic sprite videos with known motion and their exact motion statistics ([P24] toy of §4 of the notes).

A video is ``T`` frames of ``W`` pixels on a ring: a Gaussian sprite of width ``sigma`` at position
``p_t = p_0 + v t (mod W)`` with ``v`` drawn from the velocity modes ``±speeds``. Pixel values are in ``[-1, 1]``
(background −1, sprite peak +1). Frame 0 is the conditioning image of image-to-video generation.

Motion is read from the sprite's circular centroid, so the data's displacement per frame is exactly ``|v|``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common import validation as V

__all__ = ["MotionStats", "SpriteVideos", "centroids", "frame_error", "make_sprite_videos", "motion_stats",
           "render_sprite"]


@dataclass(frozen=True)
class SpriteVideos:
    """[P24] toy data: a batch of sprite videos: ``videos`` (n, T, W) in [-1, 1], the true ``velocity`` (n,) and ``start`` (n,)."""

    videos: np.ndarray
    velocity: np.ndarray
    start: np.ndarray


def _sigma(sigma: float) -> float:
    return V.real(sigma, "sigma", lo=0.3, hi=8.0)


def render_sprite(positions: np.ndarray, *, width: int, sigma: float = 1.2) -> np.ndarray:
    """[P24] toy renderer: one frame per position, a circular Gaussian bump mapped to [-1, 1] (shape ``(*p, W)``)."""
    p = V.real_array(positions, "positions", allow_empty=False)
    w = V.int_at_least(width, "width", 4)
    s = _sigma(sigma)
    d = np.arange(w) - p[..., None]
    d = (d + w / 2) % w - w / 2  # circular distance
    return 2.0 * np.exp(-0.5 * (d / s) ** 2) - 1.0


def make_sprite_videos(n: int, *, frames: int = 8, width: int = 16, speeds: tuple[float, ...] = (1.0, 2.0),
                       sigma: float = 1.2, seed: int) -> SpriteVideos:
    """[P24] data: ``n`` videos with velocity modes ``±speeds`` (uniform over the 2·len(speeds) modes).

    Reconstructed: the paper trains on real image-to-video data; this toy keeps motion statistics exact.
    """
    n = V.positive_int(n, "n")
    frames = V.int_at_least(frames, "frames", 2)
    width = V.int_at_least(width, "width", 4)
    sp = V.real_array(speeds, "speeds", ndim=1)
    if np.any(sp <= 0) or np.any(sp >= width / 2):
        raise ValueError(f"speeds must lie in (0, width/2) = (0, {width / 2:g}), got {sp.tolist()}")
    g = np.random.default_rng(V.seed(seed))
    modes = np.concatenate([-sp, sp])
    v = modes[g.integers(0, modes.size, size=n)]
    p0 = g.uniform(0.0, width, size=n)
    pos = p0[:, None] + v[:, None] * np.arange(frames)[None, :]
    return SpriteVideos(videos=render_sprite(pos % width, width=width, sigma=sigma), velocity=v, start=p0)


def _videos(videos: np.ndarray) -> np.ndarray:
    return V.real_array(videos, "videos", ndim=3)


def centroids(videos: np.ndarray) -> np.ndarray:
    """[P24] circular centroid (pixels) of each frame's mass ``max(x + 1, 0)``: shape (n, T)."""
    x = _videos(videos)
    w = x.shape[-1]
    m = np.clip(x + 1.0, 0.0, None)
    phase = np.exp(2j * np.pi * np.arange(w) / w)
    z = (m * phase).sum(-1)
    return (np.angle(z) * w / (2 * np.pi)) % w


@dataclass(frozen=True)
class MotionStats:
    """[P24] motion of a batch: mean |Δp| per frame over videos, the static share, per-video velocity estimates."""

    mean_displacement: float
    static_rate: float
    displacement: np.ndarray  # (n,) mean |Δp| per frame of each video
    velocity: np.ndarray  # (n,) mean signed Δp per frame


def motion_stats(videos: np.ndarray, *, static_px: float = 0.5) -> MotionStats:
    """[P24] motion metrics: displacement of the sprite's centroid between consecutive frames (wrapped to the ring).

    A video is static when its mean |Δp| per frame is below ``static_px`` (the data's smallest speed is 1 px/frame).
    """
    x = _videos(videos)
    thr = V.real(static_px, "static_px", lo=0.0, lo_open=True)
    w = x.shape[-1]
    c = centroids(x)
    d = np.diff(c, axis=1)
    d = (d + w / 2) % w - w / 2
    disp = np.abs(d).mean(axis=1)
    return MotionStats(mean_displacement=float(disp.mean()), static_rate=float((disp < thr).mean()),
                       displacement=disp, velocity=d.mean(axis=1))


def frame_error(videos: np.ndarray, *, sigma: float = 1.2, grid: int = 8) -> np.ndarray:
    """[P24] drift metric: per frame, the MSE to the nearest clean sprite (positions on a 1/``grid`` px lattice).

    Zero for clean frames at lattice positions; grows as frames blur, fade or accumulate artefacts. Shape (n, T).
    """
    x = _videos(videos)
    g = V.positive_int(grid, "grid")
    w = x.shape[-1]
    tmpl = render_sprite(np.arange(w * g) / g, width=w, sigma=sigma)  # (w g, W)
    flat = x.reshape(-1, w)
    err = (flat**2).sum(1)[:, None] - 2 * flat @ tmpl.T + (tmpl**2).sum(1)[None, :]
    return np.maximum(err.min(axis=1), 0.0).reshape(x.shape[:2]) / w
