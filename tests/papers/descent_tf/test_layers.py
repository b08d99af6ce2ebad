"""Per-layer states and readout losses of [P07] against manual forwards and transformers' own hidden_states."""

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from icml26.common.nn import GPTConfig, TinyGPT, blocks_of
from icml26.papers.descent_tf import (
    LISTA,
    DescentConstrainedTrainer,
    EncoderLayers,
    TinyGPTLayers,
    TokenReadout,
    bert_encoder,
    perturbed_state,
)

G = torch.Generator().manual_seed(0)


def _gpt(**kw):
    return TinyGPT(GPTConfig(vocab_size=11, block_size=6, n_layer=3, n_head=2, d_model=8, **kw), seed=1).eval()


def _manual_gpt_states(gpt, h):
    pos = torch.arange(h.shape[1])
    states = [h]
    for blk in blocks_of(gpt):
        h = blk(h, pos)
        states.append(h)
    return states


def _ce(pred, y):
    return F.cross_entropy(pred, y, reduction="none")


def test_tinygpt_hooks_match_a_manual_forward():
    gpt = _gpt()
    idx = torch.randint(0, 11, (4, 6), generator=G)
    got = TinyGPTLayers(gpt).layer_states(idx)
    h = gpt.wte(idx) + gpt.wpe(torch.arange(6))
    want = _manual_gpt_states(gpt, h)
    assert len(got) == 4
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    torch.testing.assert_close(gpt.norm_f(got[-1]), gpt.hidden(idx))  # the last state is the pre-norm stream


def test_tinygpt_with_an_embedding_and_sinusoidal_positions():
    gpt = _gpt(pos="sinusoidal")
    embed = nn.Linear(5, 8)
    x = torch.randn(3, 6, 5, generator=G)
    got = TinyGPTLayers(gpt, embed=embed).layer_states(x)
    want = _manual_gpt_states(gpt, embed(x) + gpt.get_buffer("sin_table")[:6])
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    with pytest.raises(ValueError, match="x: sequence length 7"):
        TinyGPTLayers(gpt, embed=embed).layer_states(torch.randn(1, 7, 5))


def test_readout_losses_per_layer_match_a_manual_forward():
    gpt = _gpt()
    head = TokenReadout(8, 4, pool="last", seed=3)
    model = TinyGPTLayers(gpt)
    idx = torch.randint(0, 11, (5, 6), generator=G)
    y = torch.tensor([0, 1, 2, 3, 1])
    tr = DescentConstrainedTrainer(model, head, _ce, seed=0)
    got = tr.layer_losses(idx, y)
    h = gpt.wte(idx) + gpt.wpe(torch.arange(6))
    want = [F.cross_entropy(head.proj(head.norm(z[:, -1])), y) for z in _manual_gpt_states(gpt, h)]
    torch.testing.assert_close(got, torch.stack(want))
    per_layer = [TokenReadout(8, 4, pool="last", seed=s) for s in range(4)]  # one readout per state
    got = DescentConstrainedTrainer(model, per_layer, _ce, seed=0).layer_losses(idx, y)
    states = _manual_gpt_states(gpt, h)
    torch.testing.assert_close(got, torch.stack([F.cross_entropy(r(z), y) for r, z in zip(per_layer, states)]))


def test_bert_states_are_transformers_hidden_states():
    bert = bert_encoder(hidden_size=16, num_layers=3, num_heads=2, intermediate_size=32, max_positions=8, seed=0)
    embed = nn.Linear(5, 16)
    x = torch.randn(2, 7, 5, generator=G)
    ours = EncoderLayers(bert, embed=embed).layer_states(x)
    theirs = bert(inputs_embeds=embed(x), output_hidden_states=True).hidden_states
    assert len(ours) == len(theirs) == 4
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    ids = torch.randint(0, 2, (2, 7), generator=G)
    theirs = bert(input_ids=ids, output_hidden_states=True).hidden_states
    for a, b in zip(EncoderLayers(bert).layer_states(ids), theirs):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_llama_states_before_the_final_norm():
    from transformers import LlamaConfig, LlamaModel

    cfg = LlamaConfig(vocab_size=16, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                      num_key_value_heads=2, intermediate_size=32, max_position_embeddings=16)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        llama = LlamaModel(cfg).eval()
    ids = torch.randint(0, 16, (2, 5), generator=G)
    ours = EncoderLayers(llama).layer_states(ids)
    theirs = llama(input_ids=ids, output_hidden_states=True).hidden_states
    for a, b in zip(ours[:-1], theirs[:-1]):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    torch.testing.assert_close(llama.norm(ours[-1]), theirs[-1])  # transformers normalises only its last entry


def test_perturbation_reaches_its_layer_and_what_follows():
    gpt = _gpt()
    model = TinyGPTLayers(gpt)
    idx = torch.randint(0, 11, (4, 6), generator=G)
    clean = model.layer_states(idx)
    with perturbed_state(model, layer=2, scale=0.5, generator=torch.Generator().manual_seed(7)):
        noisy = model.layer_states(idx)
    with perturbed_state(model, layer=2, scale=0.5, generator=torch.Generator().manual_seed(7)):
        again = model.layer_states(idx)
    for i in range(2):
        torch.testing.assert_close(noisy[i], clean[i], rtol=0, atol=0)
    assert all(not torch.equal(noisy[i], clean[i]) for i in (2, 3))
    torch.testing.assert_close(noisy, again, rtol=0, atol=0)  # reproducible from the generator
    rel = ((noisy[2] - clean[2]).detach().pow(2).mean(-1) / clean[2].pow(2).mean(-1)).mean().sqrt()
    assert 0.4 < float(rel.detach()) < 0.6  # noise of 0.5 × the per-token RMS
    with perturbed_state(model, layer=1, scale=0.0, generator=torch.Generator().manual_seed(7)):
        torch.testing.assert_close(model.layer_states(idx), clean, rtol=0, atol=0)
    torch.testing.assert_close(model.layer_states(idx), clean, rtol=0, atol=0)  # the hook is gone


def test_perturbing_a_bert_layer_shows_in_its_state():
    bert = bert_encoder(hidden_size=16, num_layers=2, num_heads=2, intermediate_size=32, max_positions=8, seed=0)
    model = EncoderLayers(bert, embed=nn.Linear(3, 16))
    x = torch.randn(2, 4, 3, generator=G)
    clean = model.layer_states(x)
    with perturbed_state(model, layer=1, scale=1.0, generator=torch.Generator().manual_seed(0)):
        noisy = model.layer_states(x)
    assert torch.equal(noisy[0], clean[0]) and not torch.equal(noisy[1], clean[1])


def test_lista_starts_as_ista():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 10))
    y = rng.standard_normal((3, 6))
    alpha, L = 0.1, 4
    states = LISTA(A, n_layers=L, sparsity=alpha).layer_states(torch.tensor(y, dtype=torch.float32))
    c = np.linalg.norm(A, 2) ** 2
    z = np.zeros((3, 10))
    np.testing.assert_allclose(states[0].numpy(), z)
    for layer in range(1, L + 1):  # ISTA: z ← soft(z − Aᵀ(Az − y)/c, α/c)
        v = z - (z @ A.T - y) @ A / c
        z = np.sign(v) * np.maximum(np.abs(v) - alpha / c, 0)
        np.testing.assert_allclose(states[layer].detach().numpy(), z, atol=1e-5)


def test_token_readout_pools():
    z = torch.randn(2, 3, 4, generator=G)
    heads = {p: TokenReadout(4, 2, pool=p, norm=False, seed=0) for p in ("none", "last", "first", "mean")}
    w = heads["none"].proj
    torch.testing.assert_close(heads["none"](z), w(z))
    torch.testing.assert_close(heads["last"](z), w(z[:, -1]))
    torch.testing.assert_close(heads["first"](z), w(z[:, 0]))
    torch.testing.assert_close(heads["mean"](z), w(z.mean(1)))
