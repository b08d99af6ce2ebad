"""Verdict rules of the [P33] claims: pure functions of per-instance rows, built from :mod:`icml26.verdicts`.

- ``concentration``: rows ``{"n", "seed", "opt", "variance"}`` (the reference OPT's variances σ_i²). At the best OPT
  over seeds, for every n: the support #{σ_i² > ``carries_variance``} meets ``support`` and the ``support`` largest
  variances hold a share meeting ``top_mass``. The support must also be the same at every seed: otherwise the local
  search has not settled it and the verdict is inconclusive.
- ``ptas``: rows ``{"n", "eps", "seed", "alg", "opt", "top", "budget"}`` with ``opt`` an optimum computed
  independently of the algorithm and ``top`` = max μ (what σ = 0 scores). The gain ratio (F − max μ)/(OPT − max μ)
  minus 1 − ε, smallest over runs, meets ``gain_margin``; the largest Σσ² meets ``budget``. Where the algorithm beats
  the reference by more than ``reference_gap``, the reference is no optimum there and a pass cannot be certified
  (inconclusive); a run below 1 − ε of the reference fails whatever the reference's gaps, since OPT is at least it.
- ``log_n_approx``: rows ``{"n", "gain_ratio", "margin", "budget"}``, the gain ratio (F − F(0))/(OPT − F(0)) and its
  margin over the best trivial allocation's. Every instance meets the explicit O(log n) bound
  (gain ratio × (⌊log₂ n⌋ + 2) against ``log_n_bound``), no allocation overspends (``budget``), and, since the trivial
  allocations meet that bound too here, the bootstrap CI of the mean margin meets ``margin``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt

__all__ = ["RULES", "judge_concentration", "judge_log_n", "judge_ptas", "log_levels"]


def log_levels(n: int) -> int:
    """⌊log₂ n⌋ + 2: the number of geometric variance levels the O(log n) bound divides by."""
    return math.floor(math.log2(n)) + 2


def judge_concentration(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``concentration`` (module docstring): support and top mass at the best seed per n; supports agree."""
    thr = float(bars["carries_variance"].value)  # type: ignore[arg-type]
    k = int(float(bars["support"].value))  # type: ignore[arg-type]
    sizes = sorted({r["n"] for r in rows})
    parts: dict[str, Judgement] = {}
    support: dict[int, int] = {}
    over_seeds: dict[int, list[int]] = {}
    mass: dict[int, float] = {}
    for n in sizes:
        sel = [r for r in rows if r["n"] == n]
        counts = sorted({int((np.asarray(r["variance"]) > thr).sum()) for r in sel})
        best = max(sel, key=lambda r: r["opt"])
        w = np.sort(np.asarray(best["variance"], dtype=float))[::-1]
        support[n], mass[n], over_seeds[n] = int((w > thr).sum()), float(w[:k].sum()), counts
        parts[f"n={n} support"] = against_bar(f"#{{σ² > {fmt(thr)}}} at n={n}", support[n], bars["support"])
        parts[f"n={n} top mass"] = against_bar(f"top-{k} share at n={n}", mass[n], bars["top_mass"])
    unsettled = {n: c for n, c in over_seeds.items() if len(c) > 1}
    seeds = len({r["seed"] for r in rows})
    parts["seeds agree"] = (
        Judgement(Verdict.INCONCLUSIVE, f"the support differs between seeds at n = {sorted(unsettled)} "
                                        f"({unsettled}): the local search has not settled it")
        if unsettled else Judgement(Verdict.HOLDS, f"the same support at each of {seeds} seed(s), every n"))
    j = all_of(parts, what="checks (support and top mass per n, agreement over seeds)")
    measured = {"support": support, "support_over_seeds": over_seeds, "top_mass": mass, "seeds_agree": not unsettled}
    return Judgement(j.verdict, j.reason, {**measured, "parts": j.measured["parts"]})


def judge_ptas(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``ptas`` (module docstring): the (1 − ε) guarantee on the gain over max μ against an independent OPT."""
    gains = [(r["alg"] - r["top"]) / (r["opt"] - r["top"]) if r["opt"] > r["top"] else math.nan for r in rows]
    slack = [g - (1.0 - r["eps"]) for g, r in zip(gains, rows)]
    worst = min(slack) if not any(math.isnan(s) for s in slack) else math.nan
    gaps = [r["alg"] - r["opt"] for r in rows]
    above = sum(g > float(bars["reference_gap"].value) for g in gaps)  # type: ignore[arg-type]
    ref = against_bar("largest F(algorithm) − OPT(reference)", max(gaps), bars["reference_gap"])
    if ref.verdict is Verdict.FAILS:
        ref = Judgement(Verdict.INCONCLUSIVE, f"the independent reference is below the algorithm in {above} of "
                        f"{len(rows)} runs, so it is no optimum there and cannot certify a pass: {ref.reason}",
                        ref.measured)
    parts = {
        "(1 − ε) guarantee": against_bar("smallest gain ratio − (1 − ε)", worst, bars["gain_margin"], n=len(rows)),
        "budget": against_bar("largest Σσ²", max(r["budget"] for r in rows), bars["budget"]),
        "reference": ref,
    }
    j = all_of(parts, what="checks", show=3)
    measured = {"min_gain_ratio": min(gains), "min_margin": worst, "runs_above_reference": above,
                "max_above_reference": max(gaps), "min_ratio": min(r["alg"] / r["opt"] for r in rows),
                "max_budget": max(r["budget"] for r in rows), "parts": j.measured["parts"]}
    return Judgement(j.verdict, j.reason, measured)


def judge_log_n(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], seed: int = 0) -> Judgement:
    """``log_n_approx`` (module docstring): the explicit O(log n) bound, the budget, and the margin over the best
    trivial allocation (bootstrap CI over instances, at least :data:`~icml26.verdicts.MIN_SEEDS` of them)."""
    scaled = [r["gain_ratio"] * log_levels(r["n"]) for r in rows]
    below = sum(not bars["log_n_bound"].satisfied(s) for s in scaled)
    margin = bootstrap_ci([r["margin"] for r in rows], seed=seed)
    parts = {
        "O(log n) bound": against_bar("smallest gain ratio × (⌊log₂ n⌋ + 2)", min(scaled), bars["log_n_bound"]),
        "budget": against_bar("largest Σσ²", max(r["budget"] for r in rows), bars["budget"]),
        "margin over trivial": against_bar("mean gain-ratio margin over the best trivial allocation", margin,
                                           bars["margin"], n=len(rows), min_n=MIN_SEEDS),
    }
    j = all_of(parts, what="checks", show=3)
    measured = {"below_bound": below, "min_scaled_gain_ratio": min(scaled), "mean_margin": margin.value,
                "mean_margin_ci": [margin.lo, margin.hi], "min_gain_ratio": min(r["gain_ratio"] for r in rows),
                "max_budget": max(r["budget"] for r in rows), "parts": j.measured["parts"]}
    return Judgement(j.verdict, j.reason, measured)


RULES = {"concentration": judge_concentration, "ptas": judge_ptas, "log_n_approx": judge_log_n}
