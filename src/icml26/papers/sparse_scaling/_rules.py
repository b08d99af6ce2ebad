"""Verdict rules of the [P37] claims: pure functions of measured rows and the declared bars (:mod:`icml26.verdicts`).

- ``law_values``: a row per quoted number ``{quantity, quoted, decimals, ours, source, derived}``; the largest
  |ours − quoted| in half-units of the quoted last digit (1 = the quoted number is ours rounded) meets ``rounding``.
- ``delayed_saturation``: a row per (seed, density) ``{seed, density, R_D_star, at_bound}`` from the per-seed fits;
  per seed the ratio R_D*(sparse)/R_D*(dense); its geometric mean over seeds with a bootstrap CI meets
  ``delay_ratio`` (holds) or lies wholly in ``no_delay`` (fails). A seed whose fit sits at the half-life bound
  (no saturation seen) has no ratio; fewer than 3 seeds with a ratio is inconclusive.
- ``loss_optimal_sparsity``: a row per slice ``{slice, sparsity, judged}``; every judged slice's optimal sparsity
  lies in the ``moderate_sparsity`` band.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds

__all__ = ["RULES", "judge_delayed_saturation", "judge_law_values", "judge_optimal_sparsity", "rounding_units"]


def rounding_units(ours: float, quoted: float, decimals: int) -> float:
    """|ours − quoted| in units of half the quoted number's last digit (<= 1: ``quoted`` is ``ours`` rounded)."""
    return abs(float(ours) - float(quoted)) / (0.5 * 10.0 ** -int(decimals))


def judge_law_values(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``law_values``: the worst quoted number against ``rounding`` (module docstring)."""
    if not rows:
        return Judgement(Verdict.INCONCLUSIVE, "no quoted numbers to compare")
    units = [rounding_units(r["ours"], r["quoted"], r["decimals"]) for r in rows]
    i = int(np.argmax(units))
    worst = rows[i]
    j = against_bar("max |ours − quoted| in half-units of the last quoted digit", units[i], bars["rounding"])
    off = [r["quantity"] for r, u in zip(rows, units) if not bars["rounding"].satisfied(u)]
    reason = (f"{j.reason}; worst: {worst['quantity']} (ours {worst['ours']:.6g}, quoted {worst['quoted']:g}); "
              f"{len(rows) - len(off)} of {len(rows)} quoted numbers reproduced "
              f"({sum(bool(r['derived']) for r in rows)} of them derived by the notes)"
              + (f"; not reproduced: {', '.join(off[:5])}" if off else ""))
    return Judgement(j.verdict, reason, {**j.measured, "max_units": units[i], "worst": worst["quantity"],
                                         "not_reproduced": off, "n_quoted": len(rows)})


def _ratio_estimate(log_ratios: list[float]) -> Estimate:
    e = bootstrap_ci(log_ratios, seed=0)
    return Estimate(math.exp(e.value), math.exp(e.lo), math.exp(e.hi), e.level)


def judge_delayed_saturation(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar],
                             sparse_density: float) -> Judgement:
    """``delayed_saturation``: geometric-mean R_D*(sparse)/R_D*(dense) over seeds (module docstring)."""
    dense = max(float(r["density"]) for r in rows)
    by = {(r["seed"], float(r["density"])): r for r in rows}
    seeds = sorted({r["seed"] for r in rows})
    ratios: dict[Any, float] = {}
    unidentified = []
    for s in seeds:
        d, sp = by.get((s, dense)), by.get((s, float(sparse_density)))
        if d is None or sp is None:
            continue
        if d["at_bound"] or sp["at_bound"]:
            unidentified.append(s)
            continue
        ratios[s] = float(sp["R_D_star"]) / float(d["R_D_star"])
    name = f"R_D*({sparse_density:g}) / R_D*({dense:g})"
    extra = {"ratios": {str(k): v for k, v in ratios.items()}, "unidentified_seeds": unidentified}
    few = enough_seeds(len(ratios), min_n=MIN_SEEDS, what="seeds with an identified ratio")
    if few is not None:
        why = f"; {len(unidentified)} seeds fitted no saturation (half-life at its bound)" if unidentified else ""
        return Judgement(few.verdict, few.reason + why, extra)
    est = _ratio_estimate([math.log(v) for v in ratios.values()])
    j = against_bar(f"{name} (geometric mean over seeds)", est, bars["delay_ratio"], n=len(ratios),
                    min_n=MIN_SEEDS, fail_bar=bars["no_delay"])
    per = ", ".join(f"{v:.2f}" for v in ratios.values())
    return Judgement(j.verdict, f"{j.reason}; per seed {per}", {**j.measured, **extra, "ratio": est.value,
                                                                "ratio_ci": [est.lo, est.hi]})


def judge_optimal_sparsity(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``loss_optimal_sparsity``: every judged slice's optimum in the ``moderate_sparsity`` band."""
    parts = {str(r["slice"]): against_bar("loss-optimal sparsity", float(r["sparsity"]),
                                          bars["moderate_sparsity"]) for r in rows if r.get("judged")}
    if not parts:
        return Judgement(Verdict.INCONCLUSIVE, "no slice to judge")
    j = all_of(parts, what="fixed-data slices")
    others = [f"{r['slice']}: {float(r['sparsity']):.1%} (not judged)" for r in rows if not r.get("judged")]
    return Judgement(j.verdict, j.reason + (f". Also {'; '.join(others)}" if others else ""), j.measured)


RULES = {"law_values": judge_law_values, "delayed_saturation": judge_delayed_saturation,
         "loss_optimal_sparsity": judge_optimal_sparsity}
UNJUDGED: dict[str, str] = {}
