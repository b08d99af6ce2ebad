"""[P34] generate_with_rerouting: zero steps is plain greedy decoding, the fit schedule, weights and hooks left as
they were; the full-TTT baseline restores the weights."""

import pytest
import torch

from icml26.papers.moe_tta import generate_with_full_ttt, generate_with_rerouting, moe_layers
from icml26.papers.moe_tta._adapt import logits_of
from icml26.papers.moe_tta._generate import greedy

KINDS = ("olmoe", "mixtral", "tinygpt")


@pytest.mark.parametrize("kind", KINDS)
def test_without_steps_it_is_greedy_decoding(models, ids, kind):
    m = models[kind]
    ref = greedy(m, ids, 9)
    out = generate_with_rerouting(m, ids, max_new_tokens=9, refit_every=4, steps=0, k=1)
    assert torch.equal(out.ids, ref) and out.fits == 3  # prefill + after 4 and 8 tokens


@pytest.mark.parametrize("kind", KINDS)
def test_greedy_matches_a_manual_argmax_loop(models, ids, kind):
    m = models[kind]
    x = ids
    with torch.no_grad():
        for _ in range(5):
            x = torch.cat([x, logits_of(m, x)[:, -1].argmax(-1, keepdim=True)], dim=1)
    assert torch.equal(greedy(m, ids, 5), x)


@pytest.mark.parametrize("kind", KINDS)
def test_rerouting_leaves_the_model_as_it_was(models, ids, kind):
    m = models[kind]
    before = {k: v.clone() for k, v in m.state_dict().items()}
    with torch.no_grad():
        ref = logits_of(m, ids)
    out = generate_with_rerouting(m, ids, max_new_tokens=6, refit_every=3, steps=2, lr=0.5, l2=0.0)
    assert out.ids.shape == (2, ids.shape[1] + 6) and torch.equal(out.ids[:, : ids.shape[1]], ids)
    assert out.fits == 2 and len(out.losses) == 2 and all(len(v) == 2 for v in out.losses)
    assert len(out.layers) == 2 and all(len(s) == 2 for s in out.layers)  # half of 3 layers, rounded up
    assert all(torch.equal(v, before[k]) for k, v in m.state_dict().items())
    assert all(not layer.router._forward_hooks for layer in moe_layers(m))
    with torch.no_grad():
        assert torch.equal(logits_of(m, ids), ref)


def test_an_eos_stops_generation(tiny, ids):
    first = int(greedy(tiny, ids[:1], 1)[0, -1])
    out = generate_with_rerouting(tiny, ids[:1], max_new_tokens=20, refit_every=5, steps=0, eos_token_id=first)
    assert out.ids.shape[1] == ids.shape[1] + 5 and out.fits == 1


def test_the_full_ttt_baseline_restores_the_weights(olmoe, ids):
    before = {k: v.clone() for k, v in olmoe.state_dict().items()}
    out = generate_with_full_ttt(olmoe, ids[:1], max_new_tokens=4, refit_every=2, steps=2, lr=1e-2)
    assert out.shape == (1, ids.shape[1] + 4)
    assert all(torch.equal(v, before[k]) for k, v in olmoe.state_dict().items())
    assert all(p.grad is None for p in olmoe.parameters())


@pytest.mark.parametrize(("kw", "err", "match"), [
    ({"max_new_tokens": -1}, ValueError, "max_new_tokens"), ({"refit_every": 0}, ValueError, "refit_every"),
    ({"k": 9}, ValueError, "k must be"), ({"lr": float("inf")}, ValueError, "lr"),
    ({"by": "random"}, ValueError, "by must be one of"), ({"eos_token_id": -3}, ValueError, "eos_token_id"),
])
def test_bad_arguments_are_refused(olmoe, ids, kw, err, match):
    args = {"max_new_tokens": 3, **kw}
    with pytest.raises(err, match=match):
        generate_with_rerouting(olmoe, ids, **args)
