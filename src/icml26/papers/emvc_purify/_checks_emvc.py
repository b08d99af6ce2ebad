"""What ``feb_kendall``, ``accuracy_gain`` and ``no_harm_clean`` measure: [P08]'s fitness evaluation bias on a fixed
population, and the evolutionary search (EMVC) run on noisy, purified and clean labels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import kendalltau

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.emvc_purify._checks_common import annotator_scores, make_pool, run_purify
from icml26.papers.emvc_purify._evolution import EvolutionaryFusion
from icml26.papers.emvc_purify._fusion import train_fusion
from icml26.papers.emvc_purify._rules import judge_feb, judge_gain, judge_no_harm
from icml26.papers.emvc_purify._trees import Tree, random_tree, tree_str

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.emvc_purify.claims import FebConfig, GainConfig, NoHarmConfig


def fixed_population(n_views: int, size: int, max_depth: int, seed: int) -> list[Tree]:
    """``size`` distinct random trees (grow method, leaves half the time below the root) from ``seed``."""
    rng = np.random.default_rng(seed + 1000)
    pop: list[Tree] = []
    for _ in range(100 * size):
        t = random_tree(n_views, max_depth=max_depth, rng=rng, p_leaf=0.5)
        if t not in pop:
            pop.append(t)
        if len(pop) == size:
            break
    return pop


def _tau(a: list[float], b: list[float]) -> float:
    res: Any = kendalltau(a, b)  # a result object the stubs describe as a tuple
    t = float(res.statistic)
    return 0.0 if np.isnan(t) else t  # every fitness tied: no ranking, no agreement


def feb_task(item: tuple[Any, ...]) -> list[dict[str, Any]]:
    """One seed: a fixed population's reference ranking (clean training, clean test) and its fitness rankings with
    noisy and with purified labels at each rate (training and validation labels alike)."""
    cfg, seed, scores = item
    base = make_pool(cfg.dataset, "boundary", 0.0, seed, None)
    pop = fixed_population(len(base.data.views), cfg.population, cfg.max_depth, seed)
    kw = {"n_classes": base.data.n_classes, "width": cfg.width, "epochs": cfg.epochs, "seed": seed}
    test_views, test_labels = base.views(base.test), base.data.labels[base.test]

    def fitness(p: Any, labels: np.ndarray) -> list[float]:
        tv, ty, vv, vy = p.parts(labels)
        return [train_fusion(t, tv, ty, **kw).score(vv, vy) for t in pop]

    tv, ty, vv, vy = base.parts(base.clean)
    models = [train_fusion(t, tv, ty, **kw) for t in pop]
    reference = [m.score(test_views, test_labels) for m in models]
    clean_fit = [m.score(vv, vy) for m in models]
    rows = []
    for rate in cfg.rates:
        p = make_pool(cfg.dataset, "boundary", rate, seed, scores)
        res = run_purify(p, cfg.purifier, rate, seed)
        noisy_fit, pur_fit = fitness(p, p.noisy), fitness(p, res.labels)
        rows.append({"rate": rate, "seed": seed, "tau_noisy": _tau(noisy_fit, reference),
                     "tau_purified": _tau(pur_fit, reference), "tau_clean": _tau(clean_fit, reference),
                     "reference": reference, "fitness_noisy": noisy_fit, "fitness_purified": pur_fit,
                     "trees": [tree_str(t, base.data.view_names) for t in pop]})
    return rows


def check_feb_kendall(cfg: FebConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P08]: purification alleviates fitness evaluation bias (Kendall τ to the clean ranking rises)."""
    scores = annotator_scores(cfg.dataset)
    rows = [r for rs in ctx.map(feb_task, [(cfg, s, scores) for s in ctx.seeds]) for r in rs]
    j = judge_feb(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, key in enumerate(("tau_noisy", "tau_purified", "tau_clean")):
        for rate in cfg.rates:
            v = [r[key] for r in rows if r["rate"] == rate]
            ax.scatter([rate + 0.02 * (i - 1)] * len(v), v, color=f"C{i}", label=key if rate == cfg.rates[0] else None)
    ax.axhline(0.0, color="gray", lw=0.8)
    ax.set(xlabel="boundary-noise rate", ylabel="Kendall τ to the clean-test ranking",
           title=f"{cfg.dataset}: {cfg.population} fixed fusion trees, one point per seed")
    ax.legend()
    mean = {(rate, k): float(np.mean([r[k] for r in rows if r["rate"] == rate]))
            for rate in cfg.rates for k in ("tau_noisy", "tau_purified", "tau_clean")}
    text = "; ".join(f"r={rate:.0%}: τ noisy {mean[rate, 'tau_noisy']:.3f} -> purified {mean[rate, 'tau_purified']:.3f} "
                     f"(clean labels {mean[rate, 'tau_clean']:.3f})" for rate in cfg.rates)
    return ClaimResult.judged(j, summary=text, rows=rows, figures=[render(
        fig, name="feb_kendall", caption="Kendall τ between validation fitness and the clean-test reference ranking "
        "of a fixed population, with noisy, purified and clean training/validation labels.")],
        notes="Reference ranking: each tree trained on the clean training labels, scored on the clean test split; "
        "the same initialisation per tree in every condition, so only the labels differ.")


def _search(cfg: Any, seed: int) -> EvolutionaryFusion:
    return EvolutionaryFusion(population=cfg.population, generations=cfg.generations, max_depth=cfg.max_depth,
                              width=cfg.width, epochs=cfg.epochs, seed=seed)


def _best_acc(search: Any, p: Any, labels: np.ndarray, seed: int) -> tuple[float, str, float]:
    tv, ty, vv, vy = p.parts(labels)
    ef = _search(search, seed).fit(tv, ty, vv, vy, n_classes=p.data.n_classes)
    acc = ef.score(p.views(p.test), p.data.labels[p.test])
    return acc, ef.best_str(p.data.view_names), float(ef.best_fitness_)


def gain_task(item: tuple[Any, ...]) -> dict[str, Any]:
    """One (rate, seed): the search on noisy and on purified labels; the best individual's clean test accuracy."""
    cfg, rate, seed, scores = item
    p = make_pool(cfg.dataset, "boundary", rate, seed, scores)
    res = run_purify(p, cfg.purifier, rate, seed)
    row: dict[str, Any] = {"rate": rate, "seed": seed}
    for name, labels in (("noisy", p.noisy), ("purified", res.labels)):
        row[f"acc_{name}"], row[f"best_{name}"], row[f"fitness_{name}"] = _best_acc(cfg.search, p, labels, seed)
    return row


def check_accuracy_gain(cfg: GainConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P08]: purification improves EMVC under label noise (best individual's clean test accuracy)."""
    scores = annotator_scores(cfg.dataset)
    rows = ctx.map(gain_task, [(cfg, r, s, scores) for r in cfg.rates for s in ctx.seeds])
    j = judge_gain(rows, bars=ctx.bars, rate=cfg.judged_rate)
    fig, ax = new_figure()
    for rate in cfg.rates:
        sel = [r for r in rows if r["rate"] == rate]
        for r in sel:
            ax.plot([0, 1], [r["acc_noisy"], r["acc_purified"]], color="C0" if rate == cfg.judged_rate else "C7",
                    marker="o", alpha=0.7)
    ax.set_xticks([0, 1], ["noisy labels", "purified labels"])
    ax.set(ylabel="best individual's clean test accuracy", title=f"{cfg.dataset}, boundary noise {cfg.rates}")
    text = "; ".join(
        f"r={rate:.0%}: noisy {np.mean([r['acc_noisy'] for r in rows if r['rate'] == rate]):.3f} -> purified "
        f"{np.mean([r['acc_purified'] for r in rows if r['rate'] == rate]):.3f}" for rate in cfg.rates)
    return ClaimResult.judged(j, summary=text, rows=rows, figures=[render(
        fig, name="accuracy_gain", caption="Clean test accuracy of the search's best individual per seed (blue: the "
        "judged rate), searching with noisy vs purified labels.")])


def no_harm_task(item: tuple[Any, ...]) -> dict[str, Any]:
    """One (data set, seed) with clean labels: purify at a fixed contamination, search with both label sets."""
    cfg, name, seed = item
    p = make_pool(name, "boundary", 0.0, seed, None)
    res = run_purify(p, cfg.purifier, cfg.contamination, seed)
    row: dict[str, Any] = {"dataset": name, "seed": seed, "n_detected": int(res.detected.size),
                           "n_changed": int(res.changed.size)}
    for key, labels in (("original", p.noisy), ("purified", res.labels)):
        row[f"acc_{key}"], row[f"best_{key}"], row[f"fitness_{key}"] = _best_acc(cfg.search, p, labels, seed)
    return row


def check_no_harm_clean(cfg: NoHarmConfig, ctx: Context) -> ClaimResult:
    """[P08] applied to clean labels (the noise level is unknown to a user): the search is not made worse."""
    rows = ctx.map(no_harm_task, [(cfg, d, s) for d in cfg.datasets for s in ctx.seeds])
    j = judge_no_harm(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, d in enumerate(cfg.datasets):
        diffs = [r["acc_purified"] - r["acc_original"] for r in rows if r["dataset"] == d]
        ax.scatter([i] * len(diffs), diffs, color=f"C{i}")
    ax.axhline(0.0, color="gray", lw=0.8)
    ax.set_xticks(range(len(cfg.datasets)), list(cfg.datasets))
    ax.set(ylabel="purified − original accuracy", title=f"clean labels, contamination {cfg.contamination:g}")
    text = "; ".join(
        f"{d}: original {np.mean([r['acc_original'] for r in rows if r['dataset'] == d]):.3f}, purified "
        f"{np.mean([r['acc_purified'] for r in rows if r['dataset'] == d]):.3f}, relabelled "
        f"{np.mean([r['n_changed'] for r in rows if r['dataset'] == d]):.1f} of "
        f"{np.mean([r['n_detected'] for r in rows if r['dataset'] == d]):.1f} detected" for d in cfg.datasets)
    return ClaimResult.judged(j, summary=text, rows=rows, figures=[render(
        fig, name="no_harm", caption="Best individual's clean test accuracy, purified minus original labels, per seed, "
        "when the labels carry no noise.")])
