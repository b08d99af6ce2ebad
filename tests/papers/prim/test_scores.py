"""[P31] scores against oracles: explicit softmax loops, an explicit DCT matrix, Parseval, brute-force FLOPs plans."""

import math

import numpy as np
import pytest
from scipy.fft import dct

from icml26.papers.prim import (
    attention_flops,
    audio_novelty,
    dct_highfreq_energy,
    entropy_to_ratio,
    llm_adaptive_retention,
    plan_counts,
    text_conditioned_scores,
    video_redundancy,
)


def test_text_scores_match_a_loop():
    g = np.random.default_rng(1)
    q, k = g.standard_normal((3, 8)), g.standard_normal((10, 8))
    r = text_conditioned_scores(q, k, n_heads=2)
    ref = np.zeros(10)
    for h in range(2):
        for i in range(3):
            logit = np.array([q[i, 4 * h:4 * h + 4] @ k[j, 4 * h:4 * h + 4] / 2.0 for j in range(10)])
            p = np.exp(logit) / np.exp(logit).sum()
            ref = np.maximum(ref, p)
    np.testing.assert_allclose(r, ref, rtol=1e-12)
    one = text_conditioned_scores(q[:1], k, n_heads=1)
    assert one.sum() == pytest.approx(1.0)


def test_redundancy_static_and_first_frame():
    g = np.random.default_rng(2)
    x = np.repeat(g.standard_normal((1, 5, 7)), 4, axis=0)
    x[2, 3] = -x[1, 3]
    red = video_redundancy(x)
    assert np.all(red[0] == 0)
    assert red[1, 0] == pytest.approx(1.0) and red[2, 3] == pytest.approx(-1.0)


def test_dct_energy_oracle_and_parseval():
    g = np.random.default_rng(3)
    p = g.standard_normal((4, 3 * 4 * 4))
    e = dct_highfreq_energy(p, patch_shape=(3, 4, 4))
    x = p.reshape(4, 3, 4, 4)
    np.testing.assert_allclose(e, ((x - x.mean(axis=(2, 3), keepdims=True)) ** 2).sum(axis=(1, 2, 3)), rtol=1e-10)
    m = dct(np.eye(4), norm="ortho", axis=0)  # explicit DCT-II matrix
    c = np.einsum("ua,nkab,vb->nkuv", m, x, m)
    u, v = np.meshgrid(range(4), range(4), indexing="ij")
    ref = (c ** 2 * ((u + v) >= 3)).sum(axis=(1, 2, 3))
    np.testing.assert_allclose(dct_highfreq_energy(p, patch_shape=(3, 4, 4), cutoff=3), ref, rtol=1e-10)
    assert dct_highfreq_energy(np.ones(48), patch_shape=(3, 4, 4)) == pytest.approx(0.0, abs=1e-20)


def test_audio_novelty_flags_the_event():
    s = np.zeros((9, 4))
    s[4] = 3.0
    nov = audio_novelty(s)
    assert int(np.argmax(nov)) == 4 and nov[0] == 0


def test_entropy_map_ends():
    assert entropy_to_ratio(np.ones(16)) == 1.0
    assert entropy_to_ratio(np.array([1.0] + [1e-12] * 15)) == 0.5
    assert entropy_to_ratio(np.array([0.1, 0.2, 0.7]), levels=8) * 8 == int(entropy_to_ratio(np.array([0.1, 0.2, 0.7])) * 8)


def test_retention_keeps_the_top():
    a = np.array([[0.1, 0.5, 0.2, 0.9], [0.1, 0.5, 0.2, 0.9]])
    np.testing.assert_array_equal(llm_adaptive_retention(a, ratio=0.5), [1, 3])


@pytest.mark.parametrize("rho", [0.5, 0.625, 0.875])
@pytest.mark.parametrize("k", [20, 40, 80])
def test_plan_counts_is_the_brute_force_optimum(k, rho):
    n, L = 160, 3
    k1, k2 = plan_counts(n, k, rho, n_layer=L)
    target = attention_flops([k + 2] * L)
    assert attention_flops([k1 + 2, k2 + 2, k2 + 2]) <= target
    best = max(c for c in range(k, n + 1) if attention_flops([c + 2] + [math.ceil(rho * c - 1e-9) + 2] * 2) <= target)
    assert (k1, k2) == (best, max(1, math.ceil(rho * best - 1e-9)))
    assert plan_counts(n, k, None, n_layer=L) == (k, k)
