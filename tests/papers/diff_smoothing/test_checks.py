"""The [P32] checks feed what they measure to their rules (planted CountDown runs; a tiny exact toy and grid)."""

import functools

import numpy as np

from icml26 import registry
from icml26.claims import Context, Verdict
from icml26.papers.diff_smoothing import _checks_countdown as cd
from icml26.papers.diff_smoothing._checks_optimum import check_ds_improves_both, dirichlet_base_policies
from icml26.papers.diff_smoothing._checks_toy import check_entropy_heuristics
from icml26.papers.diff_smoothing._toy import kl_optimum
from icml26.papers.diff_smoothing.claims import CollapseConfig, CountdownConfig, OptimumConfig, ToyConfig

BARS = {c.id: c.bar_map for c in registry.get_paper("diff_smoothing").claims}


def _planted_seed(drop, args):
    cfg, seed = args
    base = {"pass@1": [0.2], f"pass@{cfg.k}": [0.8], "distinct_correct": [2.0]}
    van = {"pass@1": [0.3], f"pass@{cfg.k}": [0.8 - drop + 0.01 * seed], "distinct_correct": [2.0 - drop]}
    ds = {k: [v[0] + 0.05] for k, v in van.items()}
    return {"seed": seed, "base": base, "vanilla": {**van, "train_reward": [0.1] * cfg.rl_steps},
            "ds": {**ds, "train_reward": [0.1] * cfg.rl_steps}}


def _planted(drop):
    return functools.partial(_planted_seed, drop)  # ctx.map takes module-level functions only


def test_countdown_checks_judge_their_runs_with_the_rules(monkeypatch):
    cfg = CollapseConfig(countdown=CountdownConfig(rl_steps=6, methods=("vanilla",)),
                         toy=ToyConfig(n_prompts=3, steps=2))
    ctx = Context(seeds=(0, 1, 2), bars=BARS["vanilla_collapse"])
    monkeypatch.setattr(cd, "one_seed", _planted(0.5))
    assert cd.check_vanilla_collapse(cfg, ctx).verdict is Verdict.HOLDS
    monkeypatch.setattr(cd, "one_seed", _planted(-0.5))
    assert cd.check_vanilla_collapse(cfg, ctx).verdict is Verdict.FAILS
    ctx = Context(seeds=(0, 1, 2), bars=BARS["countdown_ds"])
    res = cd.check_countdown(CountdownConfig(rl_steps=6, methods=("vanilla", "ds")), ctx)
    assert res.verdict is Verdict.HOLDS and np.isclose(res.measured["diff_ci"]["pass@1"][0], 0.05)


def test_ds_improves_both_is_judged_over_the_grid_with_the_rest_as_findings():
    toy = ToyConfig(n_prompts=30, steps=20, modes=("exact",))
    cfg = OptimumConfig(n_answers=(4, 8), concentrations=(0.3, 3.0), draws=3, gamma_over_beta=(0.2, 0.8, 3.0), toy=toy)
    ctx = Context(seeds=(0, 1), bars=BARS["ds_improves_both"])
    res = check_ds_improves_both(cfg, ctx)
    assert res.verdict is Verdict.HOLDS, res.reason
    rows = res.measured["by_gamma_over_beta"]
    assert [r["gamma_over_beta"] for r in rows] == [0.2, 0.8, 3.0]
    assert all(r["n"] == 2 * 2 * 3 * 2 * 3 * 2 for r in rows)  # seeds x N x f x α x draws x β
    assert res.measured["cells_in_regime"] == 2 * rows[0]["n"]  # γ/β = 3 is beyond the regime
    beyond, finite = sorted(res.findings)
    assert "beyond the regime" in beyond and "γ/β = 3" in res.findings[beyond]
    assert "ours" in finite and "DS − vanilla after 20 GRPO steps" in res.findings[finite]
    assert len(ctx.memo) == 1  # the training runs went through ctx.shared ...
    ctx2 = Context(seeds=(0, 1), bars=BARS["entropy_heuristics"], memo=ctx.memo)
    check_entropy_heuristics(toy, ctx2)
    assert len(ctx.memo) == 1  # ... and the group's other claim reuses them


def test_the_grid_draws_valid_base_policies_and_matches_the_closed_form():
    rng = np.random.default_rng(0)
    base, correct = dirichlet_base_policies(8, 3, 0.1, 50, rng)
    assert base.shape == (50, 8) and np.all(base > 0) and np.allclose(base.sum(axis=1), 1.0)
    assert correct.sum(axis=1).tolist() == [3] * 50
    beta, g = 0.5, 0.4  # π* ∝ π_base^(1−γ/β) on C (times e^(1/β)), π_base^(1+γ/β) off C
    ref = np.where(correct, np.exp(1 / beta) * base ** (1 - g), base ** (1 + g))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(kl_optimum(base, correct, beta=beta, gamma_p=g * beta, gamma_n=g * beta), ref,
                               rtol=1e-10)
