"""[P22] adaptive layout: principal directions against numpy's SVD, quantile thresholds, the constructive read-out,
the margin guidance's exact step, and embedding through the channel on the GP prior."""

import numpy as np
import pytest
import torch

from icml26.papers.kistego import (
    GaussianProcessPrior,
    distort,
    embed,
    encode_shares,
    extract,
    projection_layout,
    projection_loss,
    projection_soft_bits,
)

GP = GaussianProcessPrior(16, length_scale=2.0)


def _reference(n: int = 200, seed: int = 0) -> np.ndarray:
    return ((GP.sample_x0(n, seed=seed)[:, 0].numpy() + 1) / 2).clip(0, 1).astype(np.float64)


def test_directions_are_the_principal_axes_and_orthonormal() -> None:
    ref = _reference()
    lay = projection_layout(ref, bits_shape=(2, 4))
    flat = ref.reshape(len(ref), -1)
    _, _, vt = np.linalg.svd(flat - flat.mean(0), full_matrices=False)
    np.testing.assert_allclose(np.abs(lay.directions @ vt[:8].T), np.eye(8), atol=1e-6)  # same axes up to sign
    np.testing.assert_allclose(lay.directions @ lay.directions.T, np.eye(8), atol=1e-9)
    assert lay.n_bits == 8 and lay.flip.tolist() == [0, 1, 0, 1, 1, 0, 1, 0]  # checkerboard of the share lattice


def test_thresholds_give_each_bit_its_share_frequency_under_the_prior() -> None:
    ref = _reference(400)
    freq = np.array([[0.2, 0.5], [0.7, 0.4]])
    lay = projection_layout(ref, bits_shape=(2, 2), share_frequency=freq)
    read = (projection_soft_bits(ref, lay) > 0).mean(axis=0)  # bits as extracted, after undoing the flip
    np.testing.assert_allclose(read, freq, atol=2 / len(ref))
    median = projection_layout(ref, bits_shape=(2, 2), bipartite=False)
    np.testing.assert_allclose((projection_soft_bits(ref, median) > 0).mean(axis=0), 0.5, atol=2 / len(ref))
    with pytest.raises(ValueError, match="share_frequency"):
        projection_layout(ref, bits_shape=(2, 2), share_frequency=freq[:1])
    with pytest.raises(ValueError, match="reference"):
        projection_layout(ref[:3], bits_shape=(2, 2))


def test_extract_reads_an_image_built_along_the_directions() -> None:
    """Constructive oracle: move a grey image along each u_j to τ_j ± 0.3 for its written bit; no key is needed."""
    g = np.random.default_rng(1)
    ref = 0.5 + 0.05 * (_reference() - 0.5)
    lay = projection_layout(ref, bits_shape=(2, 2))
    for _ in range(10):
        bits = g.integers(0, 2, (2, 2)).astype(np.uint8)
        written = bits.ravel() ^ lay.flip
        x = ref[g.integers(len(ref))].ravel()
        p = (x - lay.mean) @ lay.directions.T
        target = lay.thresholds + np.where(written == 1, 0.3, -0.3)
        img = (x + (target - p) @ lay.directions).reshape(16, 16)
        assert 0 <= img.min() and img.max() <= 1
        assert np.array_equal(extract(img, layout=lay), bits)


def test_margin_guidance_stops_at_the_margin_and_its_unit_step_is_exact() -> None:
    lay = projection_layout(_reference(), bits_shape=(2, 2))
    x0 = GP.sample_x0(3, seed=5).requires_grad_(True)
    bits = torch.tensor([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1]])
    loss = projection_loss(x0, bits, lay, margin=0.2)
    (grad,) = torch.autograd.grad(loss.sum(), x0)
    moved = (x0 - grad).detach()  # ζ = 1 on x̂_0
    before = projection_soft_bits(((x0.detach()[:, 0] + 1) / 2).numpy(), lay).reshape(3, 4)
    after = projection_soft_bits(((moved[:, 0] + 1) / 2).numpy(), lay).reshape(3, 4)
    sign = 2 * bits.numpy() - 1
    violated = sign * before < 0.2
    assert violated.any() and (~violated).any()
    np.testing.assert_allclose((sign * after)[violated], 0.2, atol=1e-4)  # exactly to the margin
    np.testing.assert_allclose(after[~violated], before[~violated], atol=1e-4)  # satisfied bits untouched
    assert float(projection_loss(moved, bits, lay, margin=0.2).max()) < 1e-6


def test_embed_with_the_adaptive_layout_through_the_channel() -> None:
    prior = GaussianProcessPrior(32, length_scale=3.0)
    ref = ((prior.sample_x0(128, seed=7)[:, 0].numpy() + 1) / 2).clip(0, 1)
    lay = projection_layout(ref, bits_shape=(4, 4))
    sec = ((prior.sample_x0(4, seed=8)[:, 0].numpy() + 1) / 2).clip(0, 1)
    shares = [encode_shares(s, factor=8) for s in sec]
    stego = embed(shares, prior, steps=20, guidance=1.0, seed=0, layout=lay, margin=0.3, guide_fraction=0.9)
    acc = np.mean([(extract(distort(x, quality=75, noise=0.02, seed=i), layout=lay) == s.bits).mean()
                   for i, (x, s) in enumerate(zip(stego, shares))])
    assert acc >= 0.95
    weak = embed(shares, prior, steps=20, guidance=0.0, seed=0, layout=lay, margin=0.3)
    assert np.mean([(extract(x, layout=lay) == s.bits).mean() for x, s in zip(weak, shares)]) < 0.8
    with pytest.raises(ValueError, match="layout"):
        embed([encode_shares(s, factor=4) for s in sec], prior, steps=5, guidance=1.0, seed=0, layout=lay)
