"""[P11] quantize_model on a tiny transformers Llama and on TinyGPT: shapes, identity, hooks, restoration."""

import pytest
import torch
from torch.nn import functional as F

from icml26.common.models import tiny_causal_lm
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.reqat import NVFP4, fake_quant, quantize_model

IDS = torch.randint(0, 250, (2, 24), generator=torch.Generator().manual_seed(0))


@pytest.fixture(scope="module")
def llama():
    model, _ = tiny_causal_lm(seed=0)
    return model


def _tiny() -> TinyGPT:
    return TinyGPT(GPTConfig(vocab_size=16, block_size=32, n_layer=2, n_head=2, d_model=32, norm="rmsnorm",
                             mlp="swiglu", pos="rope"), seed=0)


@torch.no_grad()
def test_llama_no_quantisation_scheme_is_the_identity_and_shapes_stay(llama):
    ref = llama(IDS).logits
    with quantize_model(llama, "none", weights=True, activations=True, kv=True) as h:
        got = llama(IDS).logits
    assert got.shape == ref.shape and torch.equal(got, ref)
    assert len(h.linears) == 7 * 2 and h.attentions == 2 and "lm_head" not in h.linears


@torch.no_grad()
def test_llama_quantised_changes_the_output_and_remove_restores_it(llama):
    ref = llama(IDS).logits
    before = {k: v.clone() for k, v in llama.state_dict().items()}
    h = quantize_model(llama, NVFP4, weights=True, activations=True, kv=True)
    got = llama(IDS).logits
    assert got.shape == ref.shape and not torch.allclose(got, ref) and torch.isfinite(got).all()
    h.remove()
    h.remove()  # idempotent
    assert torch.equal(llama(IDS).logits, ref) and llama.config._attn_implementation == "sdpa"
    assert all(torch.equal(v, before[k]) for k, v in llama.state_dict().items())


@torch.no_grad()
def test_llama_linear_hook_computes_quantised_weight_times_quantised_input(llama):
    lin = llama.model.layers[0].mlp.down_proj
    seen = {}
    hook = lin.register_forward_hook(lambda m, inp, out: seen.update(x=inp[0].clone(), y=out.clone()))
    try:
        with quantize_model(llama, "mxfp4", weights=True, activations=True, kv=False):
            llama(IDS)
    finally:
        hook.remove()
    from icml26.papers.reqat import MXFP4
    want = F.linear(fake_quant(seen["x"], MXFP4, kind="activation"), fake_quant(lin.weight, MXFP4, kind="weight"))
    torch.testing.assert_close(seen["y"], want)


@torch.no_grad()
def test_llama_kv_only_and_eager_attention_agree(llama):
    with quantize_model(llama, "nvfp4", weights=False, activations=False, kv=True):
        sdpa = llama(IDS).logits
    llama.config._attn_implementation = "eager"
    try:
        with quantize_model(llama, "nvfp4", weights=False, activations=False, kv=True):
            eager = llama(IDS).logits
        assert llama.config._attn_implementation == "eager"
    finally:
        llama.config._attn_implementation = "sdpa"
    torch.testing.assert_close(sdpa, eager, atol=1e-5, rtol=1e-4)


@torch.no_grad()
def test_tinygpt_identity_quantised_and_restored():
    m = _tiny()
    x = torch.randint(0, 16, (3, 20), generator=torch.Generator().manual_seed(1))
    ref = m(x)
    with quantize_model(m, "none", weights=True, activations=True, kv=True):
        assert torch.equal(m(x), ref)
    with quantize_model(m, "nvfp4", weights=True, activations=True, kv=True) as h:
        got = m(x)
        assert len(h.linears) == 2 * 7 and h.attentions == 2
    assert got.shape == ref.shape and not torch.allclose(got, ref)
    assert torch.equal(m(x), ref)


def test_qat_gradients_reach_the_latent_weights():
    m = _tiny()
    x = torch.randint(0, 16, (2, 12), generator=torch.Generator().manual_seed(2))
    with quantize_model(m, "nvfp4", weights=True, activations=True, kv=True):
        m.loss(x, x).backward()
    grads = [p.grad for p in m.parameters()]
    assert all(g is not None and torch.isfinite(g).all() for g in grads)
    assert sum(float(g.abs().sum()) for g in grads if g is not None) > 0


def test_refusals():
    m = _tiny()
    with pytest.raises(TypeError, match="weights"):
        quantize_model(m, "nvfp4", weights=1, activations=True, kv=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scheme"):
        quantize_model(m, "int4", weights=True, activations=True, kv=True)
    with quantize_model(m, "nvfp4", weights=True, activations=False, kv=False):
        with pytest.raises(ValueError, match="already quantised"):
            quantize_model(m, "nvfp4", weights=True, activations=False, kv=False)
    with pytest.raises(ValueError, match="k_shift"):
        quantize_model(m, "nvfp4", weights=False, activations=False, kv=True, k_shift=[torch.zeros(2, 16)])
    with pytest.raises(TypeError, match="model"):
        quantize_model("model", "nvfp4", weights=True, activations=True, kv=True)  # type: ignore[arg-type]
