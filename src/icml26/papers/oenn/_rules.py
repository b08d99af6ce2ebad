"""Verdict rules of the [P12] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

- ``complete_characterization``: per (case, gauge) row, the numerical commutant dimension equals the number of basis
  elements and their rank (``dimension_gap``), every basis element commutes with the sampled symmetries
  (``basis_residual``); a row whose numerical rank was not clearly decided (singular-value gap below ``rank_gap``)
  is inconclusive. Every row must hold.
- ``exact_equivariance``: per (case, gauge), the worst relative error of both OENNs meets ``equivariance_error``,
  and where the group acts non-trivially the control's error meets ``control_error``.
- ``universal_approximation``: the paired ratio of mean test NMSE at the smallest over the largest width, bootstrap
  CI over seeds, meets ``error_ratio`` (>= 3 seeds); the target must be mostly nonlinear (every seed's best linear
  equivariant map, the width-0 rows, meets ``linear_nmse``), or the run is inconclusive.
- ``heterophilic_sbm``: with >= 3 seeds and every graph's homophily within ``homophily``, the paired test-accuracy
  difference sheaf-OENN − GCN and sheaf-OENN − MLP (bootstrap CI over seeds) meets ``accuracy_gain``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds, fmt

__all__ = ["RULES", "judge_commutant", "judge_equivariance", "judge_sbm", "judge_uat"]


def _label(r: Mapping[str, Any]) -> str:
    return f"{r['case']}{' +gauge' if r['gauge'] else ''}"


def judge_commutant(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``complete_characterization`` (module docstring)."""
    if not rows:
        return Judgement(Verdict.INCONCLUSIVE, "no case was measured")
    parts: dict[str, Judgement] = {}
    gap_bar = bars["rank_gap"]
    for r in rows:
        lab = _label(r)
        if not gap_bar.satisfied(float(r["oracle_gap"])):
            parts[lab] = Judgement(Verdict.INCONCLUSIVE, f"numerical rank undecided: singular-value gap "
                                   f"{fmt(r['oracle_gap'])} misses {gap_bar.threshold} ({gap_bar.provenance})")
            continue
        miss = abs(int(r["oracle"]) - int(r["basis"])) + abs(int(r["basis_rank"]) - int(r["basis"]))
        count = against_bar(f"|oracle − basis| + |rank − basis| ({r['oracle']} vs {r['basis']}, rank {r['basis_rank']})",
                            float(miss), bars["dimension_gap"])
        res = against_bar("max |UΦ − ΦU|", float(r["residual"]), bars["basis_residual"])
        parts[lab] = all_of({"count": count, "residual": res})
    j = all_of(parts, what="cases")
    dims = {_label(r): {"oracle": r["oracle"], "basis": r["basis"], "local": r["local_dim"]} for r in rows}
    return Judgement(j.verdict, j.reason, {"parts": j.measured["parts"], "dimensions": dims})


def judge_equivariance(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``exact_equivariance`` (module docstring)."""
    parts: dict[str, Judgement] = {}
    worst: dict[str, float] = {}
    for lab in sorted({_label(r) for r in rows}):
        sel = [r for r in rows if _label(r) == lab]
        if all(r["group_trivial"] for r in sel):
            continue
        sub = {}
        for model in ("local", "basis"):
            errs = [float(r["error"]) for r in sel if r["model"] == model]
            if errs:
                sub[model] = against_bar(f"{model} OENN error", max(errs), bars["equivariance_error"])
                worst[model] = max(worst.get(model, 0.0), max(errs))
        ctrl = [float(r["error"]) for r in sel if r["model"] == "control"]
        if ctrl:
            sub["control"] = against_bar("control error", min(ctrl), bars["control_error"])
            worst["control (min)"] = min(worst.get("control (min)", float("inf")), min(ctrl))
        parts[lab] = all_of(sub, what="models")
    if not parts:
        return Judgement(Verdict.INCONCLUSIVE, "every case has a trivial symmetry group: nothing to test")
    j = all_of(parts, what="cases")
    return Judgement(j.verdict, j.reason, {"parts": j.measured["parts"], "worst": worst})


def judge_uat(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``universal_approximation`` (module docstring)."""
    widths = sorted({int(r["width"]) for r in rows if int(r["width"]) > 0})  # width 0: the linear reference
    seeds = sorted({int(r["seed"]) for r in rows})
    if len(widths) < 2:
        return Judgement(Verdict.INCONCLUSIVE, "fewer than two widths measured")
    by = {(int(r["width"]), int(r["seed"])): float(r["test_nmse"]) for r in rows}
    lo_w, hi_w = widths[0], widths[-1]
    small = [by[lo_w, s] for s in seeds]
    large = [by[hi_w, s] for s in seeds]
    est = ratio_ci(small, large, paired=True, seed=0)
    j = against_bar(f"test NMSE(width {lo_w}) / NMSE(width {hi_w})", est, bars["error_ratio"], n=len(seeds),
                    min_n=MIN_SEEDS)
    means = {str(w): float(np.mean([by[w, s] for s in seeds])) for w in widths}
    lin = [by[0, s] for s in seeds if (0, s) in by]
    measured = {**j.measured, "ratio": est.value, "ratio_ci": [est.lo, est.hi], "mean_test_nmse": means,
                "linear_nmse_min": min(lin) if len(lin) == len(seeds) else float("nan")}
    if len(lin) < len(seeds):
        return Judgement(Verdict.INCONCLUSIVE, "no best-linear reference (width 0) for every seed: how nonlinear "
                         "the target is was not measured", measured)
    guard = against_bar("best linear equivariant map's test NMSE (smallest over seeds)", min(lin),
                        bars["linear_nmse"])
    if guard.verdict is not Verdict.HOLDS:
        return Judgement(Verdict.INCONCLUSIVE, f"the target is too linear for the width trend to test nonlinear "
                         f"approximation: {guard.reason} (the trend: {j.reason})", measured)
    return Judgement(j.verdict, j.reason, measured)


def judge_sbm(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar],
              baselines: Sequence[str] = ("gcn", "mlp")) -> Judgement:
    """``heterophilic_sbm`` (module docstring)."""
    seeds = sorted({int(r["seed"]) for r in rows})
    acc = {(r["model"], int(r["seed"])): float(r["test_acc"]) for r in rows}
    means = {m: float(np.mean([acc[m, s] for s in seeds if (m, s) in acc])) for m in sorted({r["model"] for r in rows})}
    few = enough_seeds(len(seeds))
    if few is not None:
        return Judgement(few.verdict, few.reason, {"mean_test_acc": means})
    hom = max(float(r["homophily"]) for r in rows)
    if not bars["homophily"].satisfied(hom):
        return Judgement(Verdict.INCONCLUSIVE, f"the graphs are not heterophilic enough: max edge homophily {fmt(hom)} "
                         f"misses {bars['homophily'].threshold}", {"mean_test_acc": means, "max_homophily": hom})
    parts = {}
    for b in baselines:
        est = bootstrap_ci([acc["sheaf_oenn", s] - acc[b, s] for s in seeds], seed=0)
        parts[f"vs {b}"] = against_bar(f"sheaf-OENN − {b} test accuracy", est, bars["accuracy_gain"], n=len(seeds),
                                       min_n=MIN_SEEDS)
    j = all_of(parts, what="baselines", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "mean_test_acc": means, "max_homophily": hom})


RULES = {"complete_characterization": judge_commutant, "exact_equivariance": judge_equivariance,
         "universal_approximation": judge_uat, "heterophilic_sbm": judge_sbm}
