"""What the [P32] claims measure on the exact toy (per-prompt categorical policies; closed-form pass@k and diversity).

``ds_improves_both`` (its finite-step finding, ``_checks_optimum.py``) and ``entropy_heuristics`` form one run group
(``group = "toy"``): the training runs of every method in every mode are computed once through
``ctx.shared(run_toy, ...)`` when they run together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.common.stats import bootstrap_ci
from icml26.figures import FigureData, new_figure, render
from icml26.papers.diff_smoothing._passk import categorical_pass_at_k, correct_set_entropy, variant_pass_at_k
from icml26.papers.diff_smoothing._rules import judge_signs
from icml26.papers.diff_smoothing._toy import ToyTasks, make_toy_tasks, train_toy
from icml26.papers.diff_smoothing._transforms import (
    AdvantageTransform,
    differential_smoothing,
    entropy_bonus,
    entropy_minimization,
    vanilla,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.diff_smoothing.claims import ToyConfig

__all__ = ["check_entropy_heuristics", "curve_figure", "finite_steps", "run_toy", "toy_collapse_illustration"]


def _methods(gamma: float) -> dict[str, AdvantageTransform]:
    return {"vanilla": vanilla(), "entropy_bonus": entropy_bonus(gamma=gamma),
            "entropy_min": entropy_minimization(gamma=gamma), "ds": differential_smoothing(gamma_p=gamma, gamma_n=gamma)}


def _per_prompt(policy: np.ndarray, tasks: ToyTasks, cfg: ToyConfig) -> dict[str, np.ndarray]:
    return {"pass@1": np.asarray(categorical_pass_at_k(policy, tasks.correct, 1)),
            f"variant_pass@{cfg.k}": np.asarray(variant_pass_at_k(policy, tasks.correct, cfg.k, keep_prob=cfg.keep_prob)),
            "entropy_correct": np.asarray(correct_set_entropy(policy, tasks.correct))}


def run_toy(cfg: ToyConfig, seeds: tuple[int, ...]) -> dict[str, Any]:
    """Train every method on every seed's task set: per-prompt metrics ``{mode: {method: {metric: (seeds·P,)}}}``,
    the base policy's, and the first seed's training paths."""
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
                                seed=seed + 1000, ks=(cfg.k,), keep_prob=cfg.keep_prob,
                                record_every=max(1, cfg.steps // 20))
                for key, v in _per_prompt(run.policy_, tasks, cfg).items():
                    per.setdefault(mode, {}).setdefault(name, {}).setdefault(key, []).append(v)
                if seed == seeds[0]:
                    curves.setdefault(mode, {})[name] = run.history
    cat = {m: {n: {k: np.concatenate(v) for k, v in d.items()} for n, d in md.items()} for m, md in per.items()}
    return {"per": cat, "base": {k: np.concatenate(v) for k, v in base.items()}, "curves": curves}


def curve_figure(curves: dict[str, Any], cfg: ToyConfig, name: str, caption: str) -> FigureData:
    fig, ax = new_figure()
    for i, (meth, hist) in enumerate(curves.items()):
        ax.plot([m["pass@1"] for _, m in hist], [m["entropy_correct"] for _, m in hist], "-o", ms=2, color=f"C{i}",
                label=meth)
    ax.set(xlabel="pass@1", ylabel="normalised entropy of π(·|C)", title=f"exact toy: path over {cfg.steps} GRPO steps")
    ax.legend()
    return render(fig, name=name, caption=caption)


def toy_collapse_illustration(cfg: ToyConfig, seeds: tuple[int, ...]) -> tuple[list[dict[str, Any]], FigureData]:
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
    fig = curve_figure({"vanilla": path}, cfg, "toy_vanilla_path",
                        "Illustration only: correct-set entropy vs pass@1 along exact vanilla GRPO on the toy (first seed).")
    return rows, fig


def finite_steps(res: dict[str, Any], cfg: ToyConfig) -> tuple[dict[str, Any], str]:
    """DS − vanilla after ``cfg.steps`` GRPO steps, per mode (our own finding: the abstract makes no such claim)."""
    measured: dict[str, Any] = {}
    parts = []
    for mode in cfg.modes:
        ds, va = res["per"][mode]["ds"], res["per"][mode]["vanilla"]
        txt = []
        for key in ("pass@1", f"variant_pass@{cfg.k}", "entropy_correct"):
            d = bootstrap_ci(ds[key] - va[key], seed=0)
            measured[f"{mode}_{key}"] = {"ds": float(ds[key].mean()), "vanilla": float(va[key].mean()),
                                         "diff_ci": [d.value, d.lo, d.hi]}
            txt.append(f"{key} {d.value:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}]")
        parts.append(f"{mode}: " + ", ".join(txt))
    return measured, f"DS − vanilla after {cfg.steps} GRPO steps, γ = {cfg.gamma:g}: " + "; ".join(parts)


def check_entropy_heuristics(cfg: ToyConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P32]: entropy heuristics trade correctness for diversity (bonus) or the reverse (minimisation),
    and DS outperforms them; the theory's predicted signs, in both training modes."""
    res = ctx.shared(run_toy, cfg, ctx.seeds)
    per = {mode: {n: {k: v.tolist() for k, v in d.items()} for n, d in res["per"][mode].items()} for mode in cfg.modes}
    j = judge_signs(per, bars=ctx.bars)
    vk = f"variant_pass@{cfg.k}"
    means = {mode: {n: {k: float(v.mean()) for k, v in d.items()} for n, d in res["per"][mode].items()}
             for mode in cfg.modes}
    m0 = means[cfg.modes[0]]
    summary = ", ".join(f"{n}: pass@1 {d['pass@1']:.3f} H_C {d['entropy_correct']:.3f} v@{cfg.k} {d[vk]:.3f}"
                        for n, d in m0.items())
    fig = curve_figure(res["curves"][cfg.modes[0]], cfg, "toy_heuristics_paths",
                        "Entropy of π(·|C) vs pass@1 along training for vanilla, entropy bonus, entropy minimisation and DS.")
    return ClaimResult.judged(j, summary=f"{cfg.modes[0]} — {summary}", measured=means, figures=[fig])
