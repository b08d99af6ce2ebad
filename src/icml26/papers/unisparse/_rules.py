"""Verdict rules of the [P30] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

- ``mqar_accuracy``: rows ``{"seed", "sequence", "method", "correct", "queries", "density"}``. The full-attention
  model must solve the task (``full_accuracy``, else inconclusive: a ratio to a model that fails says nothing);
  UniSparse's block density must meet ``density`` in every seed; the paired bootstrap CI (over (seed, sequence)
  units) of UniSparse's / full attention's correct answers must meet ``accuracy_ratio``; >= 3 seeds.
- ``beats_baselines``: same rows; for every baseline, UniSparse − baseline accuracy per unit is non-inferior within
  ``margin`` (a baseline given at least UniSparse's density).
- ``lm_perplexity``: rows ``{"seed", "nll_full", "nll_sparse", "density"}`` (mean next-token NLL per sequence); the
  bootstrap CI of exp(mean ΔNLL), the perplexity ratio, must meet ``ppl_ratio``; >= 3 sequences.
- ``mass_recall``: rows ``{"seed", "method", "density_target", "recall"}`` (recall interpolated on each method's
  recall-vs-density curve); at every target density and for every baseline, UniSparse − baseline recall over
  sequences is non-inferior within ``margin``.
- ``tau_one_exact``: rows ``{"case", "full_share", "rel_error"}``; the smallest share of causal blocks selected at
  τ = 1 must meet ``full_share`` and the largest relative output error ``max_rel_error``.
- ``gpu_speedup``: per-round times of full attention and of UniSparse (selection + kernel) per sequence length; the
  best length's median per-round speedup (bootstrap CI) against ``speedup``; timed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt, non_inferior

__all__ = ["RULES", "UNJUDGED", "judge_baselines", "judge_exact", "judge_mqar", "judge_perplexity", "judge_recall",
           "judge_speed", "per_unit"]

Rows = Sequence[Mapping[str, Any]]


def per_unit(rows: Rows, method: str) -> dict[tuple[int, int], tuple[float, float]]:
    """(seed, sequence) -> (correct, queries) of ``method``."""
    return {(int(r["seed"]), int(r["sequence"])): (float(r["correct"]), float(r["queries"]))
            for r in rows if r["method"] == method}


def _seeds(rows: Rows) -> int:
    return len({r["seed"] for r in rows})


def judge_mqar(rows: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """``mqar_accuracy`` (module docstring)."""
    full, uni = per_unit(rows, "full"), per_unit(rows, "unisparse")
    units = sorted(full)
    n = _seeds(rows)
    acc = bootstrap_ci([full[u][0] / full[u][1] for u in units], seed=0)
    solved = against_bar("full-attention accuracy", acc, bars["full_accuracy"], n=n, min_n=MIN_SEEDS)
    measured: dict[str, Any] = {"full_accuracy": acc.value,
                                "unisparse_accuracy": sum(uni[u][0] for u in units) / sum(uni[u][1] for u in units)}
    if solved.verdict is not Verdict.HOLDS:
        return Judgement(Verdict.INCONCLUSIVE, f"the full-attention model does not solve the task: {solved.reason}",
                         {**solved.measured, **measured})
    dens = max(float(r["density"]) for r in rows if r["method"] == "unisparse")
    parts = {
        "density": against_bar("UniSparse block density (largest over seeds)", dens, bars["density"]),
        "accuracy ratio": against_bar("UniSparse / full-attention correct answers",
                                      ratio_ci([uni[u][0] for u in units], [full[u][0] for u in units], seed=0),
                                      bars["accuracy_ratio"], n=n, min_n=MIN_SEEDS),
    }
    j = all_of(parts, what="bars")
    return Judgement(j.verdict, j.reason, {**j.measured, **measured, "unisparse_density": dens})


def judge_baselines(rows: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """``beats_baselines`` (module docstring)."""
    uni = per_unit(rows, "unisparse")
    n = _seeds(rows)
    parts = {}
    for b in sorted({r["method"] for r in rows} - {"full", "unisparse"}):
        base = per_unit(rows, b)
        diff = [uni[u][0] / uni[u][1] - base[u][0] / base[u][1] for u in sorted(uni)]
        parts[f"vs {b}"] = non_inferior(f"UniSparse − {b} accuracy", bootstrap_ci(diff, seed=0), bars["margin"], n=n,
                                        min_n=MIN_SEEDS)
    if not parts:
        return Judgement(Verdict.INCONCLUSIVE, "no baseline was run")
    dens = {m: max(float(r["density"]) for r in rows if r["method"] == m) for m in {r["method"] for r in rows}}
    j = all_of(parts, what="baselines", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "density": dens})


def judge_perplexity(rows: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """``lm_perplexity`` (module docstring)."""
    delta = [float(r["nll_sparse"]) - float(r["nll_full"]) for r in rows]
    e = bootstrap_ci(delta, seed=0)
    est = Estimate(math.exp(e.value), math.exp(e.lo), math.exp(e.hi))
    j = against_bar("UniSparse / full-attention perplexity", est, bars["ppl_ratio"], n=len(rows), min_n=MIN_SEEDS)
    dens = float(np.mean([r["density"] for r in rows]))
    reason = f"{j.reason}; at UniSparse's mean block density {fmt(dens)}"
    return Judgement(j.verdict, reason, {**j.measured, "ppl_ratio": est.value, "density": dens,
                                         "ppl_full": math.exp(float(np.mean([r["nll_full"] for r in rows])))})


def _nanmean(xs: Sequence[float]) -> float:
    kept = [x for x in xs if not math.isnan(x)]
    return float(np.mean(kept)) if kept else math.nan


def judge_recall(rows: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """``mass_recall`` (module docstring)."""
    by = {(r["method"], float(r["density_target"]), int(r["seed"])): float(r["recall"]) for r in rows}
    targets = sorted({float(r["density_target"]) for r in rows})
    seeds = sorted({int(r["seed"]) for r in rows})
    parts: dict[str, Judgement] = {}
    for b in sorted({r["method"] for r in rows} - {"unisparse"}):
        for t in targets:
            diff = [by.get(("unisparse", t, s), math.nan) - by.get((b, t, s), math.nan) for s in seeds]
            name = f"vs {b} at density {fmt(t)}"
            if any(math.isnan(x) for x in diff):
                parts[name] = Judgement(Verdict.INCONCLUSIVE, f"a recall curve does not reach density {fmt(t)}")
                continue
            parts[name] = non_inferior(f"UniSparse − {b} recall", bootstrap_ci(diff, seed=0), bars["margin"],
                                       n=len(seeds), min_n=MIN_SEEDS)
    if not parts:
        return Judgement(Verdict.INCONCLUSIVE, "no baseline was run")
    j = all_of(parts, what="(baseline, density) pairs")
    mean = {m: {fmt(t): _nanmean([by.get((m, t, s), math.nan) for s in seeds]) for t in targets}
            for m in sorted({r["method"] for r in rows})}
    return Judgement(j.verdict, j.reason, {**j.measured, "mean_recall": mean})


def judge_exact(rows: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """``tau_one_exact`` (module docstring)."""
    share = min(float(r["full_share"]) for r in rows)
    err = max(float(r["rel_error"]) for r in rows)
    j = all_of({"mask": against_bar("smallest share of causal blocks selected", share, bars["full_share"]),
                "output": against_bar("largest relative error against full attention", err, bars["max_rel_error"])},
               what="bars")
    return Judgement(j.verdict, f"{j.reason} ({len(rows)} cases)", {**j.measured, "full_share": share,
                                                                    "max_rel_error": err})


def _median_ratio(num: Sequence[float], den: Sequence[float]) -> Estimate:
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    return bootstrap_ci(a / b, stat=np.median, seed=0)


def judge_speed(times: Mapping[str, Mapping[str, Sequence[float]]], *, bars: Mapping[str, Bar],
                decide: bool = True) -> Judgement:
    """``gpu_speedup`` (module docstring): ``times[n] = {"full": [...], "unisparse": [...]}`` seconds per round."""
    ests = {n: _median_ratio(t["full"], t["unisparse"]) for n, t in times.items()}
    best = max(ests, key=lambda n: ests[n].value)
    rounds = min(len(t["full"]) for t in times.values())
    j = against_bar(f"median per-round speedup over full attention at the best length (n = {best})", ests[best],
                    bars["speedup"], n=rounds, min_n=MIN_SEEDS, timed=True)
    timings = {**j.timings, "speedup_by_n": {n: [e.value, e.lo, e.hi] for n, e in ests.items()}}
    if not decide:
        return Judgement(Verdict.INCONCLUSIVE, f"a toy size decides nothing about speed: {j.reason}", timings=timings)
    return Judgement(j.verdict, j.reason, timings=timings)


RULES = {"mqar_accuracy": judge_mqar, "beats_baselines": judge_baselines, "lm_perplexity": judge_perplexity,
         "mass_recall": judge_recall, "tau_one_exact": judge_exact, "gpu_speedup": judge_speed}
UNJUDGED: dict[str, str] = {}
