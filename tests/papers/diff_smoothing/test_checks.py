"""The [P32] checks feed what they measure to their rules (planted CountDown runs; a tiny exact toy)."""

import functools

import numpy as np

from icml26 import registry
from icml26.claims import Context, Verdict
from icml26.papers.diff_smoothing import _checks_countdown as cd
from icml26.papers.diff_smoothing._checks_toy import check_ds_improves_both, check_entropy_heuristics
from icml26.papers.diff_smoothing.claims import CollapseConfig, CountdownConfig, ToyConfig

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


def test_ds_improves_both_is_judged_at_the_optimum_with_the_finite_steps_as_a_finding():
    cfg = ToyConfig(n_prompts=30, steps=20, modes=("exact",))
    ctx = Context(seeds=(0, 1, 2), bars=BARS["ds_improves_both"])
    res = check_ds_improves_both(cfg, ctx)
    assert res.verdict is Verdict.HOLDS, res.reason
    opt = res.measured["kl_optimum"]
    assert opt["ds"]["pass@1"] > opt["vanilla"]["pass@1"] and opt["ds"]["entropy_correct"] > opt["vanilla"]["entropy_correct"]
    (name, text), = res.findings.items()
    assert "ours" in name and "DS − vanilla after 20 GRPO steps" in text
    assert len(ctx.memo) == 1  # the training runs went through ctx.shared ...
    ctx2 = Context(seeds=(0, 1, 2), bars=BARS["entropy_heuristics"], memo=ctx.memo)
    check_entropy_heuristics(cfg, ctx2)
    assert len(ctx.memo) == 1  # ... and the group's other claim reuses them
