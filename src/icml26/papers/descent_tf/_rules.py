"""Verdict rules of the [P07] claims: pure functions of a table of runs, built from :mod:`icml26.verdicts`.

A row is one trained run: ``{"task", "method", "seed", "kind", "layer_loss", "id", "perturbed", "ood"}``;
``layer_loss`` holds the test loss of every state ℓ_0..ℓ_L, ``kind`` is ``"nmse"`` (lower is better) or
``"accuracy"`` (higher is better), and ``id``/``perturbed``/``ood`` are the final-layer metric in distribution, with a
mid-layer perturbation, and out of distribution. Methods pair up by (task, seed).

The gain of the constrained model over ERM is (ERM − constrained) / ERM for an NMSE (relative) and
constrained − ERM for an accuracy (in points of the fraction); its bootstrap CI is over seeds.

- ``monotone_descent``: the share of adjacent pairs (ℓ_{l−1}, ℓ_l) with ℓ_l ≤ ℓ_{l−1}, pooled over tasks and seeds,
  meets ``constrained_share`` for the constrained models, and ERM's share meets ``erm_share`` (ERM is not monotone).
- ``in_distribution``: per task, the ID gain is non-inferior at ``id_margin``; every task must hold.
- ``perturbation_robustness`` / ``ood_generalization``: per task, the CI of the gain under the perturbation / out of
  distribution lies above ``perturb_gain`` / ``ood_gain``; every task must hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds, non_inferior, share

__all__ = ["RULES", "gains", "judge_in_distribution", "judge_monotone", "judge_ood", "judge_perturbation",
           "monotone_count"]

Row = Mapping[str, Any]


def monotone_count(layer_loss: Sequence[float]) -> tuple[int, int]:
    """(k, n): of the n adjacent pairs of ``layer_loss``, the k that do not increase."""
    x = np.asarray(layer_loss, dtype=float)
    return int(np.sum(x[1:] <= x[:-1])), int(x.size - 1)


def _seeds(rows: Sequence[Row]) -> list[int]:
    return sorted({int(r["seed"]) for r in rows})


def _pooled(rows: Sequence[Row], method: str) -> tuple[int, int, dict[str, list[int]]]:
    k = n = 0
    per_task: dict[str, list[int]] = {}
    for r in rows:
        if r["method"] == method:
            a, b = monotone_count(r["layer_loss"])
            k, n = k + a, n + b
            t = per_task.setdefault(str(r["task"]), [0, 0])
            t[0], t[1] = t[0] + a, t[1] + b
    return k, n, per_task


def judge_monotone(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``monotone_descent`` (module docstring): pooled non-increasing share, constrained vs ERM."""
    seeds = _seeds(rows)
    kc, nc, tc = _pooled(rows, "constrained")
    ke, ne, te = _pooled(rows, "erm")
    if nc == 0 or ne == 0:
        raise ValueError("rows must hold constrained and erm runs")
    measured = {"constrained_pairs": [kc, nc], "erm_pairs": [ke, ne], "constrained_by_task": tc, "erm_by_task": te,
                "seeds": len(seeds)}
    few = enough_seeds(len(seeds))
    if few is not None:
        return Judgement(few.verdict, f"{few.reason}; constrained {kc}/{nc}, ERM {ke}/{ne} non-increasing pairs",
                         measured)
    j = all_of({"constrained": share("constrained non-increasing share", kc, nc, bars["constrained_share"],
                                     noun="adjacent layer pairs"),
                "erm": share("ERM non-increasing share", ke, ne, bars["erm_share"], noun="adjacent layer pairs")},
               what="parts", show=2)
    return Judgement(j.verdict, j.reason, {**measured, **j.measured})


def gains(rows: Sequence[Row], task: str, field: str) -> list[float]:
    """Per seed, the gain of the constrained model over ERM on ``field`` for ``task`` (module docstring)."""
    by = {(r["method"], int(r["seed"])): r for r in rows if r["task"] == task}
    out = []
    for s in sorted({k[1] for k in by}):
        con, erm = by.get(("constrained", s)), by.get(("erm", s))
        if con is None or erm is None:
            raise ValueError(f"task {task!r}, seed {s}: both a constrained and an erm run are needed")
        c, e = float(con[field]), float(erm[field])
        out.append(c - e if con["kind"] == "accuracy" else (e - c) / e)
    return out


def _per_task(rows: Sequence[Row], field: str, bar: Bar, *, inferiority: bool) -> Judgement:
    tasks = sorted({str(r["task"]) for r in rows})
    parts = {}
    for t in tasks:
        g = gains(rows, t, field)
        kind = next(r["kind"] for r in rows if r["task"] == t)
        name = f"{t} {field} gain ({'points' if kind == 'accuracy' else 'relative'})"
        est = bootstrap_ci(g, seed=0)
        if inferiority:
            parts[t] = non_inferior(name, est, bar, n=len(g), min_n=MIN_SEEDS)
        else:
            parts[t] = against_bar(name, est, bar, n=len(g), min_n=MIN_SEEDS)
    j = all_of(parts, what="tasks", show=len(parts))
    per = {t: gains(rows, t, field) for t in tasks}
    return Judgement(j.verdict, j.reason, {**j.measured, "gains_by_seed": per})


def judge_in_distribution(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``in_distribution``: per task, constrained vs ERM on the ID metric, non-inferior at ``id_margin``."""
    return _per_task(rows, "id", bars["id_margin"], inferiority=True)


def judge_perturbation(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``perturbation_robustness``: per task, the gain under the mid-layer perturbation against ``perturb_gain``."""
    return _per_task(rows, "perturbed", bars["perturb_gain"], inferiority=False)


def judge_ood(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``ood_generalization``: per task, the out-of-distribution gain against ``ood_gain``."""
    return _per_task(rows, "ood", bars["ood_gain"], inferiority=False)


RULES = {"monotone_descent": judge_monotone, "in_distribution": judge_in_distribution,
         "perturbation_robustness": judge_perturbation, "ood_generalization": judge_ood}
