"""[P06]'s identity T_W(C, x) = T_{W+ΔW(C,x)}(x) on every TinyGPT block layout, with a hook-free dense oracle."""

import copy

import pytest

torch = pytest.importorskip("torch")
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.common.nn import GPTConfig
from icml26.papers.implicit_patch import (
    apply_patches,
    context_patches,
    layer_patches,
    patched_generate,
    patched_logits,
    with_context_logits,
)
from icml26.papers.implicit_patch._zoo import (
    ARCHITECTURES,
    make_config,
    random_model,
    sample_pair,
)

EXTRA = {  # layouts beyond the claims' six
    "pre_ln_bias": {"norm": "layernorm", "norm_position": "pre", "mlp": "gelu", "pos": "learned", "bias": True},
    "post_ln_nobias": {"norm": "layernorm", "norm_position": "post", "mlp": "reglu", "pos": "none"},
    "parallel_sandwich": {"norm": "rmsnorm", "norm_position": "sandwich", "parallel": True, "mlp": "swiglu", "pos": "sinusoidal"},
    "moe_pre_ln_top1": {"norm": "layernorm", "norm_position": "pre", "mlp": "gelu", "pos": "learned", "n_experts": 3, "top_k": 1},
    "sandwich_layernorm": {"norm": "layernorm", "norm_position": "sandwich", "mlp": "geglu", "pos": "rope", "bias": True},
}


def tiny(arch, *, n_layer=2, seed=0, dtype=torch.float64):
    kw = ARCHITECTURES.get(arch) or EXTRA[arch]
    cfg = GPTConfig(vocab_size=20, block_size=24, n_layer=n_layer, n_head=2, d_model=16, **kw)
    return random_model(cfg, seed=seed, dtype=dtype), cfg


@pytest.mark.parametrize("arch", [*ARCHITECTURES, *EXTRA])
def test_patched_query_alone_reproduces_context_logits(arch):
    m, cfg = tiny(arch, n_layer=3)
    c, q = sample_pair(cfg, n_context=10, n_query=5, seed=1)
    a, b = with_context_logits(m, c, q), patched_logits(m, c, q)
    with torch.no_grad():
        alone = m(q[None])[0]
    assert (a - alone).abs().max() > 0.1  # the context matters ...
    assert (a - b).abs().max() < 1e-11  # ... and the patches carry all of it


def test_worked_example_single_gemma_block_float32():
    m, _cfg = tiny("gemma", n_layer=1, dtype=torch.float32)
    c, q = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6]), torch.tensor([5, 3, 5])
    P = context_patches(m, c, q)
    assert sorted(P.weights) == ["blocks.0.mlp.w_gate", "blocks.0.mlp.w_in", "blocks.0.mlp.w_out"]
    assert list(P.norms) == ["blocks.0.post_norm2"] and P.norms["blocks.0.post_norm2"].shift is None
    torch.testing.assert_close(patched_logits(m, c, q, patches=P), with_context_logits(m, c, q), atol=1e-4, rtol=0)


def _dense_block_output(block, P, prefix, x_query, t):
    """Oracle without hooks: copy the block, write W + ΔW_t and γ·s_t (+Δβ_t) into its weights, run it, read t."""
    b = copy.deepcopy(block)
    with torch.no_grad():
        for name, p in P.weights.items():
            if name.startswith(prefix):
                b.get_submodule(name[len(prefix):]).weight += p.dense(t)
        for name, n in P.norms.items():
            if name.startswith(prefix):
                mod = b.get_submodule(name[len(prefix):])
                mod.weight *= n.scale[t]
                if n.shift is not None:
                    if mod.bias is None:
                        mod.bias = torch.nn.Parameter(n.shift[t].clone())
                    else:
                        mod.bias += n.shift[t]
        return b(x_query, torch.arange(x_query.shape[1]))[0, t]


@pytest.mark.parametrize("arch", ["gemma", "pre_ln", "post_ln", "parallel", "moe", "sandwich_layernorm"])
def test_dense_weights_oracle_matches_the_with_context_block(arch):
    m, cfg = tiny(arch, n_layer=1)
    c, q = sample_pair(cfg, n_context=7, n_query=4, seed=3)
    from icml26.papers.implicit_patch._construct import _embed

    x_ctx, x_q = _embed(m, torch.cat([c, q])), _embed(m, q)
    w, n, y_c = layer_patches(m.blocks[0], x_ctx, x_q, n_context=7, prefix="blocks.0.")
    from icml26.papers.implicit_patch import Patches

    P = Patches(w, n, n_query=4, n_context=7)
    for t in range(4):
        torch.testing.assert_close(_dense_block_output(m.blocks[0], P, "blocks.0.", x_q, t), y_c[0, t],
                                   atol=1e-12, rtol=0)


def test_empty_context_gives_identity_patches():
    for arch in ("gemma", "post_ln", "sandwich_layernorm", "moe"):
        m, _cfg = tiny(arch)
        P = context_patches(m, [], [1, 2, 3])
        assert max(float(p.u.abs().max()) for p in P.weights.values()) < 1e-12
        for n in P.norms.values():
            torch.testing.assert_close(n.scale, torch.ones_like(n.scale), atol=1e-12, rtol=0)
            assert n.shift is None or float(n.shift.abs().max()) < 1e-12


def test_prefix_of_the_query_uses_the_first_patches():
    m, cfg = tiny("gated")
    c, q = sample_pair(cfg, n_context=9, n_query=6, seed=4)
    P = context_patches(m, c, q)
    with apply_patches(m, P), torch.no_grad():
        prefix = m(q[None, :3])[0]
    torch.testing.assert_close(prefix, with_context_logits(m, c, q[:3]), atol=1e-11, rtol=0)


def test_apply_patches_leaves_the_model_unchanged_afterwards():
    m, cfg = tiny("moe")
    c, q = sample_pair(cfg, n_context=6, n_query=3, seed=5)
    with torch.no_grad():
        before = m(q[None])
    P = context_patches(m, c, q)
    with pytest.raises(RuntimeError, match="boom"), apply_patches(m, P):
        raise RuntimeError("boom")
    with apply_patches(m, P):
        pass
    with torch.no_grad():
        assert torch.equal(m(q[None]), before)
    assert not any(mod._forward_hooks for mod in m.modules())


@pytest.mark.parametrize("arch", ["gemma", "parallel"])
def test_patched_generation_matches_generation_with_context(arch):
    m, cfg = tiny(arch)
    c, q = sample_pair(cfg, n_context=8, n_query=3, seed=6)
    ref = m.generate(torch.cat([c, q])[None], max_new_tokens=10)[0, 11:]
    assert torch.equal(patched_generate(m, c, q, max_new_tokens=10), ref)
    assert patched_generate(m, c, q, max_new_tokens=0).numel() == 0


def test_negative_controls_break_the_identity():
    m, cfg = tiny("gemma")
    c, q = sample_pair(cfg, n_context=10, n_query=4, seed=7)
    P = context_patches(m, c, q)
    a = with_context_logits(m, c, q)
    for control in (P.without_norms(), P.only("w_in"), P.only("w_in", "w_gate")):
        assert (patched_logits(m, c, q, patches=control) - a).abs().max() > 1e-2


@settings(max_examples=12, deadline=None)
@given(n_c=st.integers(0, 12), n_q=st.integers(1, 8), seed=st.integers(0, 10_000),
       arch=st.sampled_from(sorted(ARCHITECTURES)))
def test_identity_holds_for_any_split(n_c, n_q, seed, arch):
    m, cfg = tiny(arch, seed=seed % 7)
    c, q = sample_pair(cfg, n_context=n_c, n_query=n_q, seed=seed)
    assert (patched_logits(m, c, q) - with_context_logits(m, c, q)).abs().max() < 1e-11


def test_float32_claim_sized_model_within_bar():
    cfg = make_config("gemma", n_layer=4, d_model=64)
    m = random_model(cfg, seed=0, dtype=torch.float32)
    c, q = sample_pair(cfg, n_context=32, n_query=12, seed=0)
    assert (patched_logits(m, c, q) - with_context_logits(m, c, q)).abs().max() < 1e-4
