"""[P22] structural encoding: halftone, downsampling and the key-free bipartite layout, against oracles."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from icml26.papers.kistego import downsample, encode_shares, extract, floyd_steinberg, pair_layout
from icml26.papers.kistego._halftone import site_means


def _smooth(seed: int, n: int = 16) -> np.ndarray:
    g = np.random.default_rng(seed)
    y, x = np.mgrid[0:n, 0:n] / n
    return np.clip(0.5 + 0.3 * np.sin(2 * np.pi * (x * g.uniform(0.5, 2) + y * g.uniform(0.5, 2))), 0, 1)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 1.0))
def test_floyd_steinberg_preserves_the_mean(seed: int, level: float) -> None:
    img = np.clip(level + 0.2 * (np.random.default_rng(seed).random((16, 16)) - 0.5), 0, 1)
    out = floyd_steinberg(img)
    assert set(np.unique(out)) <= {0, 1}
    # every pixel's error is in [-1/2, 1/2]; only the bottom row's and right column's can leave the image
    assert abs(out.mean() - img.mean()) <= (16 + 16 - 1) / (2 * 16 * 16)


def test_floyd_steinberg_matches_pillow() -> None:
    """Pillow's 1-bit conversion is Floyd-Steinberg error diffusion on 8-bit values: an established oracle. Error
    diffusion is chaotic pixel by pixel (a tie broken differently moves every later dot), so the halftones are
    compared where they carry the signal: their 4 x 4 local means."""
    img = _smooth(3, 32)
    q = np.round(img * 255).astype(np.uint8)
    ref = (np.asarray(Image.fromarray(q, mode="L").convert("1")) > 0).astype(float)
    ours = floyd_steinberg(q / 255.0).astype(float)
    d = np.abs(downsample(ours, 4) - downsample(ref, 4))
    assert d.mean() < 0.05 and d.max() <= 0.25


def test_downsample_against_a_loop() -> None:
    img = np.random.default_rng(0).random((8, 12))
    ref = np.array([[img[2 * i:2 * i + 2, 2 * j:2 * j + 2].mean() for j in range(6)] for i in range(4)])
    np.testing.assert_allclose(downsample(img, 2), ref)
    with pytest.raises(ValueError, match="factor"):
        downsample(img, 5)


def test_layout_is_bipartite_and_disjoint() -> None:
    lay = pair_layout((32, 32), cell=2)
    assert lay.bits_shape == (8, 8) and lay.repeats == 2
    sw = lay.sites_shape[1]
    b, w = lay.black.ravel(), lay.white.ravel()
    assert len(set(b) | set(w)) == b.size + w.size  # every site used at most once
    assert np.all(((b // sw) + (b % sw)) % 2 == 0) and np.all(((w // sw) + (w % sw)) % 2 == 1)  # checkerboard classes
    assert np.all(b // sw == w // sw) and np.all(np.abs(b - w) == 1)  # neighbours on one row


def _written(bits: np.ndarray, gap: float, base: np.ndarray) -> np.ndarray:
    """An image that carries ``bits`` by construction: site means base ± gap/2 on each pair."""
    lay = pair_layout(base.shape, cell=2, bits_shape=bits.shape)
    m = site_means(base, 2).copy()
    s = (2 * bits.ravel().astype(float) - 1) * gap / 2
    for r in range(lay.repeats):
        mid = (m[lay.black[r]] + m[lay.white[r]]) / 2
        m[lay.black[r]], m[lay.white[r]] = mid + s, mid - s
    sites = m.reshape(lay.sites_shape)
    return np.kron(sites, np.ones((2, 2)))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.floats(-0.25, 0.25))
def test_extract_reads_constructed_images_without_a_key(seed: int, shift: float) -> None:
    """Constructive oracle, and self-synchronisation: a global brightness shift changes no bit."""
    g = np.random.default_rng(seed)
    bits = g.integers(0, 2, (8, 8)).astype(np.uint8)
    img = _written(bits, 0.1, 0.35 + 0.3 * g.random((32, 32)))
    assert 0.25 <= img.min() and img.max() <= 0.75
    assert np.array_equal(extract(img), bits)
    assert np.array_equal(extract(img + shift), bits)


def test_encode_shares_shapes_and_complement() -> None:
    sh = encode_shares(_smooth(1, 32), factor=4)
    assert sh.bits.shape == (8, 8) and sh.secret_shape == (32, 32) and sh.factor == 4
    assert np.array_equal(sh.bits + sh.complement, np.ones((8, 8)))
    with pytest.raises(ValueError, match="secret"):
        encode_shares(_smooth(1, 32) * 2, factor=4)
    with pytest.raises(ValueError, match="halftone"):
        encode_shares(_smooth(1, 32), factor=4, halftone="ordered")
