"""What ``detection_f1`` and ``beats_baselines`` measure ([P08]'s detection step, and the purification against
small-loss filtering and confident learning at an equal budget), with their figures."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.emvc_purify._baselines import confident_learning_filter, small_loss_filter
from icml26.papers.emvc_purify._checks_common import (
    annotator_scores,
    detection_scores,
    downstream_accuracy,
    make_pool,
    run_purify,
)
from icml26.papers.emvc_purify._purify import gradient_outliers
from icml26.papers.emvc_purify._rules import BASELINES, judge_baselines, judge_detection

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.emvc_purify.claims import BaselineConfig, DetectConfig


def _scores_for(datasets: tuple[str, ...], kinds: tuple[str, ...]) -> dict[str, np.ndarray | None]:
    return {d: annotator_scores(d) if "boundary" in kinds else None for d in datasets}


def detect_task(item: tuple[Any, ...]) -> dict[str, Any]:
    """One (data set, noise kind, rate, seed): purify with contamination = r; detection at the other contaminations."""
    cfg, name, kind, rate, seed, scores = item
    p = make_pool(name, kind, rate, seed, scores)
    noisy = p.noisy_set
    res = run_purify(p, cfg.purifier, rate, seed)
    row = {"dataset": name, "kind": kind, "rate": rate, "seed": seed, "n_noisy": int(noisy.size),
           "n_detected": int(res.detected.size), **detection_scores(res.detected, noisy),
           "label_acc_noisy": float(np.mean(p.noisy == p.clean)), "label_acc_purified": float(np.mean(res.labels == p.clean))}
    hit = res.detected[np.isin(res.detected, noisy)]
    row["relabel_acc"] = float(np.mean(res.labels[hit] == p.clean[hit])) if hit.size else None
    v = p.views(p.pool)
    h, z = res.first_model.features(v), res.first_model.logits(v)
    for c in cfg.contaminations:
        det = gradient_outliers(h, z, p.noisy, contamination=c, random_state=seed, n_estimators=cfg.purifier.n_estimators)
        row[f"f1_c{c:g}"] = detection_scores(det, noisy)["f1"]
        row[f"random_f1_c{c:g}"] = 2 * rate * c / (rate + c)
    return row


def _mean(rows: list[dict[str, Any]], key: str) -> float:
    return float(np.mean([r[key] for r in rows]))


def check_detection_f1(cfg: DetectConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P08]: gradient-space outliers are the noisy samples (F1 of the detected set vs the base rate r)."""
    scores = _scores_for(cfg.datasets, cfg.kinds)
    items = [(cfg, d, k, r, s, scores[d] if k == "boundary" else None)
             for d in cfg.datasets for k in cfg.kinds for r in cfg.rates for s in ctx.seeds]
    rows = ctx.map(detect_task, items)
    j = judge_detection(rows, bars=ctx.bars)
    cells = sorted({(r["dataset"], r["kind"], r["rate"]) for r in rows})
    by = {c: [r for r in rows if (r["dataset"], r["kind"], r["rate"]) == c] for c in cells}
    fig, ax = new_figure(width=7.0, height=4.0)
    xs = np.arange(len(cells))
    ax.bar(xs, [_mean(by[c], "f1") for c in cells], color=["C0" if c[1] == "boundary" else "C7" for c in cells],
           yerr=[np.std([r["f1"] for r in by[c]]) for c in cells])
    ax.scatter(xs, [c[2] for c in cells], marker="_", s=400, color="C3", label="base rate r (random detector)", zorder=3)
    ax.set_xticks(xs, [f"{d}\n{k} {r:.0%}" for d, k, r in cells], fontsize=7)
    ax.set(ylabel="detection F1 (contamination = r)", ylim=(0, 1), title="gradient-space outliers vs the noisy set")
    ax.legend()
    text = "; ".join(f"{d} {k} {r:.0%}: F1 {_mean(by[(d, k, r)], 'f1'):.3f}" for d, k, r in cells)
    findings = {f"contamination {c:g}" + (" (the released default)" if c == 0.05 else ""): "; ".join(
        f"{d} {k} {r:.0%}: F1 {_mean(by[(d, k, r)], f'f1_c{c:g}'):.3f} vs random {2 * r * c / (r + c):.3f}"
        for d, k, r in cells) for c in cfg.contaminations}
    findings["labels correct before -> after purification"] = "; ".join(
        f"{d} {k} {r:.0%}: {_mean(by[(d, k, r)], 'label_acc_noisy'):.3f} -> "
        f"{_mean(by[(d, k, r)], 'label_acc_purified'):.3f}" for d, k, r in cells)
    return ClaimResult.judged(j, summary=text, rows=rows, findings=findings, figures=[render(
        fig, name="detection_f1", caption="Mean detection F1 per data set, noise kind and rate (grey: symmetric "
        "control), error bars one s.d. over seeds; red ticks: the F1 of a random detector flagging the same fraction.")])


def baseline_task(item: tuple[Any, ...]) -> dict[str, Any]:
    """One (data set, rate, seed): ours, small-loss and confident learning at the same budget, then the same
    downstream classifier on each result (ours relabels its detected set, the baselines drop theirs)."""
    cfg, name, rate, seed, scores = item
    p = make_pool(name, "boundary", rate, seed, scores)
    noisy = p.noisy_set
    res = run_purify(p, cfg.purifier, rate, seed)
    k = int(res.detected.size)
    v = p.views(p.pool)
    flagged = {"small_loss": small_loss_filter(res.first_model.logits(v), p.noisy, budget=k),
               "confident_learning": confident_learning_filter(
                   v, p.noisy, budget=k, seed=seed, folds=cfg.folds, n_classes=p.data.n_classes,
                   hidden=cfg.purifier.hidden, epochs=cfg.purifier.epochs, lr=cfg.purifier.lr,
                   weight_decay=cfg.purifier.weight_decay)}
    every = np.arange(p.noisy.shape[0])
    row = {"dataset": name, "rate": rate, "seed": seed, "budget": k, "f1_ours": detection_scores(res.detected, noisy)["f1"],
           "acc_ours": downstream_accuracy(p, res.labels, every, cfg.purifier, seed),
           "acc_none": downstream_accuracy(p, p.noisy, every, cfg.purifier, seed)}
    for b, idx in flagged.items():
        row[f"f1_{b}"] = detection_scores(idx, noisy)["f1"]
        row[f"acc_{b}"] = downstream_accuracy(p, p.noisy, np.setdiff1d(every, idx), cfg.purifier, seed)
    return row


def check_beats_baselines(cfg: BaselineConfig, ctx: Context) -> ClaimResult:
    """[P08] (Abstract: "simple yet effective"): purification vs small-loss filtering and confident learning."""
    scores = _scores_for(cfg.datasets, ("boundary",))
    items = [(cfg, d, r, s, scores[d]) for d in cfg.datasets for r in cfg.rates for s in ctx.seeds]
    rows = ctx.map(baseline_task, items)
    j = judge_baselines(rows, bars=ctx.bars)
    cells = sorted({(r["dataset"], r["rate"]) for r in rows})
    by = {c: [r for r in rows if (r["dataset"], r["rate"]) == c] for c in cells}
    methods = ("none", "ours", *BASELINES)
    fig, ax = new_figure(width=7.0, height=4.0)
    xs = np.arange(len(cells))
    for i, m in enumerate(methods):
        ax.bar(xs + 0.2 * (i - 1.5), [_mean(by[c], f"acc_{m}") for c in cells], width=0.2, label=m)
    ax.set_xticks(xs, [f"{d} {r:.0%}" for d, r in cells])
    ax.set(ylabel="clean test accuracy", ylim=(0.4, 1.0), title="same downstream classifier, equal flagged budget")
    ax.legend(ncol=4, fontsize=7)
    text = "; ".join(f"{d} {r:.0%}: " + ", ".join(f"{m} {_mean(by[(d, r)], f'acc_{m}'):.3f}" for m in methods)
                     for d, r in cells)
    findings = {"detection F1 at equal budget": "; ".join(
        f"{d} {r:.0%}: " + ", ".join(f"{m} {_mean(by[(d, r)], f'f1_{m}'):.3f}" for m in ("ours", *BASELINES))
        for d, r in cells)}
    return ClaimResult.judged(j, summary=text, rows=rows, findings=findings, figures=[render(
        fig, name="baselines", caption="Mean clean test accuracy of one fixed multi-view classifier trained on noisy "
        "labels (none), purified labels (ours), or with the small-loss / confident-learning flagged samples dropped.")],
        notes="Equal budget: each baseline flags as many samples as the IsolationForest detected (contamination = r).")
