"""[P23] compute accounting: token_flops against torch's operation counter on the sparse inference path (a
brute-force count of every matrix product it runs), per sequence and in total, and against hand counts."""

import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from icml26.papers.anira import (
    RecurrentConfig,
    RecurrentTransformer,
    addition,
    pointer_chasing,
    sparse_forward,
    token_flops,
)

TASK = pointer_chasing(5, n_vars=(3, 9), max_hops=3, n_names=16, n_values=5, seed=4)
X, MASK = torch.from_numpy(TASK.x), torch.from_numpy(TASK.mask)


def _model(mode, halting="act", **kw):
    cfg = RecurrentConfig(vocab_sizes=TASK.vocab_sizes, n_classes=TASK.n_classes, d_model=16, n_head=2, d_ff=24,
                          max_depth=5, mode=mode, halting=halting, halt_bias=0.0, **kw)
    return RecurrentTransformer(cfg, seed=3).eval()


def _counted(model, x, mask):
    with FlopCounterMode(display=False) as fc:
        out = sparse_forward(model, x, mask)
    return out, fc.get_total_flops()


@pytest.mark.parametrize(("mode", "halting"), [("fixed", "act"), ("early", "act"), ("online", "act"),
                                               ("online", "ponder"), ("mod", "act")])
def test_token_flops_equal_the_counted_flops(mode, halting):
    model = _model(mode, halting)
    out, total = _counted(model, X, MASK)
    flops = token_flops(model.cfg, out.run, out.mask)
    assert flops.sum() == total
    for b in range(X.shape[0]):  # per sequence as well
        _, one = _counted(model, X[b:b + 1], MASK[b:b + 1])
        assert flops[b].sum() == one
    assert (flops[~TASK.mask] == 0).all() and (flops[TASK.mask] > 0).all()


def test_rope_positions_cost_no_counted_flops():
    t = addition(4, digits=(2, 5), seed=1)
    cfg = RecurrentConfig(vocab_sizes=t.vocab_sizes, n_classes=t.n_classes, d_model=16, n_head=2, d_ff=24,
                          max_depth=4, mode="online", positions="rope", halt_bias=0.0)
    model = RecurrentTransformer(cfg, seed=0).eval()
    out, total = _counted(model, torch.from_numpy(t.x), torch.from_numpy(t.mask))
    assert token_flops(cfg, out.run, out.mask).sum() == total


def test_fixed_depth_by_hand():
    d, f, C, D, n = 16, 24, 5, 3, 4
    cfg = RecurrentConfig(vocab_sizes=(16, 21), n_classes=C, d_model=d, n_head=2, d_ff=f, max_depth=5, mode="fixed",
                          depth=D)
    run = np.zeros((1, D, n), dtype=bool)
    run[:] = True
    mask = np.ones((1, n), dtype=bool)
    block = 8 * d * d + 4 * n * d + 4 * d * f  # q, k, v, o projections, attention over n keys, the MLP
    per_token = block + D * block + 2 * d * C  # prelude, D iterations (each recomputes k, v), read-out
    assert token_flops(cfg, run, mask).tolist() == [[per_token] * n]


def test_a_token_that_stops_early_pays_one_more_key_value_only():
    d, f, C, n = 16, 24, 5, 3
    cfg = RecurrentConfig(vocab_sizes=(16, 21), n_classes=C, d_model=d, n_head=2, d_ff=f, max_depth=4, mode="early")
    run = np.array([[[1, 1, 1], [0, 1, 1], [0, 0, 1]]], dtype=bool)  # depths 1, 2, 3; three iterations executed
    mask = np.ones((1, n), dtype=bool)
    pre = 8 * d * d + 4 * n * d + 4 * d * f
    it = 4 * d * d + 4 * n * d + 4 * d * f  # q and o projections, attention, MLP
    kv = 4 * d * d
    heads = 2 * d * C + 2 * d * 4  # read-out and the depth router (T = 4)
    # token 0 runs once: its key/value at iteration 1 and once more (its new state) at iteration 2, not at 3
    want = [pre + 1 * it + 2 * kv + heads, pre + 2 * it + 3 * kv + heads, pre + 3 * it + 3 * kv + heads]
    assert token_flops(cfg, run, mask).tolist() == [want]
    assert token_flops(cfg, run, mask, heads=False).tolist() == [[w - heads for w in want]]


def test_token_flops_refuses_inconsistent_masks():
    cfg = RecurrentConfig(vocab_sizes=(4,), n_classes=2, d_model=8, n_head=2, d_ff=8, max_depth=2)
    with pytest.raises(ValueError, match="run"):
        token_flops(cfg, np.ones((1, 2, 3), dtype=bool), np.array([[True, True, False]]))
    with pytest.raises(ValueError, match="disagree"):
        token_flops(cfg, np.ones((1, 2, 3), dtype=bool), np.ones((1, 4), dtype=bool))
