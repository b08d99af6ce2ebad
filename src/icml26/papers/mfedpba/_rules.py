"""Verdict rules of the [P09] claims: pure functions of a table of federation runs, built from :mod:`icml26.verdicts`.

A row is one federation: ``{"setting", "fraction", "method", "seed", "accuracy"}`` (``accuracy``: mean held-out
client accuracy in [0, 1] after the last round). Differences are in accuracy points, paired by seed (the same seed
gives every method the same split, modalities and initial models), with percentile-bootstrap CIs over seeds.

- ``outperforms_baselines``: for every (setting, baseline) pair, MFedPBA − baseline meets ``advantage`` with its
  whole CI; no comparator is chosen from the data (every baseline of the setting is a part of ``all_of``).
- ``advantage_grows_with_imbalance``: per seed, the advantage over the strongest baseline of that run,
  Δ(f) = acc_MFedPBA(f) − max_b acc_b(f), is regressed on the unimodal fraction f (least squares); the CI of the
  mean slope (points per unit of f) meets ``growth``.
- ``both_alignments_contribute``: for every ablation, MFedPBA − ablation meets ``ablation_cost``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt

__all__ = ["FULL", "RULES", "UNJUDGED", "judge_ablations", "judge_imbalance", "judge_outperforms"]

#: the method the claims are about
FULL = "mfedpba"


def _acc(rows: Sequence[Mapping[str, Any]], **where: Any) -> dict[int, float]:
    """Accuracy in points by seed, over the rows matching ``where``."""
    return {int(r["seed"]): 100.0 * float(r["accuracy"]) for r in rows
            if all(r[k] == v for k, v in where.items())}


def _paired(name: str, a: dict[int, float], b: dict[int, float], bar: Bar) -> tuple[Judgement, dict[str, Any]]:
    seeds = sorted(set(a) & set(b))
    if not seeds:
        return Judgement(Verdict.INCONCLUSIVE, f"{name}: no paired seeds"), {}
    d = [a[s] - b[s] for s in seeds]
    est = bootstrap_ci(d, seed=0)
    return against_bar(name, est, bar, n=len(seeds), min_n=MIN_SEEDS), {"diff_points": d, "seeds": seeds}


def judge_outperforms(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``outperforms_baselines``: MFedPBA − baseline (points) meets ``advantage`` for every (setting, baseline)."""
    parts: dict[str, Judgement] = {}
    diffs: dict[str, Any] = {}
    means: dict[str, dict[str, float]] = {}
    for setting in sorted({r["setting"] for r in rows}):
        sel = [r for r in rows if r["setting"] == setting]
        methods = sorted({r["method"] for r in sel})
        means[setting] = {m: float(np.mean(list(_acc(sel, method=m).values()))) for m in methods}
        full = _acc(sel, method=FULL)
        for b in (m for m in methods if m != FULL):
            label = f"{setting}: vs {b}"
            parts[label], diffs[label] = _paired(f"MFedPBA − {b} (points)", full, _acc(sel, method=b),
                                                 bars["advantage"])
    if not parts:
        return Judgement(Verdict.INCONCLUSIVE, "no baseline runs to compare with")
    j = all_of(parts, what="(setting, baseline) pairs", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "mean_accuracy_points": means, "paired": diffs})


def _slope(fractions: Sequence[float], values: Sequence[float]) -> float:
    return float(np.polyfit(np.asarray(fractions, float), np.asarray(values, float), 1)[0])


def judge_imbalance(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``advantage_grows_with_imbalance``: the mean over seeds of the per-seed slope of Δ(f) meets ``growth``."""
    fractions = sorted({float(r["fraction"]) for r in rows})
    baselines = sorted({r["method"] for r in rows} - {FULL})
    if len(fractions) < 2 or not baselines:
        return Judgement(Verdict.INCONCLUSIVE, f"needs >= 2 unimodal fractions and a baseline, got {fractions}")
    acc = {(m, f): _acc(rows, method=m, fraction=f) for m in (FULL, *baselines) for f in fractions}
    seeds = sorted(set.intersection(*(set(v) for v in acc.values())))
    if not seeds:
        return Judgement(Verdict.INCONCLUSIVE, "no seed was run at every fraction with every method")
    adv = {s: [acc[FULL, f][s] - max(acc[b, f][s] for b in baselines) for f in fractions] for s in seeds}
    slopes = [_slope(fractions, adv[s]) for s in seeds]
    est = bootstrap_ci(slopes, seed=0)
    j = against_bar("slope of MFedPBA − best baseline (points per unit unimodal fraction)", est, bars["growth"],
                    n=len(seeds), min_n=MIN_SEEDS)
    mean_adv = [float(np.mean([adv[s][i] for s in seeds])) for i in range(len(fractions))]
    reason = (f"{j.reason}. Mean advantage over the best baseline by unimodal fraction: "
              + ", ".join(f"{f:g}: {fmt(a)}" for f, a in zip(fractions, mean_adv)))
    return Judgement(j.verdict, reason, {**j.measured, "fractions": fractions, "mean_advantage_points": mean_adv,
                                         "slopes": slopes, "advantage_points": {str(s): adv[s] for s in seeds}})


def judge_ablations(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``both_alignments_contribute``: MFedPBA − ablation (points) meets ``ablation_cost`` for every ablation."""
    full = _acc(rows, method=FULL)
    ablations = sorted({r["method"] for r in rows} - {FULL})
    if not ablations:
        return Judgement(Verdict.INCONCLUSIVE, "no ablation runs")
    parts, diffs = {}, {}
    for m in ablations:
        parts[m], diffs[m] = _paired(f"MFedPBA − {m} (points)", full, _acc(rows, method=m), bars["ablation_cost"])
    j = all_of(parts, what="ablations", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "paired": diffs})


RULES = {"outperforms_baselines": judge_outperforms, "advantage_grows_with_imbalance": judge_imbalance,
         "both_alignments_contribute": judge_ablations}
UNJUDGED: dict[str, str] = {}
