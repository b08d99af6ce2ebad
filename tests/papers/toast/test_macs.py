"""[P35] MAC count: a hand count, the authors' computed GFLOPs of their DeiT schedules, torch's FLOP counter."""

import pytest
import torch
from _toast_models import hf, images, out, plain
from torch.utils.flop_counter import FlopCounterMode

from icml26.papers.toast import StructuredCoupledPruner, ViTSpec, apply_toast, vit_macs, vit_spec

TINY = ViTSpec(embed_dim=8, depth=1, num_heads=2, head_dim=4, mlp_hidden=16, num_patches=4, patch_size=2, in_chans=1,
               num_classes=3)


def test_hand_count_of_a_tiny_vit():
    # N = 5 tokens, C = 8, H = 2 heads of 4, F = 16; patches 4 · 8 · (2·2·1) = 128; classifier 8 · 3 = 24
    dense = vit_macs(TINY)
    assert dense.blocks == [{"q": 320, "k": 320, "v": 320, "o": 320, "qk": 200, "av": 200, "fc1": 640, "fc2": 640}]
    assert (dense.patch_embed, dense.classifier, dense.total) == (128, 24, 3112)
    # 2 of 4 dimensions per head, fc1 keeps ⌊8 · 0.5⌋ = 4 inputs, fc2 keeps ⌊16 · 0.75⌋ = 12
    small = vit_macs(TINY, head_keep=[2], fc1_ratios=[0.5], fc2_ratios=[0.25])
    assert small.blocks == [{"q": 160, "k": 160, "v": 160, "o": 160, "qk": 100, "av": 100, "fc1": 320, "fc2": 480}]
    assert small.total == 1792 and small.mhsa == 840 and small.ffn == 800
    assert vit_macs(TINY, head_keep=[2], vo_keep=[4]).blocks[0]["av"] == 200


def _deit(c: int, h: int) -> ViTSpec:
    return ViTSpec(embed_dim=c, depth=12, num_heads=h, head_dim=c // h, mlp_hidden=4 * c, num_patches=196,
                   patch_size=16)


@pytest.mark.parametrize(("c", "h", "fc1", "fc2", "dense_g", "toast_g"), [
    (192, 3, {11: 0.3}, {11: 0.9}, 1.254, 0.781),  # DeiT-T, the 0.8 GFLOPs schedule
    (384, 6, {11: 0.3}, {7: 0.6, 8: 0.7, 9: 0.8, 10: 0.9, 11: 0.9}, 4.599, 2.656),  # DeiT-S, 2.7 GFLOPs
    (768, 12, {11: 0.3}, {10: 0.7, 11: 0.9}, 17.564, 11.454),  # DeiT-B, 11.5 GFLOPs
])
def test_the_authors_computed_gflops_of_their_schedules(c, h, fc1, fc2, dense_g, toast_g):
    """Head sparsity 90% in blocks 1-11 (⌊0.1 d⌋ dimensions kept); the authors scale the FFN by the fractions
    (1 − r), here the kept channels are whole (⌊F (1 − r)⌋): the counts differ by under 2 MMACs."""
    spec = _deit(c, h)
    keep = [c // h] + [int(c // h * 0.1)] * 11
    r1, r2 = [fc1.get(i, 0.0) for i in range(12)], [fc2.get(i, 0.0) for i in range(12)]
    assert vit_macs(spec).total / 1e9 == pytest.approx(dense_g, abs=5e-4)
    assert vit_macs(spec, head_keep=keep, fc1_ratios=r1, fc2_ratios=r2).total / 1e9 == pytest.approx(toast_g, abs=2e-3)


@pytest.mark.parametrize("arch", ["plain", "transformers", "vitmodel"])
def test_torch_flop_counter_of_the_repacked_gathered_model(arch):
    m = {"plain": plain, "transformers": hf, "vitmodel": lambda: hf(pooler=True)}[arch]()
    p = StructuredCoupledPruner(m, 0.75)
    dense = p.repacked()
    r1, r2 = [0.0, 0.3, 0.0], [0.0, 0.5, 0.7]
    x = images(3)
    with apply_toast(dense, r1, r2, mode="gather", sample_ratio=1.0, seed=0), torch.no_grad(), \
            FlopCounterMode(display=False) as fc:
        out(dense, x)
    assert fc.get_total_flops() == 2 * 3 * vit_macs(m, head_keep=p.head_keep, fc1_ratios=r1, fc2_ratios=r2).total
    if arch != "plain":  # SDPA's FLOPs are counted apart: the dense count is read off the explicit matmuls
        m.set_attn_implementation("eager")
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        out(m, x)
    assert fc.get_total_flops() == 2 * 3 * vit_macs(m).total


def test_vit_spec_reads_both_architectures():
    a, b = vit_spec(plain()), vit_spec(hf())
    assert a == b == ViTSpec(embed_dim=32, depth=3, num_heads=4, head_dim=8, mlp_hidden=128, num_patches=16,
                             patch_size=2, in_chans=1, num_classes=10)
    assert vit_spec(hf(pooler=True)).pooler == 32 and vit_spec(hf(pooler=True)).num_classes == 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="head_keep"):
        vit_macs(TINY, head_keep=[5])
    with pytest.raises(ValueError, match="head_keep"):
        vit_macs(TINY, head_keep=[1.5])
    with pytest.raises(ValueError, match="fc2_ratios"):
        vit_macs(TINY, fc2_ratios=[0.2, 0.2])
    with pytest.raises(TypeError, match="spec"):
        vit_macs("deit_s")  # type: ignore[arg-type]
    m = plain()
    with apply_toast(m, None, [0, 0.5, 0.5], seed=0), pytest.raises(ValueError, match="spec"):
        vit_macs(m)
    with pytest.raises(ValueError, match="embed_dim"):
        ViTSpec(embed_dim=0, depth=1, num_heads=1, head_dim=1, mlp_hidden=1, num_patches=1, patch_size=1)
