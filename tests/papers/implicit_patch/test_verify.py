"""solved_patches, an independent cross-check of the construction (rank-1 updates solved afresh from with-context
activations reproduce the logits and equal the stored patches), and the generation guards, which can fail."""

import pytest

torch = pytest.importorskip("torch")

import dataclasses

from icml26 import registry
from icml26.claims import Context, Verdict
from icml26.papers.implicit_patch import (
    NormPatch,
    _checks,
    context_patches,
    patched_logits,
    solved_patches,
    with_context_logits,
)
from icml26.papers.implicit_patch._zoo import make_config, random_model, sample_pair
from icml26.papers.implicit_patch.claims import GenConfig


def _distance(solved, stored) -> float:
    """Largest ‖ΔW*_t − u_t v_tᵀ‖_F / ‖u_t v_tᵀ‖_F over the stored non-zero (matrix, position) patches."""
    out = 0.0
    for name, p in stored.weights.items():
        for t in range(p.n_positions):
            if not p.is_zero(t):
                ref = p.dense(t)
                out = max(out, float(torch.linalg.norm(solved.weights[name].dense(t) - ref) / torch.linalg.norm(ref)))
    return out


def _pair(arch, n_layer=2, n_query=4):
    cfg = make_config(arch, n_layer=n_layer, d_model=16)
    m = random_model(cfg, seed=1)
    c, q = sample_pair(cfg, n_context=6, n_query=n_query, seed=1)
    return m, c, q


@pytest.mark.parametrize("arch", ["gemma", "post_ln", "parallel", "moe"])
def test_solved_rank_one_patches_reproduce_the_context_logits(arch):
    m, c, q = _pair(arch)
    S, P = solved_patches(m, c, q), context_patches(m, c, q)
    assert set(S.weights) >= set(P.weights) and S.norms.keys() == P.norms.keys()
    assert all(S.weights[n] is not P.weights[n] for n in P.weights)  # fresh solutions, not the stored factors
    assert (patched_logits(m, c, q, patches=S) - with_context_logits(m, c, q)).abs().max() < 1e-11
    assert _distance(S, P) < 1e-7  # the construction finds the same minimum-norm updates (up to ε-rounding)


def test_input_side_solution_by_hand():
    """Layer 0's w_in: the solved update is r v₀⁺ with r = W (v_C − v₀), x₀ and x_C taken straight from the block."""
    from icml26.papers.implicit_patch._construct import _embed, _mlp_site

    m, c, q = _pair("gemma", n_layer=1, n_query=2)
    blk, W = m.blocks[0], m.blocks[0].mlp.w_in.weight
    with torch.no_grad():
        v_c = _mlp_site(blk, _embed(m, torch.cat([c, q])), torch.arange(8)).v[6:]
        v_0 = _mlp_site(blk, _embed(m, q), torch.arange(2)).v
    S = solved_patches(m, c, q)
    for t in range(2):
        oracle = (W @ (v_c[t] - v_0[t]))[:, None] @ torch.linalg.pinv(v_0[t][:, None])
        torch.testing.assert_close(S.weights["blocks.0.mlp.w_in"].dense(t), oracle, atol=1e-12, rtol=0)
        torch.testing.assert_close((W + oracle) @ v_0[t], W @ v_c[t], atol=1e-12, rtol=0)


def test_planted_wrong_target_and_corrupted_norm_patch_break_the_logits():
    m, c, q = _pair("gemma")
    a = with_context_logits(m, c, q)
    c2 = (c + 1) % m.cfg.vocab_size  # targets (and norm patch) of another context: the right logits are missed
    assert (patched_logits(m, c, q, patches=solved_patches(m, c2, q)) - a).abs().max() > 1e-2
    with pytest.raises(ValueError, match="out of reach"):  # c's norm patch cannot reach c2's target
        solved_patches(m, c2, q, norms=context_patches(m, c, q).norms)
    with pytest.raises(ValueError, match=r"norms: the with-context output of block 0 is out of reach"):
        solved_patches(m, c, q, norms={})
    P = context_patches(m, c, q)
    smaller = {k: NormPatch(0.5 * v.scale, v.shift) for k, v in P.norms.items()}  # a smaller scale is out of reach
    with pytest.raises(ValueError, match="out of reach"):
        solved_patches(m, c, q, norms=smaller)
    larger = {k: NormPatch(2.0 * v.scale, v.shift) for k, v in P.norms.items()}  # a larger one is absorbed by w_out
    assert (patched_logits(m, c, q, patches=solved_patches(m, c, q, norms=larger)) - a).abs().max() < 1e-11


def test_solved_patches_rejects_bad_input():
    m, c, q = _pair("gemma", n_layer=1)
    with pytest.raises(TypeError, match="norms must be"):
        solved_patches(m, c, q, norms=[1])
    with pytest.raises(TypeError, match="norms must be"):
        solved_patches(m, c, q, norms={"blocks.0.post_norm2": 1.0})
    with pytest.raises(ValueError, match="query_ids"):
        solved_patches(m, c, [])
    with pytest.raises(TypeError, match="model must be"):
        solved_patches(torch.nn.Linear(2, 2), c, q)


def test_generation_guards_make_a_collapsed_run_inconclusive(monkeypatch):
    spec = registry.get_paper("implicit_patch").claim("patched_generation")
    ctx = Context(seeds=(0,), bars=spec.bar_map)
    cfg = GenConfig(archs=("gemma",), d_model=16, n_layer=1, n_context=6, n_query=3, new_tokens=6, pairs=1)
    res = _checks.check_generation(cfg, ctx)
    assert res.measured["min_agreement"] == 1.0
    informative = (res.measured["min_distinct_tokens"] >= 3 and res.measured["max_agreement_unpatched"] <= 0.5)
    assert res.verdict is (Verdict.HOLDS if informative else Verdict.INCONCLUSIVE)
    unreachable = dataclasses.replace(spec.bar("distinct_tokens"), value=99.0)  # a guard that cannot be met
    blind = Context(seeds=(0,), bars={**spec.bar_map, "distinct_tokens": unreachable})
    assert _checks.check_generation(cfg, blind).verdict is Verdict.INCONCLUSIVE
    real = _checks._generate

    def off_by_one(*args, **kwargs):
        tokens, gaps = real(*args, **kwargs)
        return (tokens + 1) % 64, gaps

    monkeypatch.setattr(_checks, "_generate", off_by_one)
    assert _checks.check_generation(cfg, ctx).verdict is Verdict.FAILS
