"""[P34] adapt and select_layers: only δ gets gradients, the gradient matches finite differences, batched per-sequence
fits equal separate fits, and the confidence ranking matches an entropy computed by hand."""

import math

import numpy as np
import pytest
import torch

from icml26.papers.moe_tta import RouterBias, adapt, context_ce, moe_layers, routing_stats, select_layers

KINDS = ("olmoe", "mixtral", "qwen2moe", "tinygpt")


@pytest.mark.parametrize("kind", KINDS)
def test_only_delta_receives_gradients_and_the_weights_stay(models, ids, kind):
    m = models[kind]
    before = {k: v.clone() for k, v in m.state_dict().items()}
    flags = [p.requires_grad for p in m.parameters()]
    res = adapt(m, ids, layers=[0, 2], steps=4, lr=0.1, l2=1e-3)
    try:
        assert res.bias.attached and res.bias.delta.grad is not None
        assert float(res.bias.delta.detach().abs().sum()) > 0
        assert all(p.grad is None for p in m.parameters())
        assert [p.requires_grad for p in m.parameters()] == flags
        assert all(torch.equal(v, before[k]) for k, v in m.state_dict().items())
        assert len(res.losses) == 4 and len(res.ce_start) == 2
    finally:
        res.bias.remove()


def test_the_delta_gradient_matches_finite_differences(make_tiny, ids):
    m = make_tiny(dtype=torch.float64)
    rb = RouterBias(m, layers=[0, 1]).attach()
    # a float64 δ on the float64 model, so that central differences are accurate to ~1e-9
    rb.delta = torch.nn.Parameter(0.3 * torch.randn(rb.delta.shape, dtype=torch.float64,
                                                    generator=torch.Generator().manual_seed(4)))
    lam = 1e-2

    def objective() -> torch.Tensor:
        return context_ce(m, ids).mean() + lam * rb.sq_norm()

    try:
        rb.delta.grad = None
        objective().backward()
        grad = rb.delta.grad.clone()
        h = 1e-5
        for j, e in ((0, 0), (0, 5), (1, 3), (1, 7)):
            with torch.no_grad():
                rb.delta[j, e] += h
                up = float(objective())
                rb.delta[j, e] -= 2 * h
                down = float(objective())
                rb.delta[j, e] += h
            assert grad[j, e].item() == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-8)
    finally:
        rb.remove()


def test_batched_per_sequence_fits_equal_separate_fits(olmoe, ids):
    together = adapt(olmoe, ids, layers=[1, 2], steps=5, lr=0.1, l2=1e-3, per_sample=True)
    d_batch = together.bias.delta.detach().clone()
    together.bias.remove()
    for b in range(2):
        alone = adapt(olmoe, ids[b : b + 1], layers=[1, 2], steps=5, lr=0.1, l2=1e-3)
        alone.bias.remove()
        # δ moves by up to lr per step; float32 rounding of the batched pass stays far below that
        torch.testing.assert_close(d_batch[b], alone.bias.delta.detach(), rtol=1e-3, atol=1e-4)
    assert float(d_batch.abs().max()) > 0.02


def test_fitting_lowers_the_context_loss(olmoe, ids):
    res = adapt(olmoe, ids, steps=25, lr=0.1, l2=0.0)
    try:
        with torch.no_grad():
            after = float(context_ce(olmoe, ids).mean())
        assert after < res.losses[0]
    finally:
        res.bias.remove()


def test_warm_start_continues_from_the_given_bias(olmoe, ids):
    first = adapt(olmoe, ids, layers=[0], steps=3, lr=0.1, l2=1e-3)
    d1 = first.bias.delta.detach().clone()
    second = adapt(olmoe, ids, bias=first.bias, steps=0)
    assert second.bias is first.bias and torch.equal(second.bias.delta.detach(), d1)
    first.bias.remove()
    other = RouterBias(olmoe)
    with pytest.raises(TypeError, match="bias must be a RouterBias"):
        adapt(olmoe, ids, bias="delta")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bias batch"):
        adapt(olmoe, ids, bias=RouterBias(olmoe, batch=3))
    del other


def _router_logits(model, ids):
    seen = {}
    hooks = [layer.router.register_forward_hook(lambda _m, _a, out, i=layer.index: seen.__setitem__(i, out))
             for layer in moe_layers(model)]
    with torch.no_grad():
        model(ids)
    for h in hooks:
        h.remove()
    return seen


def test_routing_entropy_by_hand_and_the_selection(make_tiny, ids):
    m = make_tiny()
    with torch.no_grad():
        m.blocks[0].mlp.router.weight.zero_()  # uniform routing: entropy log 8, top-2 mass 2/8, by hand
        m.blocks[2].mlp.router.weight.mul_(40.0)  # very peaked routing
    st = routing_stats(m, ids)
    assert st["layers"].tolist() == [0, 1, 2]
    assert st["entropy"][0] == pytest.approx(math.log(8), abs=1e-6) and st["topk_mass"][0] == pytest.approx(0.25)
    logits = _router_logits(m, ids)
    for i in range(3):
        p = torch.softmax(logits[i].double(), -1).numpy()
        hand = float(np.mean(-(p * np.log(p)).sum(-1)))
        mass = float(np.mean(np.sort(p, -1)[..., -2:].sum(-1)))
        assert st["entropy"][i] == pytest.approx(hand, rel=1e-5)
        assert st["topk_mass"][i] == pytest.approx(mass, rel=1e-5)
    assert st["entropy"][2] < st["entropy"][1] < st["entropy"][0]
    assert select_layers(m, ids, k=1) == [2]
    assert select_layers(m, ids, k=2) == [1, 2]
    assert select_layers(m, ids, k=1, by="topk_mass") == [2]
    per = select_layers(m, ids, k=1, per_sample=True)
    assert per == [[2], [2]]


def test_ties_go_to_the_lower_layer(make_tiny, ids):
    m = make_tiny()
    with torch.no_grad():
        for b in m.blocks:
            b.mlp.router.weight.zero_()
    assert select_layers(m, ids, k=1) == [0] and select_layers(m, ids, k=2) == [0, 1]


@pytest.mark.parametrize(("kw", "err", "match"), [
    ({"k": 0}, ValueError, "k must be"), ({"k": 4}, ValueError, "k must be"), ({"k": True}, TypeError, "k must"),
    ({"k": 1, "by": "confidence"}, ValueError, "by must be one of"),
])
def test_select_layers_refuses_bad_arguments(olmoe, ids, kw, err, match):
    with pytest.raises(err, match=match):
        select_layers(olmoe, ids, **kw)


@pytest.mark.parametrize(("kw", "err", "match"), [
    ({"lr": float("nan")}, ValueError, "lr must be finite"), ({"lr": 0.0}, ValueError, "lr must be in"),
    ({"l2": -1.0}, ValueError, "l2 must be in"), ({"steps": -1}, ValueError, "steps"),
    ({"layers": [7]}, ValueError, "layers"), ({"ids": torch.full((1, 5), 40)}, ValueError, "ids: token ids"),
    ({"ids": torch.zeros(1, 1, dtype=torch.long)}, ValueError, "at least 2 tokens"),
    ({"ids": torch.rand(1, 5)}, TypeError, "ids must hold integer"),
])
def test_adapt_refuses_bad_arguments(olmoe, ids, kw, err, match):
    args = {"ids": ids, **kw}
    with pytest.raises(err, match=match):
        adapt(olmoe, **args)
    assert all(not layer.router._forward_hooks for layer in moe_layers(olmoe))


def test_a_dense_model_cannot_be_adapted(make_tiny, ids):
    with pytest.raises(ValueError, match="no MoE layers"):
        adapt(make_tiny(n_experts=0), ids)
    with pytest.raises(ValueError, match="no MoE layers"):
        select_layers(make_tiny(n_experts=0), ids, k=1)
