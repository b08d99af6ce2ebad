"""[P11] Q-FIT: the folded transformation leaves the float model unchanged, the grid includes the identity, the
RoPE pairing is respected, and a planted key outlier and mean are reduced."""

import pytest
import torch

from icml26.common.models import tiny_causal_lm
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.reqat import kv_score_error, qfit, quantize_model
from icml26.papers.reqat._qfit import _pair_max

IDS = torch.randint(0, 250, (2, 32), generator=torch.Generator().manual_seed(0))


def _llama_with_outlier():
    model, _ = tiny_causal_lm(seed=0)
    with torch.no_grad():  # a key channel with a large scale, and a shared bias direction (a key mean)
        k = model.model.layers[0].self_attn.k_proj.weight
        k[3] *= 30.0
        k[5] += 0.2
    return model


def test_pair_max_respects_rope_pairs():
    s0 = torch.tensor([[1.0, 5.0, 2.0, 0.5]])
    assert _pair_max(s0, half=True).tolist() == [[2.0, 5.0, 2.0, 5.0]]  # pairs (r, r + d/2)
    assert _pair_max(s0, half=False).tolist() == [[5.0, 5.0, 2.0, 2.0]]  # pairs (2i, 2i + 1)


@torch.no_grad()
def test_folding_and_shift_leave_the_float_model_unchanged_llama():
    model = _llama_with_outlier()
    ref = model(IDS).logits
    res = qfit(model, IDS, scheme="nvfp4", grid=5)
    assert any(a != (0.0, 0.0) for a in res.alphas)
    with quantize_model(model, "none", weights=False, activations=False, kv=False, k_shift=res.shifts):
        torch.testing.assert_close(model(IDS).logits, ref, atol=2e-5, rtol=1e-4)
    for sc in res.scales:  # s is equal on both channels of every RoPE pair
        d = sc.shape[-1] // 2
        assert torch.equal(sc[:, :d], sc[:, d:])


@torch.no_grad()
def test_qfit_lowers_the_calibration_error_and_never_raises_it():
    model = _llama_with_outlier()
    before = kv_score_error(model, IDS)
    res = qfit(model, IDS, grid=5)
    after = kv_score_error(model, IDS, k_shift=res.shifts)
    assert res.mse_before == pytest.approx(before, rel=1e-5)
    assert res.mse_after == pytest.approx(after, rel=1e-4)
    assert all(a <= b * (1 + 1e-6) for a, b in zip(after, before))  # α = (0, 0) is on the grid
    assert after[0] < 0.5 * before[0]  # the planted outlier layer gains most


@torch.no_grad()
def test_tinygpt_folding_is_exact_with_interleaved_pairs():
    m = TinyGPT(GPTConfig(vocab_size=16, block_size=32, n_layer=2, n_head=2, d_model=32, norm="rmsnorm",
                          mlp="swiglu", pos="rope", bias=True), seed=0)
    m.blocks[0].attn.k.weight[4] *= 20.0
    m.blocks[0].attn.k.bias += 0.5
    x = torch.randint(0, 16, (3, 24), generator=torch.Generator().manual_seed(1))
    ref = m(x)
    res = qfit(m, x, grid=4)
    with quantize_model(m, "none", weights=False, activations=False, kv=False, k_shift=res.shifts):
        torch.testing.assert_close(m(x), ref, atol=2e-5, rtol=1e-4)
    assert all(torch.equal(s[:, 0::2], s[:, 1::2]) for s in res.scales)


def test_fold_false_reports_without_changing_weights():
    model = _llama_with_outlier()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    qfit(model, IDS, grid=3, fold=False)
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())


def test_refusals():
    model, _ = tiny_causal_lm(seed=0)
    with pytest.raises(TypeError, match="calib_ids"):
        qfit(model, IDS.float(), grid=3)
    with pytest.raises(ValueError, match="grid"):
        qfit(model, IDS, grid=1)
    with pytest.raises(ValueError, match="scheme"):
        qfit(model, IDS, scheme="none", grid=3)
