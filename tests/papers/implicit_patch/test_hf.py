"""[P06]'s construction on transformers' LlamaForCausalLM (a tiny random one, float64): the patched query alone gives
the with-context logits and greedy tokens; another context's patches, or none, do not; bad models and ids are refused."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("transformers")

from icml26.common.models import tiny_causal_lm  # noqa: E402
from icml26.papers.implicit_patch import (  # noqa: E402
    hf_context_patches,
    hf_patched_generate,
    hf_patched_logits,
    hf_with_context_logits,
)


@pytest.fixture(scope="module")
def llama():
    model, _ = tiny_causal_lm(seed=3, num_layers=3, hidden_size=32, num_heads=4, num_kv_heads=2, intermediate_size=64,
                              vocab_size=300)
    return model.double()


def _pair(seed: int, n_context: int = 10, n_query: int = 5) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 300, (n_context,), generator=g), torch.randint(0, 300, (n_query,), generator=g)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_patched_query_alone_gives_the_with_context_logits(llama, seed):
    c, q = _pair(seed)
    want = hf_with_context_logits(llama, c, q)
    # the oracle: transformers' own forward on context + query
    assert torch.equal(want, llama(input_ids=torch.cat([c, q])[None]).logits[0, c.numel():].detach())
    got = hf_patched_logits(llama, c, q)
    assert float((got - want).abs().max()) <= 1e-10 * float(want.abs().max())
    unpatched = llama(input_ids=q[None]).logits[0].detach()
    assert float((unpatched - want).abs().max()) > 1e-3 * float(want.abs().max())  # the context matters here


def test_every_patch_is_rank_one_per_position_and_shaped_like_its_weight(llama):
    c, q = _pair(5)
    patches = hf_context_patches(llama, c, q)
    assert sorted(patches) == [0, 1, 2]
    for i, per in patches.items():
        mlp = llama.model.layers[i].mlp
        for name, (u, v) in per.items():
            w = getattr(mlp, name).weight
            assert u.shape == (q.numel(), w.shape[0]) and v.shape == (q.numel(), w.shape[1])
            dw = torch.outer(u[0], v[0])
            s = torch.linalg.svdvals(dw)
            assert float(s[1] / s[0]) < 1e-12


def test_another_contexts_patches_break_the_identity(llama):
    c, q = _pair(7)
    c2, _ = _pair(8)
    want = hf_with_context_logits(llama, c, q)
    control = hf_patched_logits(llama, c, q, patches=hf_context_patches(llama, c2, q))
    assert float((control - want).abs().max()) > 1e-2 * float(want.abs().max())


def test_an_empty_context_needs_no_change(llama):
    _, q = _pair(9)
    assert torch.allclose(hf_patched_logits(llama, [], q), llama(input_ids=q[None]).logits[0], atol=1e-12, rtol=0)


def test_greedy_decoding_from_the_query_alone_matches_generate(llama):
    c, q = _pair(11, n_context=8, n_query=3)
    want = llama.generate(torch.cat([c, q])[None], max_new_tokens=4, do_sample=False, pad_token_id=0)[0, -4:]
    assert hf_patched_generate(llama, c, q, max_new_tokens=4).tolist() == want.tolist()


def test_patches_for_another_query_length_are_refused(llama):
    c, q = _pair(12)
    patches = hf_context_patches(llama, c, q)
    with pytest.raises(ValueError, match="query positions"):
        hf_patched_logits(llama, c, q[:-1], patches=patches)


def test_bad_models_and_ids_are_refused(llama):
    with pytest.raises(TypeError, match="model"):
        hf_context_patches(torch.nn.Linear(2, 2), [1], [2])
    with pytest.raises(ValueError, match="query_ids"):
        hf_context_patches(llama, [1], [])
    with pytest.raises(ValueError, match="context_ids"):
        hf_context_patches(llama, [300], [2])
    with pytest.raises(TypeError, match="query_ids"):
        hf_context_patches(llama, [1], [0.5])


def test_a_sandwich_norm_block_is_refused_rather_than_patched_wrongly():
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    cfg = Gemma3TextConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                           num_attention_heads=2, num_key_value_heads=1, head_dim=8, max_position_embeddings=32)
    with torch.random.fork_rng():  # the random init draws from the global generator: leave it as it was
        gemma = Gemma3ForCausalLM(cfg).eval()
    with pytest.raises(TypeError, match="sandwich-norm"):
        hf_context_patches(gemma, [1, 2], [3])
