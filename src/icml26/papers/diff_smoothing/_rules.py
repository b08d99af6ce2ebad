"""Verdict rules of the [P32] claims: pure functions of what was measured, built from :mod:`icml26.verdicts`.

Inputs are per-seed means (CountDown: one SFT base and its GRPO runs per seed; the unit of the CIs), per-prompt
values (the exact toy: every prompt of every seed's task set) or per-cell differences (the KL-regularised optimum). Each rule takes the claim's declared bars by name.

- ``vanilla_collapse``: vanilla GRPO − the SFT base, CIs over seeds, for the distinct correct answers
  (``distinct_change``) and pass@k (``passk_change``) on held-out prompts: both must fall.
- ``ds_improves_both``: DS − vanilla at the closed-form optimum of the KL-regularised objective (the theory's
  setting) on every cell of a grid (random base policies × β × γ/β), for pass@1, variant pass@k and the entropy among
  the correct answers: inside the ``regime`` no cell may lose on any of them (``counterexample_share``, a theorem
  admits no counterexample) and most must gain on all (``improved_share``); ties within ``tie_tolerance`` are
  neither. The cells beyond the regime are counted, never judged.
- ``entropy_heuristics``: each of :data:`PREDICTIONS` (the theory's directions), in every training mode: the
  predicted sign times the CI over prompts of the difference meets ``predicted_sign``.
- ``countdown_ds``: DS − vanilla GRPO, CIs over seeds, for pass@1 (``pass1_gain``) and pass@k (``passk_gain``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt, share

__all__ = ["PREDICTIONS", "RULES", "judge_collapse", "judge_countdown", "judge_signs", "judge_theorem"]

#: (method a, method b, metric, predicted sign of a − b): an entropy bonus raises the entropy among correct answers
#: and lowers pass@1, entropy minimisation the reverse, and DS has a higher pass@1 than the entropy bonus
PREDICTIONS: tuple[tuple[str, str, str, int], ...] = (
    ("entropy_bonus", "vanilla", "entropy_correct", 1), ("entropy_bonus", "vanilla", "pass@1", -1),
    ("entropy_min", "vanilla", "entropy_correct", -1), ("entropy_min", "vanilla", "pass@1", 1),
    ("ds", "entropy_bonus", "pass@1", 1))


def _diff(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """Bootstrap CI (seed 0) of the mean paired difference ``a − b``."""
    return bootstrap_ci(np.asarray(a, dtype=float) - np.asarray(b, dtype=float), seed=0)


def _record(est: Estimate) -> list[float]:
    return [est.value, est.lo, est.hi]


def _paired(a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]], checks: Mapping[str, tuple[str, Bar]],
            label: str, min_n: int) -> Judgement:
    """One part per metric: the CI of ``a[metric] − b[metric]`` against its bar; all must hold."""
    parts, diffs = {}, {}
    for metric, (name, bar) in checks.items():
        est = _diff(a[metric], b[metric])
        diffs[metric] = _record(est)
        parts[name] = against_bar(label, est, bar, n=len(a[metric]), min_n=min_n)
    j = all_of(parts, what="metrics", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "diff_ci": diffs})


def judge_collapse(base: Mapping[str, Sequence[float]], vanilla: Mapping[str, Sequence[float]], *,
                   bars: Mapping[str, Bar], k: int) -> Judgement:
    """``vanilla_collapse``: per-seed means of ``distinct_correct`` and ``pass@k`` for the SFT base and vanilla GRPO."""
    checks = {"distinct_correct": ("distinct correct answers", bars["distinct_change"]),
              f"pass@{k}": (f"pass@{k}", bars["passk_change"])}
    return _paired(vanilla, base, checks, "vanilla − base", MIN_SEEDS)


def _cell_counts(grid: Sequence[Mapping[str, Any]], tol: float) -> list[dict[str, Any]]:
    """Per γ/β: the cells, those with a loss beyond ``tol`` on some metric, those with a gain beyond ``tol`` on all,
    and per metric the losses and the smallest difference."""
    out = []
    for row in grid:
        d = {m: np.asarray(v, dtype=float) for m, v in row.items() if m != "gamma_over_beta"}
        if not d or len({v.size for v in d.values()}) != 1:
            raise ValueError("every grid row needs metric lists of one common length")
        stack = np.stack(list(d.values()))
        out.append({"gamma_over_beta": float(row["gamma_over_beta"]), "n": int(stack.shape[1]),
                    "losses": int(np.sum(np.any(stack < -tol, axis=0))),
                    "improved": int(np.sum(np.all(stack > tol, axis=0))),
                    "losses_by_metric": {m: int(np.sum(v < -tol)) for m, v in d.items()},
                    "min_diff": {m: float(v.min()) if v.size else float("nan") for m, v in d.items()}})
    return out


def judge_theorem(grid: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``ds_improves_both``: ``grid`` has one row per γ/β, ``{"gamma_over_beta": g, metric: [DS − vanilla per cell]}``
    for ``pass@1``, ``variant_pass@k`` and ``entropy_correct`` at the KL-regularised optimum (a cell: one base policy
    and one β). In the ``regime`` no cell may lose on any metric (``counterexample_share``) and most must gain on
    all (``improved_share``); the cells beyond the regime are counted in ``measured``, never judged."""
    tol = float(bars["tie_tolerance"].value)  # type: ignore[arg-type]
    rows = _cell_counts(grid, tol)
    inside = [r for r in rows if bars["regime"].satisfied(r["gamma_over_beta"])]
    measured: dict[str, Any] = {"by_gamma_over_beta": rows}
    if not inside or sum(r["n"] for r in inside) == 0:
        return Judgement(Verdict.INCONCLUSIVE, f"no cell with γ/β {bars['regime'].threshold}: nothing to judge",
                         measured)
    n = sum(r["n"] for r in inside)
    lost, won = sum(r["losses"] for r in inside), sum(r["improved"] for r in inside)
    worst = {m: min(r["min_diff"][m] for r in inside) for m in inside[0]["min_diff"]}
    parts = {"no counterexample": share("cells where DS loses on some metric", lost, n, bars["counterexample_share"],
                                        noun="cells in the regime"),
             "improvement seen": share("cells where DS gains on all metrics", won, n, bars["improved_share"],
                                       noun="cells in the regime")}
    j = all_of(parts, what="parts")
    where = [f"γ/β = {fmt(r['gamma_over_beta'])}: {r['losses']} of {r['n']}" for r in inside if r["losses"]]
    reason = j.reason + (f". Counterexamples at {'; '.join(where)}" if where else "")
    return Judgement(j.verdict, reason, {**j.measured, **measured, "worst_diff_in_regime": worst,
                                         "cells_in_regime": n})


def _signed(est: Estimate, sign: int) -> Estimate:
    lo, hi = sorted((sign * est.lo, sign * est.hi))
    return Estimate(sign * est.value, lo, hi, est.level)


def judge_signs(per: Mapping[str, Mapping[str, Mapping[str, Sequence[float]]]], *,
                bars: Mapping[str, Bar]) -> Judgement:
    """``entropy_heuristics``: ``per[mode][method][metric]`` per prompt; every prediction in every mode must hold."""
    parts, measured = {}, []
    for mode, by in per.items():
        for a, b, metric, sign in PREDICTIONS:
            est = _diff(by[a][metric], by[b][metric])
            name = f"{mode}: {a} − {b} {metric} ({'+' if sign > 0 else '−'})"
            parts[name] = against_bar(f"{'+' if sign > 0 else '−'}({a} − {b} {metric})", _signed(est, sign),
                                      bars["predicted_sign"], n=len(by[a][metric]))
            measured.append({"mode": mode, "a": a, "b": b, "metric": metric, "predicted_sign": sign,
                             "diff_ci": _record(est)})
    j = all_of(parts, what="predicted signs", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "predictions": measured})


def judge_countdown(ds: Mapping[str, Sequence[float]], vanilla: Mapping[str, Sequence[float]], *,
                    bars: Mapping[str, Bar], k: int) -> Judgement:
    """``countdown_ds``: per-seed means of ``pass@1`` and ``pass@k`` for DS and vanilla GRPO (same SFT base)."""
    checks = {"pass@1": ("pass@1", bars["pass1_gain"]), f"pass@{k}": (f"pass@{k}", bars["passk_gain"])}
    return _paired(ds, vanilla, checks, "DS − vanilla", MIN_SEEDS)


RULES = {"vanilla_collapse": judge_collapse, "ds_improves_both": judge_theorem,
         "entropy_heuristics": judge_signs, "countdown_ds": judge_countdown}
