"""BlockMask invariants and the cumulative top-p block selection of [P30]."""

import itertools

import numpy as np
import pytest
import torch

from icml26.papers.unisparse import BlockMask, composite_tokens
from icml26.papers.unisparse._mask import select_by_mass


def test_block_mask_validation() -> None:
    eye = torch.eye(4, dtype=torch.bool)[None]
    assert BlockMask(eye, 16, 64).density == pytest.approx(4 / 10)
    assert BlockMask(eye, 16, 49).nb == 4  # ceil(49 / 16)
    with pytest.raises(ValueError, match="shape"):
        BlockMask(eye, 16, 80)
    with pytest.raises(ValueError, match="causal"):
        BlockMask(torch.ones(1, 4, 4, dtype=torch.bool), 16, 64)
    with pytest.raises(ValueError, match="without any key block"):
        BlockMask(torch.zeros(1, 4, 4, dtype=torch.bool), 16, 64)
    with pytest.raises(TypeError, match="bool tensor"):
        BlockMask(eye.int(), 16, 64)
    with pytest.raises(TypeError, match="block"):
        BlockMask(eye, True, 64)


def test_csr_and_token_mask() -> None:
    m = torch.tensor([[[1, 0, 0], [1, 1, 0], [0, 1, 1]]], dtype=torch.bool)
    bm = BlockMask(m, 2, 5)
    row_ptr, cols = bm.to_csr()
    assert row_ptr.tolist() == [0, 1, 3, 5] and cols.tolist() == [0, 0, 1, 1, 2]
    tm = bm.token_mask()[0]
    want = torch.tensor([[i >= j and m[0, i // 2, j // 2] for j in range(5)] for i in range(5)])
    assert torch.equal(tm, want)


def brute_select(s: np.ndarray, tau: float) -> np.ndarray:
    """Smallest set containing the sink and the diagonal whose normalised mass reaches tau (ties: greedy order)."""
    nb = s.shape[0]
    keep = np.zeros_like(s, dtype=bool)
    for i in range(nb):
        row = s[i, : i + 1] / s[i, : i + 1].sum()
        forced = {0, i}
        free = [j for j in range(i + 1) if j not in forced]
        for size in range(len(free) + 1):  # the fewest extra blocks
            best = max(itertools.combinations(free, size), key=lambda c: row[list(c)].sum(), default=())
            if row[list(forced)].sum() + row[list(best)].sum() >= tau - 1e-12 or size == len(free):
                keep[i, list(forced | set(best))] = True
                break
    return keep


@pytest.mark.parametrize("tau", [0.3, 0.6, 0.9, 0.99])
def test_select_by_mass_is_the_smallest_set(tau) -> None:
    g = torch.Generator().manual_seed(0)
    s = torch.rand(3, 6, 6, generator=g) ** 3
    got = select_by_mass(s, tau=tau)
    for h in range(3):
        want = brute_select(s[h].double().numpy(), tau)
        assert got[h].sum() == want.sum()  # equal size (the set is unique up to ties)
        assert np.array_equal(got[h].numpy(), want)


def test_tau_one_keeps_every_causal_block() -> None:
    s = torch.zeros(2, 5, 5)
    s[:, :, 0] = 1.0  # all mass on the sink: still every block at tau = 1
    assert torch.equal(select_by_mass(s, tau=1.0), torch.ones(2, 5, 5, dtype=torch.bool).tril())
    low = select_by_mass(s, tau=0.5)
    assert torch.equal(low, (torch.eye(5, dtype=torch.bool) | (torch.arange(5)[None, :] == 0)).expand(2, 5, 5))


def test_composite_tokens_are_means_of_runs() -> None:
    x = torch.arange(2 * 10 * 3, dtype=torch.float32).reshape(2, 10, 3)
    comp, counts = composite_tokens(x, block=4, c=2)  # 3 blocks of 4 -> 6 composites, the last one empty
    assert counts.tolist() == [2, 2, 2, 2, 2, 0]
    torch.testing.assert_close(comp[:, 1], x[:, 2:4].mean(dim=1))
    torch.testing.assert_close(comp[:, 4], x[:, 8:10].mean(dim=1))
    assert torch.all(comp[:, 5] == 0)
