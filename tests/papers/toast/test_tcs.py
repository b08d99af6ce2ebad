"""[P35] TCS: the importance against a loop reference, a hand-computed block, masked == gathered, clean removal."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _toast_models import hf, images, out, plain

from icml26.papers.toast import apply_static_selection, apply_toast, channel_importance, kept_channels, vit_blocks
from icml26.papers.toast._tcs import SelectedLinear

ARCHS = {"plain": plain, "transformers": hf}


def _ref_importance(x: np.ndarray, a: np.ndarray, w: float, per_sample: bool) -> np.ndarray:
    """The TCS score over all patches, written as loops."""
    b, n, c = x.shape
    p = n - 1
    out = np.zeros((b, c)) if per_sample else np.zeros(c)
    for ch in range(c):
        if per_sample:
            for i in range(b):
                patch = sum(abs(x[i, t, ch]) * a[i, t] for t in range(1, n)) / p
                out[i, ch] = w * abs(x[i, 0, ch]) / (1 + p) + patch * p / (1 + p)
        else:
            abar = [sum(a[i, t] for i in range(b)) / b for t in range(n)]
            patch = sum(abs(x[i, t, ch]) * abar[t] for i in range(b) for t in range(1, n)) / (b * p)
            cls = sum(abs(x[i, 0, ch]) for i in range(b)) / b
            out[ch] = w * cls / (1 + p) + patch * p / (1 + p)
    return out


@pytest.mark.parametrize("per_sample", [False, True])
def test_importance_matches_the_loop_reference(per_sample):
    g = np.random.default_rng(0)
    x = g.normal(size=(3, 5, 4)).astype(np.float32)
    a = g.dirichlet(np.ones(5), size=3).astype(np.float32)
    got = channel_importance(x, a, cls_weight=2.0, sample_ratio=1.0, per_sample=per_sample, seed=0)
    np.testing.assert_allclose(got.numpy(), _ref_importance(x, a, 2.0, per_sample), rtol=1e-5)
    uniform = channel_importance(x, None, sample_ratio=1.0, per_sample=per_sample, seed=0)
    np.testing.assert_allclose(uniform.numpy(), _ref_importance(x, np.full((3, 5), 0.2), 2.0, per_sample), rtol=1e-5)


def test_the_patch_sample_has_the_stated_size_and_no_repeats():
    p = 20
    x = torch.zeros(1, p + 1, p + 1)
    x[0, torch.arange(1, p + 1), torch.arange(1, p + 1)] = 1.0  # patch t lights channel t only
    for ratio, m in ((0.02, 1), (0.2, 4), (0.5, 10), (1.0, 20)):
        imp = channel_importance(x, None, sample_ratio=ratio, seed=3)
        assert int((imp[1:] > 0).sum()) == m
    a = channel_importance(x, None, sample_ratio=0.2, seed=3)
    assert torch.equal(a, channel_importance(x, None, sample_ratio=0.2, seed=3))
    assert not torch.equal(a, channel_importance(x, None, sample_ratio=0.2, seed=4))


def test_kept_channels_counts_and_ties():
    imp = torch.tensor([1.0, 3.0, 3.0, 0.0, 2.0])
    assert kept_channels(imp, 0.0).tolist() == [0, 1, 2, 3, 4]
    assert kept_channels(imp, 0.5).tolist() == [1, 2]  # ⌊5 · 0.5⌋ = 2
    assert kept_channels(imp, 0.7).tolist() == [1]
    assert kept_channels(imp, 0.99).tolist() == [1]  # at least one; the tie goes to the lower index
    assert kept_channels(torch.stack([imp, -imp]), 0.6).tolist() == [[1, 2], [0, 3]]


def test_one_block_by_hand():
    """A 2-block PlainViT with TCS on fc2 of block 1, recomputed from its parts with the reference score."""
    m = plain(depth=2)
    x = images(4)
    with apply_toast(m, None, [0.0, 0.5], sample_ratio=1.0, seed=0):
        got = out(m, x)
    with torch.no_grad():
        h = m.patch_embed(x)
        h = torch.cat([m.cls_token.expand(4, -1, -1), h], dim=1) + m.pos_embed
        h = m.blocks[0](h)
        blk = m.blocks[1]
        a, probs = blk.attn(blk.norm1(h))
        h = h + a
        u = blk.mlp.act(blk.mlp.fc1(blk.norm2(h)))
        imp = _ref_importance(u.numpy(), probs.mean(1)[:, 0, :].numpy(), 2.0, False)
        keep = np.sort(np.argsort(-imp, kind="stable")[:64])
        mask = torch.zeros(128)
        mask[keep] = 1.0
        h = h + blk.mlp.fc2(u * mask)
        want = m.head(m.norm(h)[:, 0])
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("per_sample", [False, True])
def test_masked_and_gathered_forms_agree(arch, per_sample):
    m = ARCHS[arch]()
    x = images(5)
    res = {}
    for mode in ("mask", "gather"):
        with apply_toast(m, [0, 0.3, 0.5], [0, 0.5, 0.75], mode=mode, per_sample=per_sample, sample_ratio=0.5,
                         seed=7) as h:
            res[mode] = out(m, x)
            kept = [getattr(parent, name).last_kept for parent, name, _ in h.swapped]
            assert [k.shape[-1] for k in kept] == [22, 64, 16, 32]  # ⌊32·0.7⌋, ⌊128·0.5⌋, ⌊32·0.5⌋, ⌊128·0.25⌋
    torch.testing.assert_close(res["mask"], res["gather"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("arch", ARCHS)
def test_ratio_zero_is_a_no_op_and_remove_restores(arch):
    m = ARCHS[arch]()
    x = images()
    ref = out(m, x)
    keys = list(m.state_dict())
    with apply_toast(m, None, None, seed=0) as h:
        assert not h.swapped and torch.equal(out(m, x), ref)
    with apply_toast(m, None, [0.0, 0.5, 0.5], seed=0) as h:
        assert list(m.state_dict()) == keys  # the selected layers hold the very same parameters
        assert not torch.equal(out(m, x), ref)
        with pytest.raises(ValueError, match="already has"):
            apply_toast(m, None, [0.0, 0.5, 0.5], seed=0)
    assert all(isinstance(b.fc2, torch.nn.Linear) and not isinstance(b.fc2, SelectedLinear) for b in vit_blocks(m))
    assert torch.equal(out(m, x), ref)
    if arch == "transformers":
        assert m.config._attn_implementation == "sdpa"


def test_per_sample_selection_does_not_depend_on_the_batch():
    m = plain()
    x = images(6)
    with apply_toast(m, None, [0, 0.5, 0.5], per_sample=True, sample_ratio=1.0, seed=0):
        alone = out(m, x[:1])
        together = out(m, x)[:1]
    torch.testing.assert_close(alone, together, rtol=1e-5, atol=1e-6)


def test_tcs_trains_nothing():
    m = hf()
    before = {k: v.clone() for k, v in m.state_dict().items()}
    with apply_toast(m, [0, 0.3, 0.3], [0, 0.9, 0.9], seed=0):
        out(m, images())
    assert all(torch.equal(before[k], v) for k, v in m.state_dict().items())


def test_static_selection_zeroes_the_other_channels():
    m = plain()
    x = images()
    fc2 = vit_blocks(m)[2].fc2
    keep = [0, 5, 9]
    captured = {}
    hook = fc2.register_forward_pre_hook(lambda mod, a: captured.setdefault("u", a[0].detach()))
    out(m, x)
    hook.remove()
    with apply_static_selection(m, {(2, "fc2"): keep}) as h:
        assert h.fc2_ratios == [0.0, 0.0, 1 - 3 / 128]
        sel = vit_blocks(m)[2].fc2
        u = captured["u"]
        mask = torch.zeros(128)
        mask[keep] = 1
        torch.testing.assert_close(sel(u), F.linear(u * mask, fc2.weight, fc2.bias))
    with pytest.raises(ValueError, match="distinct channels"):
        apply_static_selection(m, {(2, "fc2"): [0, 0, 3]})
    with pytest.raises(ValueError, match="keep keys"):
        apply_static_selection(m, {(7, "fc2"): [0]})


def test_bad_arguments():
    m = plain()
    with pytest.raises(ValueError, match="fc2_ratios"):
        apply_toast(m, None, [0.5, 0.5], seed=0)
    with pytest.raises(ValueError, match="fc1_ratios"):
        apply_toast(m, [0, 1.0, 0], None, seed=0)
    with pytest.raises(ValueError, match="mode"):
        apply_toast(m, None, [0, 0.5, 0.5], mode="sparse", seed=0)
    with pytest.raises(TypeError, match="seed"):
        apply_toast(m, None, [0, 0.5, 0.5], seed=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cls_attn"):
        channel_importance(np.ones((2, 3, 4)), np.ones((2, 4)), seed=0)
    assert not any(isinstance(x, SelectedLinear) for x in m.modules())
