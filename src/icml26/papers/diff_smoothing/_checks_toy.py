"""Claim checks of [P32] on the exact toy (per-prompt categorical policies; closed-form pass@k and diversity)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.common.stats import bootstrap_ci
from icml26.figures import new_figure, render
from icml26.papers.diff_smoothing._passk import (
    categorical_pass_at_k,
    correct_set_entropy,
    variant_pass_at_k,
)
from icml26.papers.diff_smoothing._toy import kl_optimum, make_toy_tasks, train_toy
from icml26.papers.diff_smoothing._transforms import (
    AdvantageTransform,
    differential_smoothing,
    entropy_bonus,
    entropy_minimization,
    vanilla,
)
from icml26.papers.diff_smoothing._verdicts import (
    ci_sign,
    improves_all_rule,
    predicted_signs_rule,
)

GAMMA = 0.1  # γ_p = γ_n = γ for DS and γ for the entropy heuristics, fixed before any run (|γ log π| <~ 0.5 here)


@dataclass(frozen=True, kw_only=True)
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


def _curve_figure(curves: dict[str, Any], cfg: ToyConfig, name: str, caption: str) -> Any:
    fig, ax = new_figure()
    for i, (meth, hist) in enumerate(curves.items()):
        x = [m["pass@1"] for _, m in hist]
        y = [m["entropy_correct"] for _, m in hist]
        ax.plot(x, y, "-o", ms=2, color=f"C{i}", label=meth)
    ax.set(xlabel="pass@1", ylabel="normalised entropy of π(·|C)", title=f"exact toy: path over {cfg.steps} GRPO steps")
    ax.legend()
    return render(fig, name=name, caption=caption)


def toy_collapse_illustration(cfg: ToyConfig, seeds: tuple[int, ...]) -> tuple[list[dict[str, Any]], Any]:
    """Vanilla GRPO on the exact toy, an illustration for ``vanilla_collapse`` that never decides its verdict: one row
    per seed with the base and trained pass@1 and correct-set entropy, and the first seed's path as a figure.

    In exact mode every correct answer gets the same advantage, so π_i/π_j on C grows with π_i − π_j: the entropy of
    π(·|C) falls by construction whenever π_base is non-uniform on C. The toy shows the mechanism; it cannot test it.
    """
    rows: list[dict[str, Any]] = []
    path = None
    for seed in seeds:
        tasks = make_toy_tasks(cfg.n_prompts, n_answers=cfg.n_answers, seed=seed)
        run = train_toy(tasks, vanilla(), steps=cfg.steps, lr=cfg.lr, ks=(cfg.k,), keep_prob=cfg.keep_prob,
                        record_every=max(1, cfg.steps // 20))
        h0, h1 = run.history[0][1], run.final
        rows.append({"seed": seed, "base_pass@1": h0["pass@1"], "vanilla_pass@1": h1["pass@1"],
                     "base_entropy_correct": h0["entropy_correct"], "vanilla_entropy_correct": h1["entropy_correct"]})
        path = path or run.history
    fig = _curve_figure({"vanilla": path}, cfg, "toy_vanilla_path",
                        "Illustration only: correct-set entropy vs pass@1 along exact vanilla GRPO on the toy (first seed).")
    return rows, fig


def check_ds_improves_both(cfg: ToyConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P32]: DS improves both pass@1 and pass@k over vanilla RL (at the same number of GRPO steps)."""
    res = run_toy(cfg, ctx.seeds)
    vk = f"variant_pass@{cfg.k}"
    measured: dict[str, Any] = {}
    decisive = []
    parts = []
    for mode in cfg.modes:
        ds, va = res["per"][mode]["ds"], res["per"][mode]["vanilla"]
        for key in ("pass@1", vk, "entropy_correct"):
            d = _diff(ds[key], va[key])
            measured[f"{mode}_{key}"] = {"ds": float(ds[key].mean()), "vanilla": float(va[key].mean()), "diff_ci": [d.value, d.lo, d.hi]}
            if key != "entropy_correct":
                decisive.append(d)
            parts.append(f"{mode} {key}: DS {ds[key].mean():.3f} vs {va[key].mean():.3f} (Δ {d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}])")
    # theory check (not part of the verdict): the closed-form KL-regularised optima of Eq. (4) vs vanilla
    tasks = make_toy_tasks(cfg.n_prompts, n_answers=cfg.n_answers, seed=ctx.seeds[0])
    opt = {n: kl_optimum(tasks.base_probs, tasks.correct, beta=cfg.kl_beta, gamma_p=g, gamma_n=g) for n, g in (("vanilla", 0.0), ("ds", cfg.gamma))}
    measured["kl_optimum"] = {n: {k: float(v.mean()) for k, v in _per_prompt(p, tasks, cfg).items()} for n, p in opt.items()}
    txt = "; ".join(parts)
    verdict, rule = improves_all_rule(decisive)
    why = f"{rule} (pass@1 and variant pass@{cfg.k}, every mode): {txt}"
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
            outcomes.append((mode, a, b, key, want, ci_sign(d), d))
    measured["predictions"] = [{"mode": m, "a": a, "b": b, "metric": k, "predicted_sign": w, "observed_sign": s,
                                "diff_ci": [d.value, d.lo, d.hi]} for m, a, b, k, w, s, d in outcomes]
    verdict, rule = predicted_signs_rule([(o[4], o[6]) for o in outcomes])
    off = [o for o in outcomes if o[5] != o[4]]
    fmt = lambda o: f"{o[0]} {o[1]}−{o[2]} {o[3]} {o[6].value:+.3f} [{o[6].lo:+.3f}, {o[6].hi:+.3f}]"
    why = rule + (": " + "; ".join(map(fmt, off)) if off else "")
    fig = _curve_figure(res["curves"][cfg.modes[0]], cfg, "toy_heuristics_paths",
                        "Entropy of π(·|C) vs pass@1 along training for vanilla, entropy bonus, entropy minimisation and DS.")
    m0 = measured[cfg.modes[0]]
    summary = ", ".join(f"{n}: pass@1 {d['pass@1']:.3f} H_C {d['entropy_correct']:.3f} v@{cfg.k} {d[vk]:.3f}" for n, d in m0.items())
    return ClaimResult(verdict=verdict, reason=why, summary=f"{cfg.modes[0]} — {summary}", measured=measured, figures=[fig])
