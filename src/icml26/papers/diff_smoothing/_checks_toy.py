"""Claim checks of [P32] on the exact toy (per-prompt categorical policies; closed-form pass@k and diversity)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.figures import new_figure, render
from icml26.papers.diff_smoothing._passk import categorical_pass_at_k, correct_set_entropy, variant_pass_at_k
from icml26.papers.diff_smoothing._toy import make_toy_tasks, train_toy
from icml26.papers.diff_smoothing._transforms import (
    AdvantageTransform,
    differential_smoothing,
    entropy_bonus,
    entropy_minimization,
    vanilla,
)

GAMMA = 0.1  # γ_p = γ_n = γ for DS and γ for the entropy heuristics, fixed before any run (|γ log π| <~ 0.5 here)


@dataclass(frozen=True)
class ToyConfig:
    n_prompts: int = 200
    n_answers: int = 32
    steps: int = 100  # the pre-registered horizon: mid-training (vanilla pass@1 ≈ 0.6 from 0.18)
    lr: float = 0.1
    group_size: int = 8
    gamma: float = GAMMA
    k: int = 16
    keep_prob: float = 0.5
    modes: tuple[str, ...] = ("exact", "sampled")
    kl_beta: float = 0.5  # β of the KL-regularised optimum (theory check, Eq. 4 with π_base)


def _methods(gamma: float) -> dict[str, AdvantageTransform]:
    return {"vanilla": vanilla(), "entropy_bonus": entropy_bonus(gamma=gamma), "entropy_min": entropy_minimization(gamma=gamma),
            "ds": differential_smoothing(gamma_p=gamma, gamma_n=gamma)}


def _per_prompt(policy: np.ndarray, tasks: Any, cfg: ToyConfig) -> dict[str, np.ndarray]:
    return {"pass@1": np.asarray(categorical_pass_at_k(policy, tasks.correct, 1)),
            f"variant_pass@{cfg.k}": np.asarray(variant_pass_at_k(policy, tasks.correct, cfg.k, keep_prob=cfg.keep_prob)),
            "entropy_correct": np.asarray(correct_set_entropy(policy, tasks.correct))}


def run_toy(cfg: ToyConfig, seeds: tuple[int, ...]) -> dict[str, Any]:
    """Train every method on every seed's task set; per-prompt metrics {mode: {method: {metric: (seeds·P,)}}}."""
    per: dict[str, dict[str, dict[str, list[np.ndarray]]]] = {}
    base: dict[str, list[np.ndarray]] = {}
    curves: dict[str, dict[str, list[tuple[int, dict[str, float]]]]] = {}
    for seed in seeds:
        tasks = make_toy_tasks(cfg.n_prompts, n_answers=cfg.n_answers, seed=seed)
        for key, v in _per_prompt(tasks.base_probs, tasks, cfg).items():
            base.setdefault(key, []).append(v)
        for mode in cfg.modes:
            for name, tr in _methods(cfg.gamma).items():
                run = train_toy(tasks, tr, steps=cfg.steps, lr=cfg.lr, mode=mode, group_size=cfg.group_size,
                                seed=seed + 1000, ks=(cfg.k,), keep_prob=cfg.keep_prob, record_every=max(1, cfg.steps // 20))
                for key, v in _per_prompt(run.policy_, tasks, cfg).items():
                    per.setdefault(mode, {}).setdefault(name, {}).setdefault(key, []).append(v)
                if seed == seeds[0]:
                    curves.setdefault(mode, {})[name] = run.history
    cat = {m: {n: {k: np.concatenate(v) for k, v in d.items()} for n, d in md.items()} for m, md in per.items()}
    return {"per": cat, "base": {k: np.concatenate(v) for k, v in base.items()}, "curves": curves}


def _diff(a: np.ndarray, b: np.ndarray) -> Any:
    return bootstrap_ci(a - b, seed=0)


def _sign(est: Any) -> int:
    """+1 if the CI is above 0, −1 if below, 0 if it straddles 0."""
    return 1 if est.lo > 0 else (-1 if est.hi < 0 else 0)


def _curve_figure(curves: dict[str, Any], cfg: ToyConfig, name: str, caption: str) -> Any:
    fig, ax = new_figure()
    for i, (meth, hist) in enumerate(curves.items()):
        x = [m["pass@1"] for _, m in hist]
        y = [m["entropy_correct"] for _, m in hist]
        ax.plot(x, y, "-o", ms=2, color=f"C{i}", label=meth)
    ax.set(xlabel="pass@1", ylabel="normalised entropy of π(·|C)", title=f"exact toy: path over {cfg.steps} GRPO steps")
    ax.legend()
    return render(fig, name=name, caption=caption)


def check_vanilla_collapse(cfg: ToyConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P32]: vanilla RL fine-tuning collapses diversity (selection and reinforcement bias)."""
    res = run_toy(cfg, ctx.seeds)
    measured: dict[str, Any] = {"base_entropy_correct": float(res["base"]["entropy_correct"].mean()),
                                "base_pass@1": float(res["base"]["pass@1"].mean())}
    signs = []
    for mode in cfg.modes:
        v = res["per"][mode]["vanilla"]
        d = _diff(v["entropy_correct"], res["base"]["entropy_correct"])
        measured[f"{mode}_entropy_correct"] = float(v["entropy_correct"].mean())
        measured[f"{mode}_entropy_drop_ci"] = [d.value, d.lo, d.hi]
        measured[f"{mode}_pass@1"] = float(v["pass@1"].mean())
        signs.append(_sign(d))
    txt = "; ".join(f"{m}: H_C {measured['base_entropy_correct']:.3f} → {measured[f'{m}_entropy_correct']:.3f} "
                    f"(Δ {measured[f'{m}_entropy_drop_ci'][0]:+.3f} [{measured[f'{m}_entropy_drop_ci'][1]:+.3f}, "
                    f"{measured[f'{m}_entropy_drop_ci'][2]:+.3f}])" for m in cfg.modes)
    if all(s == -1 for s in signs):
        verdict, why = Verdict.HOLDS, f"vanilla GRPO lowers the correct-set entropy in every mode (CI below 0): {txt}"
    elif any(s == 1 for s in signs):
        verdict, why = Verdict.FAILS, f"vanilla GRPO raises the correct-set entropy somewhere: {txt}"
    else:
        verdict, why = Verdict.INCONCLUSIVE, f"entropy change not resolved from 0 in every mode: {txt}"
    fig = _curve_figure(res["curves"][cfg.modes[0]], cfg, "toy_entropy_vs_pass1",
                        "Correct-set entropy vs pass@1 along training, one curve per advantage transform (first seed).")
    return ClaimResult(verdict=verdict, reason=why, summary=txt, measured=measured, figures=[fig],
                       notes="Bar: the per-prompt entropy change of π(·|C) after training has a 95% bootstrap CI below 0 "
                       "in both the exact (infinite-group) and the sampled (G=8) GRPO dynamics.")


def kl_optimum(base: np.ndarray, correct: np.ndarray, *, beta: float, gamma_p: float, gamma_n: float) -> np.ndarray:
    """The optimum of E_π[r] − β KL(π‖π_base) with reward r (γ = 0) or r_DS of Eq. (4): π* ∝ π_base·exp(r̃/β)."""
    lb = np.log(base)
    r = correct.astype(float)
    rt = np.where(correct, r - gamma_p * lb, r + gamma_n * lb)
    z = lb + rt / beta
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def check_ds_improves_both(cfg: ToyConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P32]: DS improves both pass@1 and pass@k over vanilla RL (at the same number of GRPO steps)."""
    res = run_toy(cfg, ctx.seeds)
    vk = f"variant_pass@{cfg.k}"
    measured: dict[str, Any] = {}
    signs = []
    parts = []
    for mode in cfg.modes:
        ds, va = res["per"][mode]["ds"], res["per"][mode]["vanilla"]
        for key in ("pass@1", vk, "entropy_correct"):
            d = _diff(ds[key], va[key])
            measured[f"{mode}_{key}"] = {"ds": float(ds[key].mean()), "vanilla": float(va[key].mean()), "diff_ci": [d.value, d.lo, d.hi]}
            if key != "entropy_correct":
                signs.append(_sign(d))
            parts.append(f"{mode} {key}: DS {ds[key].mean():.3f} vs {va[key].mean():.3f} (Δ {d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}])")
    # theory check (not part of the verdict): the closed-form KL-regularised optima of Eq. (4) vs vanilla
    tasks = make_toy_tasks(cfg.n_prompts, n_answers=cfg.n_answers, seed=ctx.seeds[0])
    opt = {n: kl_optimum(tasks.base_probs, tasks.correct, beta=cfg.kl_beta, gamma_p=g, gamma_n=g) for n, g in (("vanilla", 0.0), ("ds", cfg.gamma))}
    measured["kl_optimum"] = {n: {k: float(v.mean()) for k, v in _per_prompt(p, tasks, cfg).items()} for n, p in opt.items()}
    txt = "; ".join(parts)
    if all(s == 1 for s in signs):
        verdict, why = Verdict.HOLDS, f"DS beats vanilla on pass@1 and variant pass@{cfg.k} (CIs above 0): {txt}"
    elif any(s == -1 for s in signs):
        verdict, why = Verdict.FAILS, f"DS is below vanilla on at least one of pass@1 / variant pass@{cfg.k}: {txt}"
    else:
        verdict, why = Verdict.INCONCLUSIVE, f"some differences straddle 0: {txt}"
    fig, ax = new_figure()
    names = list(res["per"][cfg.modes[0]])
    for j, mode in enumerate(cfg.modes):
        xs = [res["per"][mode][n]["pass@1"].mean() for n in names]
        ys = [res["per"][mode][n][vk].mean() for n in names]
        ax.scatter(xs, ys, marker="os"[j % 2], c=[f"C{i}" for i in range(len(names))], label=mode)
        for n, x, y in zip(names, xs, ys):
            ax.annotate(n, (x, y), fontsize=7)
    ax.scatter([res["base"]["pass@1"].mean()], [res["base"][vk].mean()], marker="x", c="k", label="base")
    ax.set(xlabel="pass@1", ylabel=f"variant pass@{cfg.k} (q={cfg.keep_prob})", title=f"exact toy after {cfg.steps} steps")
    ax.legend()
    fig = render(fig, name="toy_pass1_vs_variant_passk", caption="pass@1 vs variant pass@k after training, per method and mode.")
    return ClaimResult(verdict=verdict, reason=why,
                       summary=f"{cfg.modes[0]}: Δpass@1 {measured[f'{cfg.modes[0]}_pass@1']['diff_ci'][0]:+.3f}, "
                       f"Δvariant pass@{cfg.k} {measured[f'{cfg.modes[0]}_{vk}']['diff_ci'][0]:+.3f}",
                       measured=measured, figures=[fig, _curve_figure(res["curves"][cfg.modes[0]], cfg, "toy_paths",
                                                                     "Entropy of π(·|C) vs pass@1 along training (first seed).")],
                       notes="Pass@k on the train correct set is 1−(1−pass@1)^k, so the diversity-sensitive pass@k is the "
                       f"variant pass@k (each correct answer stays correct w.p. q={cfg.keep_prob}). kl_optimum: the "
                       "closed-form optima of the KL-regularised objective (Eq. 4 with π_base), the setting of the paper's theory.")


def check_entropy_heuristics(cfg: ToyConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P32]: entropy heuristics trade correctness for diversity (bonus) or the reverse (minimisation)."""
    res = run_toy(cfg, ctx.seeds)
    vk = f"variant_pass@{cfg.k}"
    # predictions fixed in advance from the theory: bonus raises H_C and lowers pass@1; minimisation the reverse;
    # DS has a higher pass@1 than the entropy bonus.
    preds = [("entropy_bonus", "vanilla", "entropy_correct", 1), ("entropy_bonus", "vanilla", "pass@1", -1),
             ("entropy_min", "vanilla", "entropy_correct", -1), ("entropy_min", "vanilla", "pass@1", 1),
             ("ds", "entropy_bonus", "pass@1", 1)]
    measured: dict[str, Any] = {}
    outcomes = []
    for mode in cfg.modes:
        per = res["per"][mode]
        measured[mode] = {n: {k: float(v.mean()) for k, v in d.items()} for n, d in per.items()}
        for a, b, key, want in preds:
            d = _diff(per[a][key], per[b][key])
            outcomes.append((mode, a, b, key, want, _sign(d), d))
    measured["predictions"] = [{"mode": m, "a": a, "b": b, "metric": k, "predicted_sign": w, "observed_sign": s,
                                "diff_ci": [d.value, d.lo, d.hi]} for m, a, b, k, w, s, d in outcomes]
    wrong = [o for o in outcomes if o[5] == -o[4]]
    unresolved = [o for o in outcomes if o[5] == 0]
    fmt = lambda o: f"{o[0]} {o[1]}−{o[2]} {o[3]} {o[6].value:+.3f} [{o[6].lo:+.3f}, {o[6].hi:+.3f}]"  # noqa: E731
    if wrong:
        verdict, why = Verdict.FAILS, "prediction contradicted: " + "; ".join(map(fmt, wrong))
    elif unresolved:
        verdict, why = Verdict.INCONCLUSIVE, "unresolved: " + "; ".join(map(fmt, unresolved))
    else:
        verdict, why = Verdict.HOLDS, f"all {len(outcomes)} predicted signs observed with CIs excluding 0"
    fig = _curve_figure(res["curves"][cfg.modes[0]], cfg, "toy_heuristics_paths",
                        "Entropy of π(·|C) vs pass@1 along training for vanilla, entropy bonus, entropy minimisation and DS.")
    m0 = measured[cfg.modes[0]]
    summary = ", ".join(f"{n}: pass@1 {d['pass@1']:.3f} H_C {d['entropy_correct']:.3f} v@{cfg.k} {d[vk]:.3f}" for n, d in m0.items())
    return ClaimResult(verdict=verdict, reason=why, summary=f"{cfg.modes[0]} — {summary}", measured=measured, figures=[fig])
