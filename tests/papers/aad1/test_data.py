"""[P24] toy 2-D sprite videos and motion metrics against their closed forms and brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.aad1 import (
    COMPASS_MODES,
    SIGMA,
    centroids,
    frame_error,
    make_sprite_videos,
    motion_stats,
    render_sprite,
)


def _wrapped(a: np.ndarray, size: int) -> np.ndarray:
    return (a + size / 2) % size - size / 2


def test_displacement_read_from_the_frames_is_the_generators_velocity() -> None:
    d = make_sprite_videos(300, frames=8, size=12, seed=3)
    m = motion_stats(d.videos)
    assert np.allclose(m.velocity, d.velocity, atol=1e-8)  # oracle: the generator's own (dx, dy)
    assert np.allclose(m.displacement, np.linalg.norm(d.velocity, axis=1), atol=1e-8)
    assert m.static_rate == 0.0
    assert {tuple(v) for v in d.velocity} <= set(COMPASS_MODES)
    assert len({tuple(v) for v in d.velocity}) == len(COMPASS_MODES)  # every mode is drawn
    c = centroids(d.videos)
    truth = (d.start[:, None, :] + d.velocity[:, None, :] * np.arange(8)[None, :, None]) % 12
    assert np.abs(_wrapped(c - truth, 12)).max() < 1e-8


@settings(max_examples=40, deadline=None)
@given(st.floats(0.0, 11.999), st.floats(0.0, 11.999), st.floats(0.8, 2.0))
def test_centroid_of_one_sprite_is_its_position(x: float, y: float, sigma: float) -> None:
    frame = render_sprite(np.array([[[x, y]]]), size=12, sigma=sigma)  # (1, 1, 12, 12)
    c = centroids(frame)[0, 0]
    alias = np.exp(-2 * np.pi**2 * sigma**2 * (11 / 12) ** 2)  # relative size of the aliased Fourier term
    assert np.abs(_wrapped(c - np.array([x, y]), 12)).max() < 2 * alias * 12 / (2 * np.pi) + 1e-9


def test_integer_rolls_move_the_centroid_exactly_even_off_sprite() -> None:
    x = np.random.default_rng(0).uniform(-1, 1, (1, 1, 12, 12))
    rolled = np.roll(x, shift=(2, -3), axis=(2, 3))  # 2 px down (y), 3 px left (x)
    d = _wrapped(centroids(rolled) - centroids(x), 12)[0, 0]
    assert np.allclose(d, [-3.0, 2.0], atol=1e-9)


def test_render_is_the_periodised_gaussian_indexed_y_x() -> None:
    p = np.array([2.3, 5.0])
    f = render_sprite(p, size=12, sigma=1.5)
    yy, xx = np.mgrid[0:12, 0:12]
    brute = sum(np.exp(-0.5 * (((xx - p[0] + 12 * a) ** 2) + (yy - p[1] + 12 * b) ** 2) / 1.5**2)
                for a in range(-4, 5) for b in range(-4, 5))
    assert np.allclose(f, 2 * brute - 1, atol=1e-12)
    assert np.unravel_index(np.argmax(f), f.shape) == (5, 2)
    assert np.allclose(render_sprite(p + [12.0, -12.0], size=12, sigma=1.5), f)


def test_static_and_diagonal_videos() -> None:
    still = np.repeat(render_sprite(np.array([[4.0, 7.5]]), size=12)[:, None], 8, axis=1)
    m = motion_stats(still)
    assert m.static_rate == 1.0 and m.mean_displacement == pytest.approx(0.0, abs=1e-9)
    diag = render_sprite(np.array([[[0.5 - t, 11.0 + t] for t in range(6)]]), size=12)
    m = motion_stats(diag)
    assert m.mean_displacement == pytest.approx(np.sqrt(2.0), abs=1e-8)  # wraps across both edges
    assert np.allclose(m.velocity, [[-1.0, 1.0]], atol=1e-8)


def test_frame_error_zero_on_lattice_small_anywhere_and_brute_force_on_blank() -> None:
    clean = render_sprite(np.array([[[1.0, 2.5], [7.25, 0.75]]]), size=12)
    assert np.allclose(frame_error(clean, grid=4), 0.0, atol=1e-12)
    anywhere = make_sprite_videos(40, size=12, seed=1).videos
    assert frame_error(anywhere).max() < 2e-3
    blank = -np.ones((1, 1, 12, 12))
    brute = min(np.mean((blank[0, 0] - render_sprite(np.array([a / 2, b / 2]), size=12)) ** 2)
                for a in range(24) for b in range(24))
    assert frame_error(blank, grid=2)[0, 0] == pytest.approx(brute)
    assert frame_error(blank)[0, 0] == pytest.approx(4 * np.pi * SIGMA**2 / 144, rel=1e-3)  # 2 ∫g² / S² closed form


def test_bad_modes_sizes_and_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="modes"):
        make_sprite_videos(3, size=8, sigma=1.0, modes=((5.0, 0.0),), seed=0)
    with pytest.raises(ValueError, match="modes"):
        make_sprite_videos(3, modes=((1.0, 0.0, 0.0),), seed=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sigma"):
        make_sprite_videos(3, size=8, seed=0)  # the default sprite is too wide for 8 px
    with pytest.raises(ValueError, match="videos"):
        motion_stats(np.zeros((3, 8, 12)))
    with pytest.raises(ValueError, match="square"):
        centroids(np.zeros((3, 8, 12, 10)))
    with pytest.raises(ValueError, match="positions"):
        render_sprite(np.array([1.0, 2.0, 3.0]), size=12)
