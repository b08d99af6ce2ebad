"""Closed forms of the patches, the norm inversion, the Patches container, bad input, and a check that can fail."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.common.nn import GPTConfig, RMSNorm, TinyGPT
from icml26.papers.implicit_patch import (
    NormPatch,
    Patches,
    RankOnePatch,
    apply_patches,
    context_patches,
    layer_patches,
    patched_generate,
    patched_logits,
)
from icml26.papers.implicit_patch._construct import (
    _embed,
    _input_patch,
    _invert_norm,
    _mlp_site,
)
from icml26.papers.implicit_patch._zoo import make_config, random_model, sample_pair

F64 = torch.float64


def gemma(n_layer=2, seed=0):
    cfg = GPTConfig(vocab_size=20, block_size=24, n_layer=n_layer, n_head=2, d_model=16, norm="rmsnorm",
                    norm_position="sandwich", mlp="geglu", pos="rope")
    return random_model(cfg, seed=seed), cfg


def test_input_patch_is_the_minimum_norm_solution():
    """ΔW v₀ = W(v_C − v₀) has the min-Frobenius-norm solution r v₀⁺ (pseudo-inverse): Dherin et al.'s closed form."""
    g = torch.Generator().manual_seed(0)
    lin = torch.nn.Linear(6, 9, bias=True).double()
    with torch.no_grad():
        lin.weight.copy_(torch.randn(9, 6, generator=g, dtype=F64))
    v_c, v_0 = torch.randn(3, 6, generator=g, dtype=F64), torch.randn(3, 6, generator=g, dtype=F64)
    p = _input_patch(lin, v_c, v_0)
    for t in range(3):
        r = lin.weight @ (v_c[t] - v_0[t])
        oracle = r[:, None] @ torch.linalg.pinv(v_0[t][:, None])  # (9, 1) @ (1, 6)
        torch.testing.assert_close(p.dense(t), oracle, atol=1e-13, rtol=0)
        torch.testing.assert_close((lin.weight + p.dense(t)) @ v_0[t], lin.weight @ v_c[t], atol=1e-13, rtol=0)
        assert torch.linalg.matrix_rank(p.dense(t)) == 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["rms", "ln", "ln_bias"]))
def test_norm_inversion_hits_any_target(seed, kind):
    g = torch.Generator().manual_seed(seed)
    d = 7
    norm = RMSNorm(d).double() if kind == "rms" else torch.nn.LayerNorm(d, bias=kind == "ln_bias").double()
    with torch.no_grad():
        norm.weight.copy_(0.5 + torch.rand(d, generator=g, dtype=F64))
        if getattr(norm, "bias", None) is not None:
            norm.bias.copy_(torch.randn(d, generator=g, dtype=F64))
    target, z_ref = 3 * torch.randn(4, d, generator=g, dtype=F64), torch.randn(4, d, generator=g, dtype=F64)
    z, patch = _invert_norm(norm, target, z_ref)
    assert bool((patch.scale > 0).all())
    bias = norm.bias if getattr(norm, "bias", None) is not None else 0.0
    core = norm(z) - bias  # γ ⊙ ẑ
    shift = patch.shift if patch.shift is not None else 0.0
    torch.testing.assert_close(core * patch.scale[:, None] + bias + shift, target, atol=1e-11, rtol=0)


def test_norm_patch_is_identity_when_the_target_is_the_norms_own_output():
    norm = RMSNorm(5).double()
    z_ref = torch.randn(2, 5, generator=torch.Generator().manual_seed(1), dtype=F64)
    z, patch = _invert_norm(norm, norm(z_ref), z_ref)
    torch.testing.assert_close(z, z_ref, atol=1e-13, rtol=0)
    torch.testing.assert_close(patch.scale, torch.ones(2, dtype=F64), atol=1e-13, rtol=0)


def test_block_decomposition_matches_block_forward():
    for kw in ({"norm_position": "sandwich"}, {"norm_position": "post"}, {"parallel": True},
               {"parallel": True, "norm_position": "sandwich"}, {"norm_position": "pre"}):
        cfg = GPTConfig(vocab_size=20, block_size=24, n_layer=1, n_head=2, d_model=16, norm="rmsnorm", **kw)
        m = random_model(cfg, seed=2)
        x = _embed(m, torch.arange(9) % 20)
        blk, pos = m.blocks[0], torch.arange(9)
        s = _mlp_site(blk, x, pos)
        m_out = blk.mlp(s.v)
        y = s.base + (s.post(s.extra + m_out) if s.post is not None else s.extra + m_out)
        torch.testing.assert_close(y, blk(x, pos)[0], atol=1e-13, rtol=0)


def test_rank_ratios_and_controls_of_the_container():
    m, cfg = gemma()
    c, q = sample_pair(cfg, n_context=8, n_query=3, seed=0)
    P = context_patches(m, c, q)
    assert P.n_query == 3 and P.n_context == 8 and P.n_weight_patches() == 2 * 3 * 3
    assert max(max(v) for v in P.rank_ratios().values()) < 1e-12
    assert not P.without_norms().norms and set(P.only("w_out").weights) == {"blocks.0.mlp.w_out", "blocks.1.mlp.w_out"}
    with pytest.raises(ValueError, match="suffixes"):
        P.only()
    with pytest.raises(ValueError, match="n_query"):
        Patches(dict(P.weights), n_query=5)
    with pytest.raises(ValueError, match="u and v"):
        RankOnePatch(torch.zeros(2, 3), torch.zeros(3, 3))
    with pytest.raises(ValueError, match="scale"):
        NormPatch(torch.ones(2, 2))
    with pytest.raises(ValueError, match="t must index"):
        P.weights["blocks.0.mlp.w_in"].dense(3)


def test_bad_input_is_rejected_with_the_argument_named():
    m, _cfg = gemma()
    with pytest.raises(ValueError, match="query_ids.*vocabulary"):
        context_patches(m, [1, 2], [3, 20])  # a token of a larger vocabulary
    with pytest.raises(ValueError, match="context_ids.*vocabulary"):
        context_patches(m, [-1], [3])
    with pytest.raises(ValueError, match="block_size=24"):
        context_patches(m, list(range(20)), [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="query_ids must hold at least one"):
        context_patches(m, [1], [])
    with pytest.raises(ValueError, match="query_ids must be a 1-D"):
        context_patches(m, [1], torch.tensor([[1, 2]]))
    with pytest.raises(TypeError, match="query_ids must hold integer"):
        context_patches(m, [1], torch.tensor([1.0]))
    with pytest.raises(TypeError, match="context_ids must be"):
        context_patches(m, "abc", [1])
    with pytest.raises(TypeError, match="model must be"):
        context_patches(torch.nn.Linear(2, 2), [1], [1])
    with pytest.raises(ValueError, match="max_new_tokens"):
        patched_generate(m, [1], [2], max_new_tokens=-1)
    with pytest.raises(TypeError, match="max_new_tokens must be an int"):
        patched_generate(m, [1], [2], max_new_tokens=True)
    with pytest.raises(TypeError, match="query_ids must hold integer"):
        context_patches(m, [1], np.array([1.0]))
    with pytest.raises(ValueError, match="context_ids must be a 1-D"):
        context_patches(m, np.array([[1, 2]]), [1])
    with pytest.raises(ValueError, match="generated tokens exceed"):
        patched_generate(m, list(range(18)), [1, 2], max_new_tokens=6)
    bad = gemma()[0]
    with torch.no_grad():
        bad.blocks[1].mlp.w_in.weight[0, 0] = math.nan
    with pytest.raises(ValueError, match="non-finite weights"):
        context_patches(bad, [1], [2])


def test_numpy_integer_ids_are_accepted():
    m, _cfg = gemma()
    c, q = np.array([5, 7, 11], dtype=np.int32), np.array([3, 1], dtype=np.uint8)
    torch.testing.assert_close(patched_logits(m, c, q), patched_logits(m, [5, 7, 11], [3, 1]), atol=0, rtol=0)


def test_patches_must_fit_the_model_and_the_query():
    m, _cfg = gemma()
    P = context_patches(m, [1, 2, 3], [4, 5])
    with pytest.raises(ValueError, match="cover 2 query positions"):
        patched_logits(m, [1, 2, 3], [4, 5, 6], patches=P)
    with pytest.raises(ValueError, match="has 3"), apply_patches(m, P):
        m(torch.tensor([[4, 5, 6]]))
    other = gemma(n_layer=1)[0]
    with pytest.raises(ValueError, match="no module 'blocks.1"), apply_patches(other, P):
        pass
    with pytest.raises(ValueError, match="dtype"), apply_patches(gemma()[0].float(), P):
        pass
    plain = TinyGPT(GPTConfig(vocab_size=20, block_size=24, n_layer=2, n_head=2, d_model=16), seed=0).double()
    with pytest.raises(ValueError, match="not a Linear of shape"), apply_patches(plain, P):
        pass
    with pytest.raises(TypeError, match="patches must be"), apply_patches(m, {}):
        pass
    zero_gamma = gemma()[0]
    with torch.no_grad():
        zero_gamma.blocks[0].post_norm2.weight[0] = 0.0
    with pytest.raises(ValueError, match="zero scale"):
        context_patches(zero_gamma, [1], [2])


def test_zoo_is_deterministic_and_a_claim_check_can_fail(monkeypatch):
    cfg = make_config("moe", n_layer=1, d_model=16)
    a, b = random_model(cfg, seed=3), random_model(cfg, seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    from icml26 import registry
    from icml26.claims import Context, Verdict
    from icml26.papers.implicit_patch import _checks
    from icml26.papers.implicit_patch.claims import EquivConfig

    ctx = Context(seeds=(0,), bars=registry.get_paper("implicit_patch").claim("gemma_equivalence").bar_map)
    cfg_e = EquivConfig(n_layers=(1,), d_model=16, n_context=6, n_query=3, pairs=1)
    assert _checks.check_equivalence(cfg_e, ctx).verdict is Verdict.HOLDS
    real = _checks.patched_logits
    monkeypatch.setattr(_checks, "patched_logits",
                        lambda m, c, q, patches=None: real(m, c, q, patches=context_patches(m, c, q).without_norms()))
    assert _checks.check_equivalence(cfg_e, ctx).verdict is Verdict.FAILS


def test_trained_model_runs_and_returns_a_loss():
    from icml26.papers.implicit_patch._zoo import trained_model

    cfg = make_config("gemma", n_layer=1, d_model=16, block_size=8)
    m, loss = trained_model(cfg, seed=0, steps=2)
    assert m.wte.weight.dtype == F64 and math.isfinite(loss)


def test_layer_patches_checks_its_arguments():
    m, _cfg = gemma(n_layer=1)
    with torch.no_grad():
        x_ctx, x_q = _embed(m, torch.arange(7)), _embed(m, torch.arange(4, 7))
    with pytest.raises(ValueError, match="n_context must be the number of context positions"):
        layer_patches(m.blocks[0], x_ctx, x_q, n_context=3)
    with pytest.raises(ValueError, match=r"x_query must have shape \(1, positions, 16\)"):
        layer_patches(m.blocks[0], x_ctx, x_q[..., :8], n_context=4)
    with pytest.raises(TypeError, match="block must be"):
        layer_patches(m, x_ctx, x_q, n_context=4)
    w, _n, y = layer_patches(m.blocks[0], x_ctx.numpy(), x_q.numpy(), n_context=4)  # array-likes are accepted
    assert y.dtype == F64 and all(p.u.dtype == F64 for p in w.values())
    with pytest.raises(ValueError, match="u must be finite"):
        RankOnePatch(torch.full((2, 3), math.nan, dtype=F64), torch.ones(2, 4, dtype=F64))
    with pytest.raises(ValueError, match="one dtype"):
        RankOnePatch(torch.ones(2, 3, dtype=F64), torch.ones(2, 4))
