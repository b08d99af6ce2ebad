"""Decision rules of the claim checks of [P03], as pure functions of a table of runs (so tests can feed them rows).

A row is one solve: ``{"kappa", "ratio", "damped", "seed", "method", "iterations", "converged", "seconds", "error"}``.

Claim 2 (``faster_than_baselines``), per grid cell and per baseline b that converged in every trial of the cell:
  - iterations: Δ = median iterations of JPGD − median iterations of b; |Δ| <= ``TIE_ITERS`` is a tie, Δ < −1 fewer,
    Δ > 1 more (JPGD and ScaledGD have identical iterates, so their counts differ by rounding only);
  - time (when judged, >= 2 trials): the paired bootstrap CI of mean(JPGD seconds) / mean(b seconds) over the cell's
    trials; faster iff CI hi < 1, slower iff CI lo > 1, otherwise undecided;
  - the pair is lost on "more" iterations or "slower" time; won on (fewer or tie) iterations and faster time (fewer
    alone when time is not judged); undecided otherwise. A baseline that failed to converge in some trial of the cell
    while JPGD converged in all is beaten there. A cell where JPGD failed but some baseline converged is lost.
  Verdict: fails if any pair is lost, holds if every pair is won, inconclusive otherwise.

Claim 3 (``recovery_rate``): non-inferiority against every baseline (no comparator picked from the data). For each
baseline b the paired differences success(JPGD) − success(b) over all (ratio, trial) are bootstrapped; b is matched iff
CI lo >= −δ, beats JPGD iff CI hi < −δ. Verdict: holds iff JPGD matches every baseline, fails iff some baseline beats
it, inconclusive otherwise, and inconclusive whenever a ratio has fewer than ``MIN_TRIALS`` trials. δ = ``DELTA`` =
0.05 was fixed before re-measuring.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from icml26.claims import Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci

__all__ = ["DELTA", "MIN_TRIALS", "TIE_ITERS", "Judgement", "cell_label", "judge_grid", "judge_recovery"]

TIE_ITERS = 1  # claim 2: |Δ median iterations| <= 1 is a tie, decided by time
DELTA = 0.05  # claim 3: non-inferiority margin on the success rate
MIN_TRIALS = 3  # claim 3: fewer trials per sampling ratio give no usable CI (the verdict is then inconclusive)


@dataclass
class Judgement:
    """A verdict with its reason, deterministic numbers (``measured``) and wall-clock-derived ones (``timings``)."""

    verdict: Verdict
    reason: str
    measured: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)


def cell_label(kappa: float, ratio: float, damped: bool) -> str:
    """A grid cell's display name."""
    return f"κ={kappa:g} p={ratio:.0%}{' damped' if damped else ''}"


def _short(items: Sequence[str], k: int = 4) -> str:
    return ", ".join(items[:k]) + (f" (+{len(items) - k} more)" if len(items) > k else "")


def _iteration_call(delta: float, tie: int) -> str:
    return "tie" if abs(delta) <= tie else ("fewer" if delta < 0 else "more")


def judge_grid(
    rows: Sequence[dict[str, Any]], *, baselines: Sequence[str], judge_time: bool, tie: int = TIE_ITERS
) -> Judgement:
    """Claim 2's rule (module docstring): JPGD needs fewer iterations and less time than every baseline, per cell."""
    cells = sorted({(r["kappa"], r["ratio"], r["damped"]) for r in rows}, key=lambda c: (c[2], c[1], c[0]))
    failures = {m: sum(not r["converged"] for r in rows if r["method"] == m) for m in ("jpgd", *baselines)}
    per_cell: dict[str, Any] = {}
    time_cells: dict[str, Any] = {}
    lost, won, undecided, nobody, it_lost, ties = [], [], [], [], [], []
    it_ratios: list[float] = []
    for cell in cells:
        label = cell_label(*cell)
        sel = {m: sorted((r for r in rows if (r["kappa"], r["ratio"], r["damped"]) == cell and r["method"] == m),
                         key=lambda r: r["seed"]) for m in ("jpgd", *baselines)}
        ok = {m: bool(sel[m]) and all(r["converged"] for r in sel[m]) for m in sel}
        its = {m: float(statistics.median(r["iterations"] for r in sel[m])) for m in sel if sel[m]}
        conv = [b for b in baselines if ok[b]]
        entry: dict[str, Any] = {"median_iterations": its, "jpgd_converged": ok["jpgd"], "baselines_converged": conv}
        per_cell[label] = entry
        if not ok["jpgd"]:
            if conv:
                lost.append(f"{label}: JPGD not converged")
                it_lost.append(lost[-1])
            else:
                nobody.append(label)
            continue
        calls: dict[str, str] = {}
        times: dict[str, Any] = {}
        for b in baselines:
            pair = f"{label} vs {b}"
            if not ok[b]:
                calls[b] = "baseline not converged"
                won.append(pair)
                continue
            it = _iteration_call(its["jpgd"] - its[b], tie)
            calls[b] = it
            if it == "tie":
                ties.append(pair)
            elif it == "more":
                it_lost.append(f"{pair}: more iterations")
            t = "not judged"
            if judge_time and len(sel["jpgd"]) >= 2:
                est = ratio_ci([r["seconds"] for r in sel["jpgd"]], [r["seconds"] for r in sel[b]], paired=True, seed=0)
                t = "faster" if est.hi < 1.0 else ("slower" if est.lo > 1.0 else "undecided")
                times[b] = {"ratio": est.value, "ci": [est.lo, est.hi], "call": t}
            if it == "more" or t == "slower":
                lost.append(f"{pair}: {'more iterations' if it == 'more' else 'slower'}")
            elif t == "faster" or (it == "fewer" and not judge_time):
                won.append(pair)
            else:
                undecided.append(f"{pair}: {it} iterations, time {t}")
        entry["iteration_calls"] = calls
        if conv:
            entry["iteration_ratio"] = its["jpgd"] / min(its[b] for b in conv)
            it_ratios.append(entry["iteration_ratio"])
        if times:
            time_cells[label] = times
    n_judged = len(cells) - len(nobody)
    measured = {
        "cells": len(cells), "cells_judged": n_judged, "cells_nobody_converged": nobody,
        "worst_iteration_ratio": max(it_ratios) if it_ratios else None, "tie_iterations": tie, "tied_pairs": ties,
        "pairs_lost_on_iterations": it_lost,
        "not_converged_runs": failures, "per_cell": per_cell,
    }
    ratios = [v["ratio"] for c in time_cells.values() for v in c.values()]
    timings = {"time_ratio_per_cell": time_cells, "worst_time_ratio": max(ratios) if ratios else None,
               "pairs_lost": lost, "pairs_undecided": undecided, "pairs_won": len(won)}
    rule = (f"iterations: |Δ median| <= {tie} is a tie, decided by time; time: paired bootstrap CI of "
            f"mean(JPGD s)/mean(baseline s) vs 1" + ("" if judge_time else " (not judged at this budget)"))
    head = f"{len(ties)} tied pairs ({_short(ties, 2)}); " if ties else ""
    if n_judged == 0:
        v, why = Verdict.INCONCLUSIVE, "no method converged in any cell"
    elif lost:
        v, why = Verdict.FAILS, f"{head}JPGD lost {len(lost)} (cell, baseline) pairs: {_short(lost)}. Rule: {rule}"
    elif undecided:
        v, why = Verdict.INCONCLUSIVE, (f"{head}{len(undecided)} pairs undecided: {_short(undecided)}; "
                                        f"none lost, {len(won)} won. Rule: {rule}")
    else:
        v, why = Verdict.HOLDS, f"{head}JPGD won all {len(won)} (cell, baseline) pairs in {n_judged} cells. Rule: {rule}"
    return Judgement(v, why, measured, timings)


def judge_recovery(
    rows: Sequence[dict[str, Any]], *, baselines: Sequence[str], success: float, delta: float = DELTA
) -> Judgement:
    """Claim 3's rule (module docstring): JPGD's success is non-inferior (margin δ) to every baseline's, paired."""
    ok = {(r["method"], r["ratio"], r["seed"]): r["error"] <= success for r in rows}
    keys = sorted({(r["ratio"], r["seed"]) for r in rows})
    ratios = sorted({k[0] for k in keys})
    rate = {m: [sum(ok[m, p, s] for (q, s) in keys if q == p) / sum(q == p for q, _ in keys) for p in ratios]
            for m in ("jpgd", *baselines)}
    per_b: dict[str, Any] = {}
    matched, beaten, open_ = [], [], []
    for b in baselines:
        est = bootstrap_ci([float(ok["jpgd", p, s]) - float(ok[b, p, s]) for p, s in keys], seed=0)
        call = "matched" if est.lo >= -delta else ("beats JPGD" if est.hi < -delta else "undecided")
        per_b[b] = {"diff": est.value, "ci": [est.lo, est.hi], "call": call}
        (matched if call == "matched" else beaten if call == "beats JPGD" else open_).append(
            f"{b} {est.value:+.3f} [{est.lo:+.3f}, {est.hi:+.3f}]")
    rule = (f"against every baseline (no comparator chosen from the data), {len(keys)} paired trials; "
            f"non-inferior iff CI lo >= −{delta:g}, inferior iff CI hi < −{delta:g}")
    trials = min(sum(q == p for q, _ in keys) for p in ratios)
    if trials < MIN_TRIALS:
        v, why = Verdict.INCONCLUSIVE, (f"only {trials} trial(s) per sampling ratio (< {MIN_TRIALS}): no usable CI; "
                                        f"JPGD − baseline success: {'; '.join(matched + beaten + open_)}. Rule: {rule}")
    elif beaten:
        v, why = Verdict.FAILS, f"JPGD − baseline success: inferior to {'; '.join(beaten)}. Rule: {rule}"
    elif open_:
        v, why = Verdict.INCONCLUSIVE, f"JPGD − baseline success: undecided vs {'; '.join(open_)}. Rule: {rule}"
    else:
        v, why = Verdict.HOLDS, f"JPGD − baseline success non-inferior to all: {'; '.join(matched)}. Rule: {rule}"
    measured = {"success_rate": rate, "ratios": ratios, "delta": delta, "diff_vs_baseline": per_b}
    return Judgement(v, why, measured)
