"""[P24] toy data and motion metrics against their closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.aad1 import centroids, frame_error, make_sprite_videos, motion_stats, render_sprite


def test_centroid_displacement_recovers_the_true_velocity() -> None:
    d = make_sprite_videos(200, frames=8, width=16, seed=3)
    m = motion_stats(d.videos)
    assert np.allclose(m.velocity, d.velocity, atol=0.05)  # oracle: the generator's own velocity
    assert m.static_rate == 0.0
    assert m.mean_displacement == pytest.approx(np.abs(d.velocity).mean(), abs=0.03)
    assert set(np.unique(d.velocity)) <= {-2.0, -1.0, 1.0, 2.0}


def test_static_video_is_static() -> None:
    frame = render_sprite(np.array([5.0]), width=16)
    still = np.repeat(frame[None], 8, axis=1)
    m = motion_stats(still)
    assert m.static_rate == 1.0 and m.mean_displacement == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0, 15.99))
def test_centroid_of_one_sprite_is_its_position(p: float) -> None:
    frame = render_sprite(np.array([[p]]), width=16, sigma=1.2)  # (1, 1, 16)
    c = centroids(frame)[0, 0]
    assert abs((c - p + 8) % 16 - 8) < 0.05


def test_render_matches_the_formula_and_wraps() -> None:
    x = render_sprite(np.array([0.0]), width=8, sigma=1.0)[0]
    d = np.array([0, 1, 2, 3, 4, -3, -2, -1], dtype=float)
    assert np.allclose(x, 2 * np.exp(-0.5 * d**2) - 1)
    assert np.allclose(render_sprite(np.array([8.0]), width=8, sigma=1.0), render_sprite(np.array([0.0]), width=8,
                                                                                         sigma=1.0))


def test_frame_error_is_zero_on_clean_lattice_sprites_and_large_on_blank() -> None:
    clean = render_sprite(np.array([[1.0, 2.5, 7.125]]), width=16)
    assert np.allclose(frame_error(clean, grid=8), 0.0, atol=1e-12)
    blank = -np.ones((1, 2, 16))
    assert np.all(frame_error(blank) > 0.1)
    brute = min(np.mean((blank[0, 0] - render_sprite(np.array([q / 8]), width=16)[0]) ** 2) for q in range(128))
    assert frame_error(blank)[0, 0] == pytest.approx(brute)


def test_bad_speeds_and_ranges_are_refused() -> None:
    with pytest.raises(ValueError, match="speeds"):
        make_sprite_videos(3, width=8, speeds=(5.0,), seed=0)
    with pytest.raises(ValueError, match="videos"):
        motion_stats(np.zeros((3, 8)))
