"""Verdict rules of the [P24] claims: pure functions of per-(seed, arm) rows, built from :mod:`icml26.verdicts`.

A row of the training arms is ``{"seed", "arm", "displacement_ratio", "static_rate", "frame_error", "drift",
"fluctuation", "diverged"}`` with ``arm`` in ``ARMS``. A row of the timed claim is ``{"rep", "teacher_s",
"student_s"}``.

- ``motion_kept``: the AAD-1 arm's displacement ratio, static rate and frame error each against their bar.
- ``causal_collapse``: the per-chunk arm's displacement ratio below ``causal_ratio`` and the paired gap to AAD-1 above
  ``gap``, decided only when every non-diverged run of both arms passes the ``frame_error`` validity gate.
- ``warmup_stability``: paired log fluctuation ratio (adversarial-only / AAD-1) above ``log_fluctuation_ratio``,
  decided only when every non-diverged run of both arms passes the ``frame_error`` validity gate.
- ``drift_2x``: paired drift difference (AAD-1 − DMD-only) below ``drift_diff``.
- ``one_step_speed``: paired bootstrap ratio teacher / student seconds against ``speedup`` (timed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds

__all__ = ["ARMS", "DIVERGED_LOG_RATIO", "RULES", "UNJUDGED", "judge_collapse", "judge_drift", "judge_motion",
           "judge_speed", "judge_stability"]

ARMS = ("dmd", "aad", "causal", "adv_only")
DIVERGED_LOG_RATIO = math.log(10.0)  # a diverged run's log fluctuation ratio (bounded: a CI needs finite values)


def _by_seed(rows: Sequence[Mapping[str, Any]], arm: str) -> dict[int, Mapping[str, Any]]:
    return {int(r["seed"]): r for r in rows if r["arm"] == arm}


def _paired(rows: Sequence[Mapping[str, Any]], a: str, b: str) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    ra, rb = _by_seed(rows, a), _by_seed(rows, b)
    return [(ra[s], rb[s]) for s in sorted(set(ra) & set(rb))]


def _ci(values: Sequence[float]) -> Any:
    v = [float(x) for x in values]
    if not v or not all(math.isfinite(x) for x in v):
        return float("nan")
    return bootstrap_ci(v, seed=0)


def judge_motion(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``motion_kept``: the AAD-1 arm keeps the data's motion, is rarely static and still draws sprites."""
    aad = list(_by_seed(rows, "aad").values())
    n = len(aad)
    few = enough_seeds(n)
    if few is not None:
        return few
    parts = {key: against_bar(f"AAD-1 {key.replace('_', ' ')}", _ci([r[key] for r in aad]), bars[key], n=n,
                              min_n=MIN_SEEDS)
             for key in ("displacement_ratio", "static_rate", "frame_error")}
    return all_of(parts, what="bars", show=3)


def judge_collapse(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``causal_collapse``: the per-chunk discriminator's student loses motion, and loses more than AAD-1's.

    A static blank or noise frame is not a static video: the verdict is decided only when both arms still draw sprites.
    """
    pairs = _paired(rows, "aad", "causal")
    few = enough_seeds(len(pairs))
    if few is not None:
        return few
    n = len(pairs)
    parts = {
        "causal_ratio": against_bar("per-chunk displacement ratio", _ci([c["displacement_ratio"] for _, c in pairs]),
                                    bars["causal_ratio"], n=n, min_n=MIN_SEEDS),
        "gap": against_bar("AAD-1 − per-chunk displacement ratio",
                           _ci([a["displacement_ratio"] - c["displacement_ratio"] for a, c in pairs]), bars["gap"],
                           n=n, min_n=MIN_SEEDS),
    }
    j = all_of(parts, what="bars", show=2)
    static = {"causal_static_rate": float(np.mean([c["static_rate"] for _, c in pairs])),
              "aad_static_rate": float(np.mean([a["static_rate"] for a, _ in pairs]))}
    verdict, reason, bad = _gated(j, pairs, bars["frame_error"])
    return Judgement(verdict, reason, {**j.measured, **static, "runs_without_sprites": len(bad)})


def _log_ratio(no_warm: Mapping[str, Any], warm: Mapping[str, Any]) -> float:
    if bool(no_warm["diverged"]) and not bool(warm["diverged"]):
        return DIVERGED_LOG_RATIO
    if bool(warm["diverged"]) and not bool(no_warm["diverged"]):
        return -DIVERGED_LOG_RATIO
    a, b = float(no_warm["fluctuation"]), float(warm["fluctuation"])
    a, b = max(a, 1e-6), max(b, 1e-6)
    return float(np.clip(math.log(a / b), -DIVERGED_LOG_RATIO, DIVERGED_LOG_RATIO))


def _gated(j: Judgement, pairs: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
           gate: Bar) -> tuple[Verdict, str, list[str]]:
    """``j`` unless a non-diverged run of ``pairs`` misses the frame-error validity gate: then ``inconclusive`` (the
    centroid motion of frames far from any clean sprite is noise), with what ``j`` measured in the reason."""
    bad = [f"{r['arm']} seed {int(r['seed'])}: {float(r['frame_error']):.3g}" for pair in pairs for r in pair
           if not bool(r["diverged"]) and not gate.satisfied(float(r["frame_error"]))]
    if not bad:
        return j.verdict, j.reason, bad
    return (Verdict.INCONCLUSIVE,
            f"{len(bad)} of {2 * len(pairs)} runs miss the frame-error gate {gate.op} {gate.value:g} ({gate.provenance}) "
            f"({'; '.join(bad)}): the centroid motion of frames that far from a clean sprite is noise, so the motion "
            f"statistic cannot decide; it measured {j.reason}", bad)


def judge_stability(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``warmup_stability``: adversarial training without the DMD warm-up swings more (or diverges).

    The probe fluctuation is a centroid statistic, so it is compared only when every non-diverged run of both arms
    still draws sprites (frame error under the ``frame_error`` gate); otherwise the verdict is ``inconclusive``.
    """
    pairs = _paired(rows, "adv_only", "aad")
    few = enough_seeds(len(pairs))
    if few is not None:
        return few
    lr = [_log_ratio(a, b) for a, b in pairs]
    j = against_bar("log(fluctuation without / with warm-up)", _ci(lr), bars["log_fluctuation_ratio"], n=len(pairs),
                    min_n=MIN_SEEDS)
    sd = {arm: float(np.std([r["displacement_ratio"] for r in _by_seed(rows, arm).values()], ddof=1))
          for arm in ("adv_only", "aad")}
    verdict, reason, bad = _gated(j, pairs, bars["frame_error"])
    reason = (f"{reason}; across-seed sd of the displacement ratio: without warm-up {sd['adv_only']:.3g}, "
              f"with {sd['aad']:.3g}")
    return Judgement(verdict, reason, {**j.measured, "log_ratios": lr, "seed_sd": sd, "runs_without_sprites": len(bad),
                                       "diverged": {a: sum(bool(r["diverged"]) for r in _by_seed(rows, a).values())
                                                    for a in ("adv_only", "aad")}})


def judge_drift(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``drift_2x``: at twice the training horizon AAD-1's frames drift less than DMD-only's."""
    pairs = _paired(rows, "aad", "dmd")
    few = enough_seeds(len(pairs))
    if few is not None:
        return few
    diff = [float(a["drift"]) - float(d["drift"]) for a, d in pairs]
    j = against_bar("AAD-1 − DMD-only drift", _ci(diff), bars["drift_diff"], n=len(pairs), min_n=MIN_SEEDS)
    means = {arm: float(np.mean([r["drift"] for r in _by_seed(rows, arm).values()])) for arm in ("aad", "dmd")}
    return Judgement(j.verdict, j.reason, {**j.measured, "mean_drift": means})


def judge_speed(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``one_step_speed`` (timed): teacher / student wall-clock per batch, paired over repetitions."""
    few = enough_seeds(len(rows), what="repetitions")
    if few is not None:
        return few
    est = ratio_ci([r["teacher_s"] for r in rows], [r["student_s"] for r in rows], paired=True, seed=0)
    return against_bar("teacher / student seconds", est, bars["speedup"], n=len(rows), timed=True)


RULES = {"motion_kept": judge_motion, "causal_collapse": judge_collapse, "warmup_stability": judge_stability,
         "drift_2x": judge_drift, "one_step_speed": judge_speed}
UNJUDGED: dict[str, str] = {}
