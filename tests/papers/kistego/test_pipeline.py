"""[P22] pipeline on the analytic GP prior: embedding, key-free extraction, reconstruction, baselines, metrics."""

import numpy as np
import pytest
import torch
from scipy.ndimage import uniform_filter

from icml26.papers.kistego import (
    GaussianProcessPrior,
    cnn_auc,
    ddim_invert,
    descreen,
    distort,
    embed,
    encode_shares,
    extract,
    guided_sample,
    jpeg_like,
    keyed_hide,
    keyed_reveal,
    logistic_auc,
    psnr,
    reconstruct,
    ssim,
)

GP = GaussianProcessPrior(32, length_scale=3.0)


def _secrets(n: int, seed: int) -> np.ndarray:
    return ((GP.sample_x0(n, seed=seed)[:, 0].numpy() + 1) / 2).clip(0, 1)


def test_embed_then_extract_recovers_the_shares_through_the_channel() -> None:
    sec = _secrets(4, 1)
    shares = [encode_shares(s, factor=4) for s in sec]
    stego = embed(shares, GP, steps=20, guidance=4.0, seed=0)
    assert stego.shape == (4, 32, 32) and stego.min() >= 0 and stego.max() <= 1
    for x, s in zip(stego, shares):
        assert (extract(x) == s.bits).mean() >= 0.98
        assert (extract(distort(x, quality=75, noise=0.02, seed=3)) == s.bits).mean() >= 0.95
    # the channel is not a no-op: a harsh setting of the same chain does break the shares
    harsh = np.mean([(extract(distort(x, quality=5, noise=0.4, seed=3)) == s.bits).mean() for x, s in zip(stego, shares)])
    assert harsh < 0.9
    again = embed(shares, GP, steps=20, guidance=4.0, seed=0)
    np.testing.assert_array_equal(stego, again)  # deterministic for a seed
    plain = guided_sample(GP, n=4, steps=20, seed=0)
    assert np.mean([(extract((p[0].numpy() + 1) / 2) == s.bits).mean() for p, s in zip(plain, shares)]) < 0.8


def test_reconstruct_follows_the_shares() -> None:
    sec = _secrets(4, 2)
    bits = np.stack([encode_shares(s, factor=4).bits for s in sec])
    rec = reconstruct(bits, GP, steps=30, seed=0, guidance=4.0, sigma=0.7, samples=2)
    assert rec.shape == (4, 32, 32)
    unguided = reconstruct(bits, GP, steps=30, seed=0, guidance=0.0)
    assert np.mean([psnr(r, s) for r, s in zip(rec, sec)]) > np.mean([psnr(u, s) for u, s in zip(unguided, sec)]) + 1
    assert reconstruct(bits[0], GP, steps=5, seed=0).shape == (32, 32)
    with pytest.raises(ValueError, match="bits"):
        reconstruct(bits[:, :3, :3], GP, steps=5, seed=0)


def test_ddim_inversion_round_trip_and_the_key() -> None:
    """With the exact GP score the DDIM ODE is nearly invertible: right key recovers the secret, a wrong one not.
    (A GP with a small scale keeps every generated image inside [0, 1], where no clipping breaks the ODE.)"""
    gp = GaussianProcessPrior(32, length_scale=3.0, scale=0.2)
    sec = ((gp.sample_x0(3, seed=4)[:, 0].numpy() + 1) / 2).clip(0, 1)
    z = ddim_invert(gp, torch.as_tensor(sec, dtype=torch.float32)[:, None] * 2 - 1, steps=100)
    back = guided_sample(gp, n=3, steps=100, seed=0, eta=0.0, x_T=z)
    assert np.abs((back[:, 0].numpy() + 1) / 2 - sec).mean() < 0.02
    stego = keyed_hide(sec, gp, key=5, steps=100)
    right = keyed_reveal(stego, gp, key=5, steps=100)
    wrong = keyed_reveal(stego, gp, key=6, steps=100)
    def corr(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])

    assert min(corr(r, s) for r, s in zip(right, sec)) > 0.8
    assert max(abs(corr(w, s)) for w, s in zip(wrong, sec)) < 0.3


def test_fixed_point_inversion_is_the_exact_inverse_of_the_unclipped_sampler() -> None:
    gp = GaussianProcessPrior(16, length_scale=2.0)
    x0 = gp.sample_x0(3, seed=9)
    errs = {}
    for its in (0, 4, 10):
        z = ddim_invert(gp, x0, steps=50, iterations=its)
        back = guided_sample(gp, n=3, steps=50, seed=0, eta=0.0, x_T=z, clip=False)
        errs[its] = float((back - x0).abs().max())
    # the usual inversion (0 refinements) drifts; the fixed point converges to the sampler's exact inverse
    assert errs[10] < errs[4] < errs[0] / 4 and errs[10] < 0.01


def test_metrics_against_references() -> None:
    g = np.random.default_rng(0)
    a, b = g.random((16, 16)), g.random((16, 16))
    assert psnr(a, b) == pytest.approx(-10 * np.log10(np.mean((a - b) ** 2)))
    assert ssim(a, a) == pytest.approx(1.0)
    assert ssim(a, b) < 0.2
    # a brute-force SSIM with a uniform window (sigma huge -> Gaussian ~ flat over the 7 x 7 window)
    f = lambda x: uniform_filter(x, 7, mode="reflect")  # noqa: E731
    mu_a, mu_b = f(a), f(b)
    cov = f(a * b) - mu_a * mu_b
    ref = ((2 * mu_a * mu_b + 1e-4) * (2 * cov + 9e-4)) / (
        (mu_a**2 + mu_b**2 + 1e-4) * (f(a * a) - mu_a**2 + f(b * b) - mu_b**2 + 9e-4))
    assert ssim(a, b, sigma=1e6, radius=3) == pytest.approx(float(ref.mean()), abs=1e-6)


def test_channel_and_descreening() -> None:
    x = np.full((16, 16), 0.4)
    np.testing.assert_allclose(jpeg_like(x, quality=75), np.round(0.4 * 255 - 128 + 128) / 255, atol=1 / 255)
    y = np.random.default_rng(1).random((16, 16))
    assert np.abs(jpeg_like(y, quality=100) - y).max() < 3 / 255
    assert np.abs(jpeg_like(y, quality=10) - y).mean() > np.abs(jpeg_like(y, quality=90) - y).mean()
    np.testing.assert_allclose(descreen(np.ones((4, 4)), factor=4, method="median", size=3), 1.0)
    assert descreen(np.eye(4), factor=2, size=1.0).shape == (8, 8)


def test_steganalysis_detects_a_planted_pattern_and_not_noise() -> None:
    g = np.random.default_rng(0)
    covers = g.random((40, 16, 16)) * 0.5 + 0.25
    same = g.random((40, 16, 16)) * 0.5 + 0.25
    marked = same.copy()
    marked[:, :, ::2] += 0.1
    assert logistic_auc(covers, marked, seed=0) > 0.95
    assert abs(logistic_auc(covers, same, seed=0) - 0.5) < 0.2
    assert cnn_auc(covers, marked, epochs=5, seed=0) > 0.9  # scored on the half it was not trained on
