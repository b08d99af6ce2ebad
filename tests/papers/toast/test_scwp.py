"""[P35] SCWP: tied per-head masks, masked == dense at sparsity 0, masks kept through optimiser steps, re-packing."""

import pytest
import torch
from _toast_models import hf, images, out, plain

from icml26.papers.toast import StructuredCoupledPruner, fit, head_importance, vit_blocks
from icml26.papers.toast._scwp import keep_count

ARCHS = {"plain": plain, "transformers": hf}


@pytest.mark.parametrize("arch", ARCHS)
def test_sparsity_zero_changes_nothing(arch):
    m = ARCHS[arch]()
    before = {k: v.clone() for k, v in m.state_dict().items()}
    x = images()
    ref = out(m, x)
    p = StructuredCoupledPruner(m, 0.0)
    assert all(torch.equal(before[k], v) for k, v in m.state_dict().items())
    assert torch.equal(out(m, x), ref) and p.pruned_fraction == 0.0 and p.head_keep == [8, 8, 8]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("coupling", ["coupled", "average", "q_only", "k_only"])
def test_masks_are_tied_uniform_per_head_and_zero_the_weights(arch, coupling):
    m = ARCHS[arch]()
    p = StructuredCoupledPruner(m, 0.75, coupling=coupling)
    assert p.head_keep == [8, 2, 2] and sorted(p.kept) == [1, 2]  # block 0 is left dense
    for b in vit_blocks(m):
        if b.index == 0:
            continue
        kept = p.kept[b.index]
        assert torch.equal(kept["q"], kept["k"]) and torch.equal(kept["v"], kept["o"])
        for r in ("q", "v"):
            assert torch.bincount(kept[r] // 8, minlength=4).tolist() == [2, 2, 2, 2]
        pruned = sorted(set(range(32)) - set(kept["q"].tolist()))
        for role in ("q", "k"):
            lin, off = b.attn.linear(role), b.attn.offset(role)
            assert torch.all(lin.weight[[off + i for i in pruned]] == 0)
            assert torch.all(lin.bias[[off + i for i in pruned]] == 0)
            assert torch.all(lin.weight[[off + i for i in kept["q"].tolist()]].abs().sum(1) > 0)
        o_pruned = sorted(set(range(32)) - set(kept["o"].tolist()))
        assert torch.all(b.attn.linear("o").weight[:, o_pruned] == 0)


def test_kept_dimensions_are_the_top_scores_of_each_head():
    m = plain()
    attn = vit_blocks(m)[1].attn
    w, o = attn.linear("q").weight.detach().clone(), attn.linear("o").weight.detach().clone()
    p = StructuredCoupledPruner(m, 0.5, score="gm", coupling="coupled")
    for h in range(4):
        sl = slice(8 * h, 8 * h + 8)
        s = head_importance(w[sl], w[32:64][sl], w[64:96][sl], o[:, sl].T)
        top_qk = torch.sort(torch.argsort(s.q, descending=True)[:4]).values + 8 * h
        top_vo = torch.sort(torch.argsort(s.v, descending=True)[:4]).values + 8 * h
        assert p.kept[1]["q"][4 * h:4 * h + 4].tolist() == top_qk.tolist()
        assert p.kept[1]["v"][4 * h:4 * h + 4].tolist() == top_vo.tolist()


def test_independent_masks_are_not_tied_and_cannot_be_repacked():
    m = plain(seed=3)
    p = StructuredCoupledPruner(m, 0.5, coupling="independent")
    assert any(not torch.equal(p.kept[b]["q"], p.kept[b]["k"]) for b in p.kept)
    with pytest.raises(ValueError, match="tied coupling"):
        p.repacked()


def test_masks_survive_optimiser_steps():
    m = plain()
    p = StructuredCoupledPruner(m, 0.5, coupling="independent")  # untied masks: the gradients would revive them
    x = images(32)
    y = torch.arange(32) % 10
    before = {k: v.clone() for k, v in m.state_dict().items()}
    fit(m, x, y, epochs=3, lr=1e-2, batch_size=8, weight_decay=0.0, seed=0, pruner=p)
    for param, keep in p.masks:
        assert torch.all(param[~keep] == 0)
    moved = [k for k, v in m.state_dict().items() if not torch.equal(before[k], v)]
    assert "blocks.1.attn.qkv.weight" in moved and "blocks.0.attn.qkv.weight" in moved  # training did happen
    # without the masks re-applied, AdamW revives pruned weights: the hook is what keeps them at zero
    fit(m, x, y, epochs=1, lr=1e-2, batch_size=8, weight_decay=0.0, seed=0)
    assert any(torch.any(param[~keep] != 0) for param, keep in p.masks)


def test_coupled_zeros_stay_zero_under_gradient_steps():
    """With Q and K rows (V rows and O columns) zero together, their gradients vanish: a coupled mask is a fixed
    point of gradient descent even without re-applying it."""
    m = plain()
    p = StructuredCoupledPruner(m, 0.5)
    fit(m, images(32), torch.arange(32) % 10, epochs=2, lr=1e-2, batch_size=8, weight_decay=0.0, seed=0)
    assert all(torch.all(param[~keep] == 0) for param, keep in p.masks)


def test_attach_hooks_a_plain_optimizer_and_detaches():
    m = plain()
    p = StructuredCoupledPruner(m, 0.5, coupling="independent")
    opt = torch.optim.SGD(m.parameters(), lr=1.0)
    handle = p.attach(opt)
    out(m, images()).sum().backward()
    opt.step()
    assert all(torch.all(param[~keep] == 0) for param, keep in p.masks)
    handle.remove()
    opt.step()
    assert any(torch.any(param[~keep] != 0) for param, keep in p.masks)
    with pytest.raises(TypeError, match="optimizer"):
        p.attach("sgd")  # type: ignore[arg-type]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("sparsity", [0.5, 0.75, 0.875])
def test_repacked_model_equals_the_masked_one(arch, sparsity):
    m = ARCHS[arch](seed=1)
    p = StructuredCoupledPruner(m, sparsity)
    dense = p.repacked().eval()
    x = images(5)
    with torch.no_grad():
        torch.testing.assert_close(out(dense, x), out(m, x), rtol=1e-5, atol=1e-5)
    keep = keep_count(8, sparsity)
    for b in vit_blocks(dense)[1:]:
        assert b.attn.head_dim == keep and b.attn.linear("o").in_features == 4 * keep
        assert b.attn.linear("q").out_features == (3 if b.attn.fused else 1) * 4 * keep
    assert vit_blocks(dense)[0].attn.head_dim == 8
    # the original is untouched by re-packing
    assert vit_blocks(m)[1].attn.head_dim == 8


def test_repacking_after_fine_tuning_and_on_a_vit_model_with_pooler():
    m = hf(pooler=True)
    p = StructuredCoupledPruner(m, 0.5)
    x = images(4)
    with torch.no_grad():
        torch.testing.assert_close(out(p.repacked(), x), out(m, x), rtol=1e-5, atol=1e-5)
    m2 = plain()
    p2 = StructuredCoupledPruner(m2, 0.5)
    fit(m2, images(16), torch.arange(16) % 10, epochs=2, lr=5e-3, batch_size=8, weight_decay=0.01, seed=1, pruner=p2)
    with torch.no_grad():
        torch.testing.assert_close(out(p2.repacked(), x), out(m2, x), rtol=1e-5, atol=1e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="sparsity"):
        StructuredCoupledPruner(plain(), 0.95)  # keeps no dimension of an 8-dimensional head
    with pytest.raises(ValueError, match="sparsity"):
        StructuredCoupledPruner(plain(), 1.0)
    with pytest.raises(TypeError, match="model"):
        StructuredCoupledPruner(torch.nn.Linear(3, 3), 0.5)
    with pytest.raises(ValueError, match="score"):
        StructuredCoupledPruner(plain(), 0.5, score="taylor")
    with pytest.raises(TypeError, match="skip_first_block"):
        StructuredCoupledPruner(plain(), 0.5, skip_first_block=1)  # type: ignore[arg-type]
    p = StructuredCoupledPruner(plain(), 0.5, skip_first_block=False)
    assert p.head_keep == [4, 4, 4]
