"""UniSparse's block scores against a loop-by-loop oracle, the baselines' patterns, and what every selector keeps."""

import math

import numpy as np
import pytest
import torch

from icml26.papers.unisparse import (
    block_attention_mass,
    flexprefill_mask,
    mass_recall,
    random_block_mask,
    streaming_mask,
    structured_qkv,
    unisparse_block_scores,
    unisparse_mask,
    vertical_slash_mask,
    xattention_mask,
)
from icml26.papers.unisparse._baselines import _lines_to_blocks
from icml26.papers.unisparse._unisparse import composite_block_scores


def oracle_scores(q, k, block, cq, ck) -> np.ndarray:
    """Composite block scores by explicit loops (float64): the [P30] equation, one composite at a time."""
    h, n, d = q.shape
    nb = math.ceil(n / block)
    qd, kd = q.double().numpy(), k.double().numpy()
    out = np.zeros((h, nb, nb))
    for head in range(h):
        comps_k = [(s, min(s + ck, n)) for s in range(0, nb * block, ck) if s < n]
        for i in range(nb):
            weights, rows = [], []
            for s in range(i * block, min((i + 1) * block, n), cq):
                e = min(s + cq, n)
                qt = qd[head, s:e].mean(axis=0)
                vis = [(a, b) for a, b in comps_k if a <= e - 1]
                logits = np.array([qt @ kd[head, a:b].mean(axis=0) / math.sqrt(d) + math.log(b - a) for a, b in vis])
                p = np.exp(logits - logits.max())
                p /= p.sum()
                row = np.zeros(nb)
                for (a, _), pv in zip(vis, p):
                    row[a // block] += pv
                rows.append(row)
                weights.append(e - s)
            out[head, i] = np.average(rows, axis=0, weights=weights)
    return out


@pytest.mark.parametrize(("n", "block", "cq", "ck"), [(64, 16, 4, 4), (50, 16, 8, 4), (37, 8, 2, 8)])
def test_composite_scores_match_the_oracle(n, block, cq, ck) -> None:
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, n, 8, generator=g) * 2, torch.randn(2, n, 8, generator=g) * 2
    got = composite_block_scores(q, k, block=block, cq=cq, ck=ck)
    np.testing.assert_allclose(got.double().numpy(), oracle_scores(q, k, block, cq, ck), atol=1e-5)
    np.testing.assert_allclose(got.sum(dim=-1).numpy(), 1.0, atol=1e-5)


def test_multi_granularity_is_the_renormalised_maximum() -> None:
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(2, 96, 8, generator=g), torch.randn(2, 96, 8, generator=g)
    fine = composite_block_scores(q, k, block=32, cq=8, ck=8)
    coarse = composite_block_scores(q, k, block=32, cq=32, ck=32)
    want = torch.maximum(fine, coarse)
    want = want / want.sum(dim=-1, keepdim=True)
    torch.testing.assert_close(unisparse_block_scores(q, k, block=32, cq=8, ck=8, granularities=(1, 4)), want)


def test_a_planted_needle_block_is_found() -> None:
    g = torch.Generator().manual_seed(2)
    n, block, d = 512, 32, 16
    q, k = torch.randn(1, n, d, generator=g) * 0.1, torch.randn(1, n, d, generator=g) * 0.1
    u = torch.nn.functional.normalize(torch.randn(d, generator=g), dim=0)
    k[0, 3 * 32 + 5: 3 * 32 + 12] += 6 * u  # a needle in key block 3
    q[0, 12 * 32: 13 * 32] += 6 * u  # query block 12 asks for it
    m = unisparse_mask(q, k, block=block, cq=8, ck=8, tau=0.5)
    assert m.blocks[0, 12, 3] and m.blocks[0, 12].sum() <= 4
    assert float(mass_recall(m, block_attention_mass(q, k, block=block))) > 0.6


SELECTORS = {
    "unisparse": lambda q, k: unisparse_mask(q, k, block=32, cq=8, ck=8, tau=0.7),
    "streaming": lambda q, k: streaming_mask(q, k, block=32, window_blocks=2),
    "vertical_slash": lambda q, k: vertical_slash_mask(q, k, block=32, vertical=8, slash=16),
    "xattention": lambda q, k: xattention_mask(q, k, block=32, stride=8, tau=0.7),
    "flexprefill": lambda q, k: flexprefill_mask(q, k, block=32, gamma=0.7),
    "random": lambda q, k: random_block_mask(q, k, block=32, density=0.3, seed=0),
}


@pytest.mark.parametrize("name", SELECTORS)
def test_every_selector_keeps_sink_and_diagonal_and_handles_gqa(name) -> None:
    q, k, _ = structured_qkv(4, 300, 32, seed=3)
    m = SELECTORS[name](q, k[::2])  # 4 query heads over 2 key heads
    assert m.heads == 4 and m.n == 300 and m.nb == 10
    eye = torch.eye(10, dtype=torch.bool)
    assert bool(m.blocks[:, eye].all()) and bool(m.blocks[:, :, 0].all())
    assert torch.equal(m.blocks, SELECTORS[name](q, k[::2]).blocks)  # deterministic


@pytest.mark.parametrize("name", ["unisparse", "xattention"])
def test_threshold_one_keeps_everything(name) -> None:
    q, k, _ = structured_qkv(2, 200, 16, seed=4)
    fn = unisparse_mask if name == "unisparse" else xattention_mask
    assert fn(q, k, block=32, tau=1.0, **({"cq": 8, "ck": 8} if name == "unisparse" else {})).density == 1.0


def test_streaming_pattern() -> None:
    q = torch.zeros(1, 160, 4)
    m = streaming_mask(q, q, block=32, sink_blocks=1, window_blocks=2).blocks[0]
    want = torch.tensor([[j == 0 or 0 <= i - j < 2 for j in range(5)] for i in range(5)]) & torch.ones(5, 5).tril().bool()
    assert torch.equal(m, want)


def test_random_blocks_hit_the_density_and_follow_the_seed() -> None:
    q = torch.zeros(3, 640, 4)
    a, b, c = (random_block_mask(q, q, block=32, density=0.4, seed=s) for s in (0, 0, 1))
    assert torch.equal(a.blocks, b.blocks) and not torch.equal(a.blocks, c.blocks)
    assert a.density_per_head().tolist() == pytest.approx([round(0.4 * 210) / 210] * 3)


@pytest.mark.parametrize("n", [64, 70])
def test_lines_cross_the_blocks_brute_force_finds(n) -> None:
    """Exact for whole blocks; a short last block may be marked crossed by a slash that passes just after its end."""
    g = torch.Generator().manual_seed(5)
    b = 16
    nb = math.ceil(n / b)
    vert, slash = torch.rand(2, n, generator=g) < 0.05, torch.rand(2, n, generator=g) < 0.05
    got = _lines_to_blocks(vert, slash, nb, b)
    want = torch.zeros(2, nb, nb, dtype=torch.bool)
    for h in range(2):
        for r in range(n):
            for c in range(r + 1):
                if vert[h, c] or slash[h, r - c]:
                    want[h, r // b, c // b] = True
    assert not bool((want & ~got).any())
    extra = torch.nonzero(got & ~want)
    assert (n % b == 0 and extra.numel() == 0) or bool((extra[:, 1] == nb - 1).all())


def test_bad_selector_arguments() -> None:
    q = torch.randn(2, 64, 8)
    with pytest.raises(ValueError, match="granularities"):
        unisparse_mask(q, q, block=32, cq=8, ck=8, granularities=(3,))
    with pytest.raises(ValueError, match="stride"):
        xattention_mask(q, q, block=32, stride=5)
    with pytest.raises(ValueError, match="tau"):
        unisparse_mask(q, q, block=32, cq=8, ck=8, tau=1.5)
    with pytest.raises(ValueError, match="q and k"):
        unisparse_mask(q, q[:, :32], block=32, cq=8, ck=8)
