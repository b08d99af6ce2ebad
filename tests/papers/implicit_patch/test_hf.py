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


@pytest.fixture(scope="module")
def gemma():
    """A tiny random Gemma3ForCausalLM (sandwich norms, GeGLU, RoPE) in float64, every norm scale drawn at random."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    cfg = Gemma3TextConfig(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                           num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64)
    with torch.random.fork_rng():  # the random init draws from the global generator: leave it as it was
        torch.manual_seed(0)
        model = Gemma3ForCausalLM(cfg).double().eval()
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, prm in model.named_parameters():
            if "norm" in name:
                prm.copy_(0.5 * torch.randn(prm.shape, generator=g, dtype=prm.dtype))
    return model


#: Gemma3's RMSNorm computes in float32 whatever the model's dtype: float32 rounding, not float64
GEMMA_TOL = 1e-5


@pytest.mark.parametrize("seed", [0, 1])
def test_gemma_patched_query_alone_gives_the_with_context_logits(gemma, seed):
    c, q = _pair(seed)
    want = hf_with_context_logits(gemma, c, q)
    assert torch.equal(want, gemma(input_ids=torch.cat([c, q])[None]).logits[0, c.numel():].detach())
    got = hf_patched_logits(gemma, c, q)
    assert float((got - want).abs().max()) <= GEMMA_TOL * float(want.abs().max())
    unpatched = gemma(input_ids=q[None]).logits[0].detach()
    assert float((unpatched - want).abs().max()) > 1e-3 * float(want.abs().max())


def test_gemma_patches_are_rank_one_plus_a_norm_scale(gemma):
    c, q = _pair(3)
    patches = hf_context_patches(gemma, c, q)
    for i, per in patches.items():
        assert sorted(per) == ["down_proj", "gate_proj", "post_feedforward_layernorm", "up_proj"]
        s, gamma = per["post_feedforward_layernorm"]
        assert s.shape == (q.numel(), 1) and gamma.shape == (32,)
        for name in ("gate_proj", "up_proj", "down_proj"):
            u, v = per[name]
            assert float(torch.linalg.svdvals(torch.outer(u[0], v[0]))[1]) < 1e-12 * float(u[0].norm() * v[0].norm())


def test_gemma_without_its_norm_scale_patch_or_with_another_context_breaks(gemma):
    c, q = _pair(4)
    c2, _ = _pair(5)
    want = hf_with_context_logits(gemma, c, q)
    full = hf_context_patches(gemma, c, q)
    no_scale = {i: {k: v for k, v in per.items() if k != "post_feedforward_layernorm"} for i, per in full.items()}
    for patches in (no_scale, hf_context_patches(gemma, c2, q)):
        got = hf_patched_logits(gemma, c, q, patches=patches)
        assert float((got - want).abs().max()) > 1e-2 * float(want.abs().max())


def test_gemma_greedy_decoding_from_the_query_alone_matches_generate(gemma):
    c, q = _pair(11, n_context=8, n_query=3)
    want = gemma.generate(torch.cat([c, q])[None], max_new_tokens=4, do_sample=False, pad_token_id=0)[0, -4:]
    assert hf_patched_generate(gemma, c, q, max_new_tokens=4).tolist() == want.tolist()


def test_a_block_with_one_of_the_two_sandwich_norms_is_refused(gemma):
    import copy

    broken = copy.deepcopy(gemma)
    del broken.model.layers[1].post_feedforward_layernorm
    with pytest.raises(TypeError, match="only one of pre_feedforward_layernorm"):
        hf_context_patches(broken, [1, 2], [3])
