"""The activation-based rank-1 check (required_updates) and the guards of the generation claim: both can fail."""

import pytest

torch = pytest.importorskip("torch")

from icml26.claims import Context, Verdict
from icml26.papers.implicit_patch import Patches, RankOnePatch, claims, context_patches
from icml26.papers.implicit_patch._verify import required_updates
from icml26.papers.implicit_patch._zoo import make_config, random_model, sample_pair


def _pair(arch, n_layer=2, n_query=4):
    cfg = make_config(arch, n_layer=n_layer, d_model=16)
    m = random_model(cfg, seed=1)
    c, q = sample_pair(cfg, n_context=6, n_query=n_query, seed=1)
    return m, c, q


@pytest.mark.parametrize("arch", ["gemma", "post_ln", "moe"])
def test_required_update_is_rank_one_and_equals_the_stored_patch(arch):
    m, c, q = _pair(arch)
    req = required_updates(m, c, q)
    assert req and max(r.sigma_ratio for r in req) < 1e-12
    assert max(r.rel_disagreement for r in req) < 1e-12
    assert {r.positions for r in req} <= {(t,) for t in range(4)}


def test_input_side_target_oracle_by_hand():
    """Layer 0's w_in: the required update solves (W + ΔW) x₀ = W x_C with x₀, x_C taken straight from the block."""
    from icml26.papers.implicit_patch._construct import _embed, _mlp_site

    m, c, q = _pair("gemma", n_layer=1, n_query=2)
    blk, W = m.blocks[0], m.blocks[0].mlp.w_in.weight
    with torch.no_grad():
        v_c = _mlp_site(blk, _embed(m, torch.cat([c, q])), torch.arange(8)).v[6:]
        v_0 = _mlp_site(blk, _embed(m, q), torch.arange(2)).v
    P = context_patches(m, c, q)
    for t in range(2):
        dense = P.weights["blocks.0.mlp.w_in"].dense(t)
        torch.testing.assert_close((W + dense) @ v_0[t], W @ v_c[t], atol=1e-12, rtol=0)
    assert [r.rel_disagreement < 1e-12 for r in required_updates(m, c, q) if r.module.endswith("w_in")] == [True] * 2


def test_planted_shared_patch_is_not_rank_one_and_the_claim_fails():
    """Two query positions forced to share one update: the needed ΔW* has rank 2 and disagrees with u vᵀ."""
    m, c, q = _pair("gemma")
    req = required_updates(m, c, q, groups=[(0, 1), (2, 3)])
    assert max(r.sigma_ratio for r in req) > 1e-2 and max(r.rel_disagreement for r in req) > 1e-2
    cfg = claims.RankConfig(archs=("gemma",), n_layer=1, d_model=16, n_context=6, n_query=4)
    assert claims.check_rank_one(cfg, Context(seeds=(0,))).verdict is Verdict.HOLDS
    bad = claims.check_rank_one(claims.RankConfig(**{**cfg.__dict__, "share": 2}), Context(seeds=(0,)))
    assert bad.verdict is Verdict.FAILS and bad.measured["max_sigma_ratio"] > 1e-2


def test_corrupted_factors_are_caught_by_the_agreement():
    m, c, q = _pair("pre_ln")
    P = context_patches(m, c, q)
    w = dict(P.weights)
    w["blocks.0.mlp.w_in"] = RankOnePatch(1.5 * w["blocks.0.mlp.w_in"].u, w["blocks.0.mlp.w_in"].v)
    req = required_updates(m, c, q, patches=Patches(w, dict(P.norms), P.n_query, P.n_context))
    worst = max(r.rel_disagreement for r in req if r.module == "blocks.0.mlp.w_in")
    assert worst == pytest.approx(0.5, rel=1e-9)


def test_required_updates_rejects_bad_groups():
    m, c, q = _pair("gemma", n_layer=1)
    with pytest.raises(ValueError, match="groups"):
        required_updates(m, c, q, groups=[(0, 4)])
    with pytest.raises(ValueError, match="groups"):
        required_updates(m, c, q, groups=[()])


def test_generation_guards_make_a_collapsed_run_inconclusive(monkeypatch):
    cfg = claims.GenConfig(archs=("gemma",), d_model=16, n_layer=1, n_context=6, n_query=3, new_tokens=6, pairs=1)
    res = claims.check_generation(cfg, Context(seeds=(0,)))
    assert res.measured["min_agreement"] == 1.0
    informative = (res.measured["min_distinct_tokens"] >= 3 and res.measured["max_agreement_unpatched"] <= 0.5)
    assert res.verdict is (Verdict.HOLDS if informative else Verdict.INCONCLUSIVE)
    monkeypatch.setattr(claims, "MIN_DISTINCT", 99)  # a guard that cannot be met: never `holds`
    assert claims.check_generation(cfg, Context(seeds=(0,))).verdict is Verdict.INCONCLUSIVE
    real = claims._generate

    def off_by_one(*args, **kwargs):
        tokens, gaps = real(*args, **kwargs)
        return (tokens + 1) % 64, gaps

    monkeypatch.setattr(claims, "_generate", off_by_one)
    assert claims.check_generation(cfg, Context(seeds=(0,))).verdict is Verdict.FAILS
