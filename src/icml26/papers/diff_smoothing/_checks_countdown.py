"""Claim check of [P32] on a tiny model trained here: CountDown-3, SFT base policy, then GRPO with each transform."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.figures import new_figure, render

GAMMA = 0.1  # the same γ as the toy, fixed before any run


@dataclass(frozen=True)
class CountdownConfig:
    n_train: int = 2000
    n_test: int = 200
    d_model: int = 48
    sft_steps: int = 500
    rl_steps: int = 100
    prompts_per_step: int = 16
    group_size: int = 8
    lr: float = 3e-4
    gamma: float = GAMMA
    n_eval: int = 32
    k: int = 16
    methods: tuple[str, ...] = ("vanilla", "ds", "entropy_bonus")


def _one_seed(args: tuple[CountdownConfig, int]) -> dict[str, Any]:
    """SFT one base model from ``seed``, then GRPO with every method from it; per-prompt test metrics."""
    cfg, seed = args
    from icml26.common.threads import single_thread
    from icml26.papers.diff_smoothing._countdown import make_instances
    from icml26.papers.diff_smoothing._lm import LMConfig, evaluate, grpo_train, make_model, sft
    from icml26.papers.diff_smoothing._transforms import differential_smoothing, entropy_bonus, vanilla

    transforms = {"vanilla": vanilla(), "ds": differential_smoothing(gamma_p=cfg.gamma, gamma_n=cfg.gamma),
                  "entropy_bonus": entropy_bonus(gamma=cfg.gamma)}
    with single_thread():  # tiny matrices: one thread is fastest and avoids oversubscribing a shared machine
        train_i = make_instances(cfg.n_train, seed=seed)
        test_i = make_instances(cfg.n_test, seed=seed + 10_000, exclude={i.prompt for i in train_i})
        base = make_model(LMConfig(d_model=cfg.d_model), seed=seed)
        sft(base, train_i, steps=cfg.sft_steps, seed=seed)
        out = {"seed": seed, "base": {k: v.tolist() for k, v in evaluate(base, test_i, n=cfg.n_eval, ks=(1, cfg.k), seed=seed).items()}}
        for name in cfg.methods:
            model, hist = grpo_train(base, train_i, transforms[name], steps=cfg.rl_steps, prompts_per_step=cfg.prompts_per_step,
                                     group_size=cfg.group_size, lr=cfg.lr, seed=seed)
            ev = evaluate(model, test_i, n=cfg.n_eval, ks=(1, cfg.k), seed=seed)
            out[name] = {k: v.tolist() for k, v in ev.items()}
            out[name]["train_reward"] = hist.reward
    return out


def check_countdown(cfg: CountdownConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P32] on CountDown: DS improves both pass@1 and pass@k over vanilla GRPO (CIs over seeds)."""
    runs = ctx.map(_one_seed, [(cfg, s) for s in ctx.seeds])
    pk = f"pass@{cfg.k}"
    keys = ("pass@1", pk, "distinct_correct")
    mean = {m: {k: [float(np.mean(r[m][k])) for r in runs] for k in keys} for m in ("base", *cfg.methods)}
    measured: dict[str, Any] = {m: {k: float(np.mean(v)) for k, v in d.items()} for m, d in mean.items()}
    measured["per_seed"] = mean
    diffs: dict[str, Any] = {}
    for other in [m for m in cfg.methods if m != "ds"]:
        for k in keys:
            d = bootstrap_ci(np.array(mean["ds"][k]) - np.array(mean[other][k]), seed=0)
            diffs[f"ds-{other} {k}"] = d
    measured["ds_minus"] = {k: [d.value, d.lo, d.hi] for k, d in diffs.items()}
    main = [diffs["ds-vanilla pass@1"], diffs[f"ds-vanilla {pk}"]]
    txt = (f"DS vs vanilla: pass@1 {measured['ds']['pass@1']:.3f} vs {measured['vanilla']['pass@1']:.3f} (Δ {main[0]}), "
           f"{pk} {measured['ds'][pk]:.3f} vs {measured['vanilla'][pk]:.3f} (Δ {main[1]}); base pass@1 "
           f"{measured['base']['pass@1']:.3f}, {pk} {measured['base'][pk]:.3f}")
    if len(ctx.seeds) < 3:
        verdict, why = Verdict.INCONCLUSIVE, f"{len(ctx.seeds)} seed(s): no CI over seeds at this budget; {txt}"
    elif all(d.lo > 0 for d in main):
        verdict, why = Verdict.HOLDS, f"both differences have CIs above 0: {txt}"
    elif any(d.hi < 0 for d in main):
        verdict, why = Verdict.FAILS, f"DS below vanilla with a CI under 0 on at least one metric: {txt}"
    else:
        verdict, why = Verdict.INCONCLUSIVE, f"differences inside the seed-to-seed noise: {txt}"
    fig, ax = new_figure()
    for i, m in enumerate(("base", *cfg.methods)):
        ax.scatter(mean[m]["pass@1"], mean[m][pk], color=f"C{i}", label=m)
    ax.set(xlabel="pass@1 (held-out prompts)", ylabel=f"{pk} (unbiased, n={cfg.n_eval})",
           title=f"CountDown-3, TinyGPT d={cfg.d_model}, {cfg.rl_steps} GRPO steps; one point per seed")
    ax.legend()
    fig2, ax2 = new_figure()
    for i, m in enumerate(cfg.methods):
        rew = np.mean([r[m]["train_reward"] for r in runs], axis=0)
        ax2.plot(np.convolve(rew, np.ones(5) / 5, mode="valid"), color=f"C{i + 1}", label=m)
    ax2.set(xlabel="GRPO step", ylabel="mean group reward (train, 5-step average)")
    ax2.legend()
    eb = {k: diffs[f"ds-entropy_bonus {k}"] for k in keys} if "entropy_bonus" in cfg.methods else {}
    notes = ("Entropy bonus on all trajectories: " + ", ".join(f"DS−bonus {k} {d}" for k, d in eb.items())) if eb else ""
    return ClaimResult(verdict=verdict, reason=why, summary=txt, measured=measured,
                       figures=[render(fig, name="countdown_pass1_passk", caption="pass@1 vs pass@k per method and seed."),
                                render(fig2, name="countdown_train_reward", caption="Training reward per GRPO step.")],
                       notes=notes)
