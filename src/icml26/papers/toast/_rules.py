"""Verdict rules of the [P35] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

Accuracies are in percent of the test images; every comparison is paired by seed (one trained ViT per seed) and
carries a bootstrap CI over seeds; fewer than ``MIN_SEEDS`` seeds give ``inconclusive``.

- ``tcs_training_free``: at the judged ratio, the accuracy cost of TCS (dense − TCS) meets ``tcs_drop``, and random
  and weight-magnitude selection of the same number of channels cost more: (TCS − baseline) meets ``random_gap`` /
  ``magnitude_gap``. Rows: ``{"seed", "ratio", "method", "accuracy"}``, ``method`` ∈ dense, tcs, random, magnitude.
- ``coupled_pruning``: after the same fine-tuning, the coupled gm model is non-inferior to every other coupling
  (paired difference against ``coupling_margin``). Rows: ``{"seed", "coupling", "oneshot", "finetuned"}``.
- ``accuracy_efficiency``: the MAC reduction of the schedule meets ``mac_reduction`` and the drop against the dense
  model fine-tuned for the same extra epochs meets ``drop_vs_dense_ft``. Rows: ``{"seed", "dense", "dense_ft",
  "scwp", "toast", "macs_dense", "macs_toast"}``.
- ``throughput``: the paired ratio of mean dense to mean ToaSt latency meets ``speedup`` (wall-clock: ``timed``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, non_inferior

__all__ = ["RULES", "UNJUDGED", "judge_budget", "judge_coupling", "judge_tcs", "judge_throughput"]


def _paired(name: str, values: Sequence[float], bar: Bar) -> Judgement:
    est = bootstrap_ci(list(values), seed=0)
    return against_bar(name, est, bar, n=len(values), min_n=MIN_SEEDS)


def _acc(rows: Sequence[dict[str, Any]], method: str, ratio: float) -> dict[int, float]:
    return {r["seed"]: float(r["accuracy"]) for r in rows if r["method"] == method
            and (method == "dense" or abs(float(r["ratio"]) - ratio) < 1e-9)}


def judge_tcs(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], ratio: float) -> Judgement:
    """``tcs_training_free`` (module docstring), at fc2 ratio ``ratio``."""
    dense, tcs = _acc(rows, "dense", ratio), _acc(rows, "tcs", ratio)
    rand, mag = _acc(rows, "random", ratio), _acc(rows, "magnitude", ratio)
    seeds = sorted(set(dense) & set(tcs) & set(rand) & set(mag))
    if not seeds:
        return Judgement(Verdict.INCONCLUSIVE, f"no seed has dense, TCS and both baselines at ratio {ratio:g}")
    parts = {
        "TCS cost": _paired("dense − TCS accuracy (pts)", [dense[s] - tcs[s] for s in seeds], bars["tcs_drop"]),
        "vs random": _paired("TCS − random accuracy (pts)", [tcs[s] - rand[s] for s in seeds], bars["random_gap"]),
        "vs magnitude": _paired("TCS − magnitude accuracy (pts)", [tcs[s] - mag[s] for s in seeds],
                                bars["magnitude_gap"]),
    }
    j = all_of(parts, what="parts")
    ratios = sorted({float(r["ratio"]) for r in rows if r["method"] != "dense"})
    methods = sorted({r["method"] for r in rows if r["method"] != "dense"})
    mean = {m: {f"{q:g}": float(np.mean(list(a.values()))) for q in ratios if (a := _acc(rows, m, q))}
            for m in methods}
    return Judgement(j.verdict, f"{j.reason}. {len(seeds)} seeds at fc2 ratio {ratio:g}",
                     {**j.measured, "dense_accuracy": float(np.mean([dense[s] for s in seeds])),
                      "mean_accuracy": mean, "seeds": len(seeds)})


def judge_coupling(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], variants: Sequence[str]) -> Judgement:
    """``coupled_pruning`` (module docstring): coupled gm non-inferior to each of ``variants``."""
    ft = {(r["coupling"], r["seed"]): float(r["finetuned"]) for r in rows}
    parts = {}
    for v in variants:
        seeds = sorted(s for c, s in ft if c == v and ("coupled", s) in ft)
        if not seeds:
            parts[f"vs {v}"] = Judgement(Verdict.INCONCLUSIVE, f"no seed has both coupled and {v}")
            continue
        est = bootstrap_ci([ft["coupled", s] - ft[v, s] for s in seeds], seed=0)
        parts[f"vs {v}"] = non_inferior(f"coupled − {v} accuracy (pts)", est, bars["coupling_margin"], n=len(seeds),
                                        min_n=MIN_SEEDS)
    j = all_of(parts, what="uncoupled variants", show=len(parts))
    mean = {c: {k: float(np.mean([r[k] for r in rows if r["coupling"] == c])) for k in ("oneshot", "finetuned")}
            for c in ("coupled", *variants) if any(r["coupling"] == c for r in rows)}
    return Judgement(j.verdict, j.reason, {**j.measured, "mean_accuracy": mean})


def judge_budget(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``accuracy_efficiency`` (module docstring)."""
    if not rows:
        return Judgement(Verdict.INCONCLUSIVE, "no rows")
    red = [1.0 - float(r["macs_toast"]) / float(r["macs_dense"]) for r in rows]
    if max(red) - min(red) > 1e-12:
        return Judgement(Verdict.INCONCLUSIVE, "the MAC count differs between seeds: the schedule was not fixed")
    parts = {
        "MACs": against_bar("MAC reduction", red[0], bars["mac_reduction"]),
        "accuracy": _paired("dense fine-tuned − ToaSt accuracy (pts)", [r["dense_ft"] - r["toast"] for r in rows],
                            bars["drop_vs_dense_ft"]),
    }
    j = all_of(parts, what="parts")
    mean = {k: float(np.mean([r[k] for r in rows])) for k in ("dense", "dense_ft", "scwp", "toast")}
    gain = bootstrap_ci([r["toast"] - r["dense"] for r in rows], seed=0)
    ft_gain = bootstrap_ci([r["dense_ft"] - r["dense"] for r in rows], seed=0)
    return Judgement(j.verdict, f"{j.reason}. {len(rows)} seeds", {
        **j.measured, "mac_reduction": red[0], "mean_accuracy": mean,
        "toast_minus_dense": [gain.value, gain.lo, gain.hi], "dense_ft_minus_dense": [ft_gain.value, ft_gain.lo,
                                                                                        ft_gain.hi]})


def judge_throughput(times: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], macs_dense: float,
                     macs_toast: float) -> Judgement:
    """``throughput`` (module docstring): rows ``{"dense_s", "toast_s"}``, one per paired round."""
    if len(times) < 2:
        return Judgement(Verdict.INCONCLUSIVE, f"only {len(times)} timed round(s): no CI on the speed-up",
                         {"mac_ratio": macs_dense / macs_toast})
    est = ratio_ci([t["dense_s"] for t in times], [t["toast_s"] for t in times], paired=True, seed=0)
    j = against_bar("dense / ToaSt latency", est, bars["speedup"], n=len(times), timed=True)
    return Judgement(j.verdict, f"{j.reason}; MAC ratio {macs_dense / macs_toast:.3g}", {"mac_ratio": macs_dense /
                                                                                         macs_toast}, j.timings)


RULES = {"tcs_training_free": judge_tcs, "coupled_pruning": judge_coupling, "accuracy_efficiency": judge_budget,
         "throughput": judge_throughput}
UNJUDGED: dict[str, str] = {}
