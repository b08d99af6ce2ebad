"""Verdict rules of the [P03] claims: pure functions of a table of solves, built from :mod:`icml26.verdicts`.

A row is one solve: ``{"kappa", "ratio", "damped", "seed", "method", "iterations", "converged", "seconds", "error"}``.
Every rule takes the claim's declared bars (``paper.toml``) by name and returns one :class:`~icml26.verdicts.Judgement`.

- ``kappa_free_rate``: JPGD converges in every run, and the bootstrap CI (over seeds) of max/min median iterations
  over κ meets ``iteration_ratio``.
- ``faster_than_baselines``: every (cell, baseline) pair must hold. A pair fails on more iterations (beyond the
  ``iteration_tie``) or a slower time (the paired time-ratio CI misses ``time_ratio``), holds on fewer-or-tied
  iterations and a faster time, and is undecided otherwise. A baseline that did not converge in some trial of a cell
  where JPGD converged in all loses on iterations; such pairs are counted apart, since their time is not comparable.
  A cell where JPGD did not converge but a baseline did fails; a cell where no method converged is not judged.
- ``recovery_rate``: JPGD's success rate is non-inferior to every baseline's (paired differences over all trials
  against ``success_margin``), with at least ``MIN_TRIALS`` trials per sampling ratio.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt, non_inferior

__all__ = ["MIN_TRIALS", "RULES", "cell_label", "judge_grid", "judge_rate", "judge_recovery"]

MIN_TRIALS = MIN_SEEDS  # recovery_rate: trials per sampling ratio below which no CI is usable


def cell_label(kappa: float, ratio: float, damped: bool) -> str:
    """A grid cell's display name."""
    return f"κ={kappa:g} p={ratio:.0%}{' damped' if damped else ''}"


def judge_rate(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``kappa_free_rate``: all JPGD runs converge; max/min median iterations over κ meets ``iteration_ratio``."""
    kappas = sorted({r["kappa"] for r in rows})
    seeds = sorted({r["seed"] for r in rows})
    failed = [(r["kappa"], r["seed"]) for r in rows if not r["converged"]]
    if failed:
        return Judgement(Verdict.FAILS, f"JPGD did not converge for (κ, seed) = {failed}",
                         {"not_converged": len(failed)})
    by = {(r["kappa"], r["seed"]): r["iterations"] for r in rows}
    iters = np.array([[by[k, s] for s in seeds] for k in kappas], dtype=float)  # (κ, seed)

    def spread(idx: np.ndarray) -> float:
        med = np.median(iters[:, idx.astype(int)], axis=1)
        return float(med.max() / med.min())

    est = bootstrap_ci(np.arange(len(seeds)), stat=spread, seed=0)
    j = against_bar("max/min median iterations over κ", est, bars["iteration_ratio"], n=len(seeds), min_n=MIN_SEEDS)
    med = np.median(iters, axis=1)
    measured = {**j.measured, "ratio": est.value, "ratio_ci": [est.lo, est.hi], "not_converged": 0,
                "median_iterations": {f"{k:g}": float(m) for k, m in zip(kappas, med)}}
    return Judgement(j.verdict, j.reason, measured)


def _cell_rows(rows: Sequence[dict[str, Any]], cell: tuple[Any, ...], m: str) -> list[dict[str, Any]]:
    return sorted((r for r in rows if (r["kappa"], r["ratio"], r["damped"]) == cell and r["method"] == m),
                  key=lambda r: r["seed"])


def _pair(jp: list[dict[str, Any]], bl: list[dict[str, Any]], name: str, bars: Mapping[str, Bar],
          judge_time: bool) -> tuple[Judgement, str]:
    """One (cell, baseline) pair: its judgement and its kind (``won``, ``unconverged``, ``tie``, ``lost``...)."""
    if not all(r["converged"] for r in bl):
        return Judgement(Verdict.HOLDS, f"{name} did not converge in every trial (JPGD did)"), "unconverged"
    d = statistics.median(r["iterations"] for r in jp) - statistics.median(r["iterations"] for r in bl)
    tie = float(bars["iteration_tie"].value)  # type: ignore[arg-type]
    it = "tie" if abs(d) <= tie else ("fewer" if d < 0 else "more")
    t = None
    if judge_time and len(jp) >= 2:
        est = ratio_ci([r["seconds"] for r in jp], [r["seconds"] for r in bl], paired=True, seed=0)
        t = against_bar(f"JPGD/{name} time", est, bars["time_ratio"], timed=True)
    time_text = "" if t is None else f"; {t.reason}"
    why = f"Δ median iterations {d:+g} ({it}){time_text}"
    if it == "more" or (t is not None and t.verdict is Verdict.FAILS):
        kind = "lost"
        v = Verdict.FAILS
    elif t is not None and t.verdict is Verdict.HOLDS:
        kind, v = ("tie" if it == "tie" else "won"), Verdict.HOLDS
    else:
        kind, v = "undecided", Verdict.INCONCLUSIVE
        why += "" if t is not None else "; time not judged at this budget"
    return Judgement(v, why, timings={} if t is None else dict(t.timings)), kind


def judge_grid(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], baselines: Sequence[str],
               judge_time: bool) -> Judgement:
    """``faster_than_baselines`` (module docstring): every (cell, baseline) pair must hold."""
    cells = sorted({(r["kappa"], r["ratio"], r["damped"]) for r in rows}, key=lambda c: (c[2], c[1], c[0]))
    parts: dict[str, Judgement] = {}
    kinds: dict[str, list[str]] = {}
    per_cell: dict[str, Any] = {}
    nobody: list[str] = []
    for cell in cells:
        label = cell_label(*cell)
        sel = {m: _cell_rows(rows, cell, m) for m in ("jpgd", *baselines)}
        ok = {m: bool(v) and all(r["converged"] for r in v) for m, v in sel.items()}
        per_cell[label] = {"median_iterations": {m: float(statistics.median(r["iterations"] for r in v))
                                                 for m, v in sel.items() if v},
                           "jpgd_converged": ok["jpgd"], "baselines_converged": [b for b in baselines if ok[b]]}
        if not ok["jpgd"]:
            if any(ok[b] for b in baselines):
                parts[label] = Judgement(Verdict.FAILS, "JPGD did not converge in every trial; a baseline did")
                kinds.setdefault("lost", []).append(label)
            else:
                nobody.append(label)
            continue
        for b in baselines:
            j, kind = _pair(sel["jpgd"], sel[b], b, bars, judge_time)
            parts[f"{label} vs {b}"] = j
            kinds.setdefault(kind, []).append(f"{label} vs {b}")
    if not parts:
        return Judgement(Verdict.INCONCLUSIVE, "no method converged in any cell", {"cells_nobody_converged": nobody})
    j = all_of(parts, what="(cell, baseline) pairs")
    tally = ", ".join(f"{len(v)} {k}" for k, v in sorted(kinds.items()))
    reason = (f"{j.reason}. Pairs by kind: {tally} (unconverged: the baseline did not converge, counted apart)"
              + (f"; no method converged in {', '.join(nobody)}" if nobody else ""))
    measured = {"parts": j.measured["parts"], "pair_kinds": kinds, "per_cell": per_cell,
                "cells_nobody_converged": nobody, "not_converged_runs": {
                    m: sum(not r["converged"] for r in rows if r["method"] == m) for m in ("jpgd", *baselines)}}
    return Judgement(j.verdict, reason, measured, j.timings)


def judge_recovery(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], baselines: Sequence[str],
                   success: float) -> Judgement:
    """``recovery_rate``: non-inferior to every baseline (no comparator chosen from the data), paired over trials."""
    ok = {(r["method"], r["ratio"], r["seed"]): r["error"] <= success for r in rows}
    keys = sorted({(r["ratio"], r["seed"]) for r in rows})
    ratios = sorted({k[0] for k in keys})
    trials = min(sum(q == p for q, _ in keys) for p in ratios)
    parts = {}
    for b in baselines:
        est = bootstrap_ci([float(ok["jpgd", p, s]) - float(ok[b, p, s]) for p, s in keys], seed=0)
        parts[f"vs {b}"] = non_inferior(f"JPGD − {b} success", est, bars["success_margin"], n=trials,
                                        min_n=MIN_TRIALS)
    j = all_of(parts, what="baselines", show=len(parts))
    rate = {m: [sum(ok[m, p, s] for (q, s) in keys if q == p) / sum(q == p for q, _ in keys) for p in ratios]
            for m in ("jpgd", *baselines)}
    reason = f"{j.reason}. {len(keys)} paired trials, {trials} per sampling ratio (of {fmt(len(ratios))} ratios)"
    return Judgement(j.verdict, reason, {**j.measured, "success_rate": rate, "ratios": ratios})


RULES = {"kappa_free_rate": judge_rate, "faster_than_baselines": judge_grid, "recovery_rate": judge_recovery}
