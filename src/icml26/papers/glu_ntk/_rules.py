"""Verdict rules of the [P21] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

- ``smaller_condition_number``: a row per (activation pair, width, seed) with ``pair`` ("relu/reglu"),
  ``kappa_ratio`` = κ_nonGLU / κ_GLU and ``top_share_ratio`` = (λ_max / tr K)_nonGLU / (λ_max / tr K)_GLU. For every
  pair the median κ ratio (bootstrap CI on the log scale) against ``kappa_ratio`` and the median top-share ratio
  against ``top_share_ratio``: every part must hold.
- ``faster_convergence``: a row per trained (seed, activation) pair with ``epochs_non`` / ``epochs_glu``, the epochs
  to the train-loss mark (``None``: missed, censored at ``epochs + 1``). The share of pairs where GLU needs fewer
  epochs against ``win_share`` (failing below ``win_share_fail``) and the mean epochs ratio non-GLU / GLU against
  ``epochs_ratio`` (failing below ``epochs_fail``). Linearised GD at each model's η = 1/λ_max is not judged: there
  the slowest mode decays like (1 − 1/κ)^t, so it restates ``smaller_condition_number``.
- ``loss_crossing``: the crossing step of every linearised run and the crossing epoch of every trained run (``None``:
  no crossing). In each setting the share of runs that cross against ``robust_share``, failing at ``rare_share``.
- ``gap_not_reduced``: a row per (seed, activation pair) with the epochs to the train-loss mark (``None``: missed,
  censored at ``epochs + 1``) and the gaps there. The paired ratio of mean gaps GLU / non-GLU against ``gap_band`` and
  the mean epochs ratio non-GLU / GLU against ``speed_ratio`` (failing below ``speed_fail``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, share

__all__ = [
    "RULES",
    "censored_epochs",
    "gap_ratio",
    "judge_condition_number",
    "judge_crossing",
    "judge_faster",
    "judge_gap",
    "median_ratio_ci",
]


def median_ratio_ci(values: Sequence[float], *, seed: int = 0) -> Estimate:
    """Median of positive ratios with a bootstrap CI on the log scale; a NaN CI when a ratio is not finite and
    positive (a singular kernel: κ = inf), so that no verdict rests on it."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        raise ValueError("median_ratio_ci needs at least one ratio")
    if not np.all(np.isfinite(v) & (v > 0)):
        return Estimate(float(np.median(v)), math.nan, math.nan)
    est = bootstrap_ci(np.log(v), stat=np.median, seed=seed)
    return Estimate(math.exp(est.value), math.exp(est.lo), math.exp(est.hi))


def _pairs(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(str(r["pair"]) for r in rows))


def judge_condition_number(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``smaller_condition_number`` (module docstring): per pair, the κ ratio and the top-share ratio."""
    parts: dict[str, Judgement] = {}
    measured: dict[str, Any] = {}
    for pair in _pairs(rows):
        r = [x for x in rows if x["pair"] == pair]
        est = median_ratio_ci([x["kappa_ratio"] for x in r])
        top = float(np.median([x["top_share_ratio"] for x in r]))
        parts[f"{pair} κ"] = against_bar(f"median κ ratio {pair}", est, bars["kappa_ratio"], n=len(r),
                                         min_n=MIN_SEEDS)
        parts[f"{pair} top share"] = against_bar(f"median top-share ratio {pair}", top, bars["top_share_ratio"])
        measured[pair] = {"median_kappa_ratio": est.value, "ci": [est.lo, est.hi], "median_top_share_ratio": top,
                          "runs": len(r)}
    j = all_of(parts, what="(pair, measure) parts", show=len(parts))
    return Judgement(j.verdict, j.reason, {**measured, "parts": j.measured["parts"]})


def steps_ratios(rows: Sequence[Mapping[str, Any]], key: str = "steps") -> list[float]:
    """Per run, ``{key}_non / {key}_glu`` (a GLU run that needs no step counts as one)."""
    return [float(r[f"{key}_non"]) / max(float(r[f"{key}_glu"]), 1.0) for r in rows]


def judge_faster(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar], epochs: int) -> Judgement:
    """``faster_convergence`` (module docstring): on the trained pairs, GLU reaches the mark first in most pairs
    (``win_share``) and the mean epochs ratio non-GLU / GLU has its CI above 1 (``epochs_ratio``)."""
    non = [censored_epochs(r["epochs_non"], epochs=epochs) for r in rows]
    glu = [censored_epochs(r["epochs_glu"], epochs=epochs) for r in rows]
    ratios = [a / max(b, 1) for a, b in zip(non, glu)]
    wins = sum(b < a for a, b in zip(non, glu))
    est = bootstrap_ci(ratios, seed=0)
    j = all_of({"share": share("GLU fewer epochs", wins, len(rows), bars["win_share"], fail_bar=bars["win_share_fail"],
                               noun="pairs"),
                "ratio": against_bar("epochs to the mark non-GLU / GLU", est, bars["epochs_ratio"], n=len(rows),
                                     min_n=MIN_SEEDS, fail_bar=bars["epochs_fail"])}, what="parts (share, ratio)")
    acts = list(dict.fromkeys(str(r["activation"]) for r in rows))
    by_act = {a: float(np.mean([q for q, r in zip(ratios, rows) if r["activation"] == a])) for a in acts}
    measured = {**j.measured, "epochs_ratio": [est.value, est.lo, est.hi], "glu_win_share": wins / len(rows),
                "runs": len(rows), "by_activation": by_act,
                "censored_non": sum(r["epochs_non"] is None for r in rows),
                "censored_glu": sum(r["epochs_glu"] is None for r in rows)}
    return Judgement(j.verdict, j.reason, measured)


def _crossing_share(what: str, steps: Sequence[int | None], bars: Mapping[str, Bar]) -> Judgement:
    if not steps:
        return Judgement(Verdict.INCONCLUSIVE, f"no {what}")
    k = sum(s is not None for s in steps)
    return share(f"{what} crossing", k, len(steps), bars["robust_share"], fail_bar=bars["rare_share"])


def judge_crossing(linearized: Sequence[int | None], trained: Sequence[int | None], *,
                   bars: Mapping[str, Bar]) -> Judgement:
    """``loss_crossing`` (module docstring): frequent in both settings holds, rare in either fails."""
    j = all_of({"linearised": _crossing_share("linearised GD runs", linearized, bars),
                "trained": _crossing_share("trained runs", trained, bars)}, what="settings")
    measured = {**j.measured,
                "linearized_crossing_share": sum(s is not None for s in linearized) / max(len(linearized), 1),
                "trained_crossing_share": sum(s is not None for s in trained) / max(len(trained), 1)}
    return Judgement(j.verdict, j.reason, measured)


def censored_epochs(first_epoch: int | None, *, epochs: int) -> int:
    """Epochs to the train-loss mark, a run that never reached it censored at ``epochs + 1`` (a lower bound)."""
    return epochs + 1 if first_epoch is None else first_epoch


def gap_ratio(gap_non: Sequence[float], gap_glu: Sequence[float], *, seed: int = 0) -> Estimate | None:
    """Paired bootstrap CI of mean(gap_GLU) / mean(gap_nonGLU) over the (seed, activation) pairs; ``None`` when there
    is no pair or the mean non-GLU gap is <= 0 (no gap that GLU could reduce: the ratio is undefined)."""
    if len(gap_non) != len(gap_glu):
        raise ValueError(f"gap_non and gap_glu must pair up, got {len(gap_non)} and {len(gap_glu)}")
    if not gap_non or float(np.mean(gap_non)) <= 0.0:
        return None
    return ratio_ci(list(gap_glu), list(gap_non), paired=True, seed=seed)


def judge_gap(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar], epochs: int) -> Judgement:
    """``gap_not_reduced`` (module docstring): the gap ratio inside its band and GLU faster to the mark.

    Misses are censored at ``epochs + 1`` in the speed ratio (a GLU miss counts against GLU, a non-GLU miss for it,
    both towards 1); the gap is defined only where both models reached the mark.
    """
    speed = bootstrap_ci([censored_epochs(r["epochs_non"], epochs=epochs)
                          / max(censored_epochs(r["epochs_glu"], epochs=epochs), 1) for r in rows], seed=0)
    ok = [r for r in rows if r["epochs_non"] is not None and r["epochs_glu"] is not None]
    g_non, g_glu = [float(r["gap_non"]) for r in ok], [float(r["gap_glu"]) for r in ok]
    g = gap_ratio(g_non, g_glu)
    gap = (Judgement(Verdict.INCONCLUSIVE, "gap ratio undefined: no pair reached the mark, or the mean non-GLU gap "
                     "is <= 0") if g is None else
           against_bar("mean gap GLU / mean gap non-GLU", g, bars["gap_band"], n=len(ok), min_n=MIN_SEEDS))
    j = all_of({"gap": gap, "speed": against_bar("epochs to the mark non-GLU / GLU", speed, bars["speed_ratio"],
                                                  n=len(rows), min_n=MIN_SEEDS, fail_bar=bars["speed_fail"])}, what="parts (gap, speed)")
    d = bootstrap_ci([b - a for a, b in zip(g_non, g_glu)], seed=0) if ok else None
    measured = {**j.measured, "gap_ratio_glu_over_non": None if g is None else [g.value, g.lo, g.hi],
                "gap_diff": None if d is None else [d.value, d.lo, d.hi],
                "mean_gap_non": float(np.mean(g_non)) if ok else None,
                "mean_gap_glu": float(np.mean(g_glu)) if ok else None,
                "epochs_ratio": [speed.value, speed.lo, speed.hi], "runs": len(rows), "gap_runs": len(ok),
                "censored_non": sum(r["epochs_non"] is None for r in rows),
                "censored_glu": sum(r["epochs_glu"] is None for r in rows), "pairs_without_gap": len(rows) - len(ok)}
    return Judgement(j.verdict, j.reason, measured)


RULES = {"smaller_condition_number": judge_condition_number, "faster_convergence": judge_faster,
         "loss_crossing": judge_crossing, "gap_not_reduced": judge_gap}
