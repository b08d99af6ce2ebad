"""[P34] RouterBias on every supported MoE class: δ = 0 is bitwise the model, δ routes as the router would with
biased logits (a hand-written router as the oracle), per-sequence δ stay apart, and bad models are refused."""

import math

import pytest
import torch
from torch.nn import functional as F

from icml26.common.models import tiny_causal_lm
from icml26.papers.moe_tta import RouterBias, moe_layers
from icml26.papers.moe_tta._adapt import logits_of

KINDS = ("olmoe", "mixtral", "qwen2moe", "tinygpt")


@pytest.mark.parametrize("kind", KINDS)
@torch.no_grad()
def test_zero_bias_is_bitwise_the_identity(models, ids, kind):
    m = models[kind]
    ref = logits_of(m, ids)
    for kw in ({}, {"layers": [0, 2]}, {"batch": 2}):
        with RouterBias(m, **kw) as rb:
            assert rb.attached and len(rb.layers) == (2 if "layers" in kw else 3)
            got = logits_of(m, ids)
        assert torch.equal(got, ref), (kind, kw)
        assert not rb.attached
    assert torch.equal(logits_of(m, ids), ref)  # hooks removed


@pytest.mark.parametrize("kind", KINDS)
def test_every_layer_is_found_with_its_experts(models, kind):
    layers = moe_layers(models[kind])
    assert [layer.index for layer in layers] == [0, 1, 2]
    assert {(layer.n_experts, layer.top_k) for layer in layers} == {(8, 2)}
    assert {layer.kind for layer in layers} == {{"mixtral": "softmax_topk_renorm", "tinygpt": "linear"}.get(
        kind, "softmax_topk")}


def _reference_route(router, h, delta, *, renorm):
    """The routing rule written out: softmax over (W h + δ), top-k, optional renormalisation."""
    logits = h @ router.weight.T + delta
    p = torch.softmax(logits.double(), -1)
    top, idx = p.topk(router.top_k, -1)
    return (top / top.sum(-1, keepdim=True) if renorm else top), idx, logits


@pytest.mark.parametrize("kind", ("olmoe", "mixtral", "qwen2moe"))
@torch.no_grad()
def test_biased_router_matches_a_hand_written_router(models, kind):
    m = models[kind]
    layer = moe_layers(m)[1]
    h = torch.randn(10, 16, generator=torch.Generator().manual_seed(2))
    delta = torch.tensor([3.0, -1.0, 0.0, 0.5, -2.0, 0.0, 1.5, 0.25])
    rb = RouterBias(m, layers=[1])
    rb.delta[0] = delta
    with rb:
        logits, top, idx = layer.router(h)
    renorm = kind == "mixtral" or bool(getattr(layer.router, "norm_topk_prob", False))
    r_top, r_idx, r_logits = _reference_route(layer.router, h, delta, renorm=renorm)
    assert torch.equal(idx, r_idx)
    torch.testing.assert_close(top.double(), r_top, rtol=1e-6, atol=1e-7)
    torch.testing.assert_close(logits, r_logits, rtol=1e-6, atol=1e-6)


@torch.no_grad()
def test_tinygpt_bias_equals_a_router_with_that_bias(make_tiny, ids):
    m, ref_model = make_tiny(), make_tiny()
    delta = torch.randn(8, generator=torch.Generator().manual_seed(3))
    blk = ref_model.blocks[1].mlp
    lin = torch.nn.Linear(16, 8, bias=True)
    lin.weight.copy_(blk.router.weight)
    lin.bias.copy_(delta)
    blk.router = lin
    rb = RouterBias(m, layers=[1])
    rb.delta[0] = delta
    with rb:
        got = m(ids)
    torch.testing.assert_close(got, ref_model(ids), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", KINDS)
@torch.no_grad()
def test_a_large_bias_forces_its_expert_into_every_top_k(models, ids, kind):
    m = models[kind]
    layer = moe_layers(m)[2]
    seen = []
    rb = RouterBias(m, layers=[2])
    rb.delta[0, 5] = 1e4
    with rb:  # the capture hook runs after the bias hook, so it sees the biased routing
        h = layer.router.register_forward_hook(lambda _m, _a, out: seen.append(out))
        try:
            logits_of(m, ids)
        finally:
            h.remove()
    out = seen[-1]
    if kind == "tinygpt":
        top = out.topk(2, dim=-1).indices
    else:
        top = out[2]
    assert (top == 5).any(dim=-1).all()


@pytest.mark.parametrize("kind", KINDS)
@torch.no_grad()
def test_per_sequence_biases_do_not_leak_across_the_batch(models, ids, kind):
    m = models[kind]
    ref = logits_of(m, ids)
    rb = RouterBias(m, batch=2)
    rb.delta[1, :, 3] = 4.0
    with rb:
        got = logits_of(m, ids)
    # the untouched sequence is the same up to float rounding (experts see a different token grouping)
    torch.testing.assert_close(got[0], ref[0], rtol=1e-5, atol=1e-6)
    assert (got[1] - ref[1]).abs().max() > 1e-3
    mask = torch.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    masked = RouterBias(m, batch=2, mask=mask)
    masked.delta[:, :, 3] = 4.0
    with masked:
        got = logits_of(m, ids)
    torch.testing.assert_close(got[1], ref[1], rtol=1e-5, atol=1e-6)
    assert (got[0] - ref[0]).abs().max() > 1e-3
    assert masked.sq_norm().tolist() == [48.0, 0.0]


def test_a_dense_model_is_refused(make_tiny):
    with pytest.raises(ValueError, match="model: .*no MoE layers"):
        RouterBias(make_tiny(n_experts=0))
    llama, _ = tiny_causal_lm(seed=0)
    with pytest.raises(ValueError, match="model: LlamaForCausalLM has no MoE layers"):
        moe_layers(llama)
    with pytest.raises(TypeError, match="model must be a torch nn.Module"):
        moe_layers("olmoe")  # type: ignore[arg-type]


def test_an_unsupported_router_class_is_refused():
    class FancyTopKRouter(torch.nn.Module):
        pass

    class Layer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = FancyTopKRouter()

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([Layer()])

    with pytest.raises(TypeError, match="FancyTopKRouter.*not supported"):
        moe_layers(Model())


@pytest.mark.parametrize(("layers", "err", "match"), [
    ([3], ValueError, r"layers: \[3\] are not MoE layers"),
    ([-1], ValueError, "layers"),
    ([0, 0], ValueError, "layers: repeated"),
    ([], ValueError, "layers must not be empty"),
    ([0.5], TypeError, "layers must hold integers"),
    ([float("nan")], TypeError, "layers"),
])
def test_wrong_layer_indices_are_refused(olmoe, layers, err, match):
    with pytest.raises(err, match=match):
        RouterBias(olmoe, layers=layers)


def test_bad_batch_and_mask_are_refused(olmoe, ids):
    with pytest.raises(TypeError, match="batch"):
        RouterBias(olmoe, batch=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mask"):
        RouterBias(olmoe, batch=2, mask=torch.ones(3, 3))
    with pytest.raises(ValueError, match="mask"):
        RouterBias(olmoe, mask=torch.ones(2, 3))
    with RouterBias(olmoe, batch=3), pytest.raises(ValueError, match="bias batch 3"):
        logits_of(olmoe, ids)


def test_attach_is_idempotent_and_remove_restores(olmoe, ids):
    rb = RouterBias(olmoe)
    rb.attach().attach()
    assert len(rb._handles) == 4  # three routers and the model's batch probe
    rb.remove()
    rb.remove()
    assert not rb.attached and not olmoe._forward_pre_hooks
    assert all(not layer.router._forward_hooks for layer in moe_layers(olmoe))


def test_sq_norm_and_reset(olmoe):
    rb = RouterBias(olmoe, layers=[1])
    with torch.no_grad():
        rb.delta.fill_(2.0)
    assert float(rb.sq_norm().detach()) == pytest.approx(4.0 * 8)
    rb.reset()
    assert float(rb.sq_norm().detach()) == 0.0 and math.isclose(float(F.relu(rb.delta.detach()).sum()), 0.0)
