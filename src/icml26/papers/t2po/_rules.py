"""Verdict rules of the [P15] claims: pure functions of run rows, built from :mod:`icml26.verdicts`.

A row is one training run: ``{"env", "arm", "seed", "final_success", "low_info", "think", "collapsed", ...}``
(``low_info``: low-information turns per turn, ``think``: kept think tokens per turn, both averaged over the
training rollouts; ``collapsed``: the evaluation curve fell ``collapse_drop`` below its running maximum). Every
comparison pairs T²PO with one baseline over the seeds both ran, per environment, and every (environment,
baseline) pair must hold (:func:`icml26.verdicts.all_of`); fewer than ``MIN_SEEDS`` paired seeds are inconclusive.

- ``higher_success``: the bootstrap CI of the mean paired difference in final success meets ``success_gain``.
- ``fewer_low_info_turns`` / ``fewer_think_tokens``: the paired bootstrap CI of mean(T²PO) / mean(baseline)
  meets ``low_info_ratio`` / ``think_ratio``.
- ``fewer_collapses``: the paired difference ``collapsed(baseline) − collapsed(T²PO)`` holds when its CI meets
  ``collapse_gap`` (> 0) and fails when it meets ``collapse_worse`` (< 0); no collapse in either arm says nothing
  about stability and is inconclusive, never a pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds

__all__ = ["METHOD", "RULES", "judge_collapses", "judge_low_info", "judge_success", "judge_think"]

METHOD = "t2po"


def _pairs(rows: Sequence[dict[str, Any]], baselines: Sequence[str], metric: str
           ) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """``(env, baseline) -> (T²PO values, baseline values)`` over the seeds both arms ran, in seed order."""
    by = {(r["env"], r["arm"], r["seed"]): float(r[metric]) for r in rows}
    envs = sorted({r["env"] for r in rows})
    out = {}
    for env in envs:
        for b in baselines:
            seeds = sorted({s for (e, a, s) in by if e == env and a == METHOD} & {s for (e, a, s) in by
                                                                                  if e == env and a == b})
            out[env, b] = ([by[env, METHOD, s] for s in seeds], [by[env, b, s] for s in seeds])
    return out


def _each(parts: dict[str, Judgement], what: str) -> Judgement:
    if not parts:
        return Judgement(Verdict.INCONCLUSIVE, "no (environment, baseline) pair with runs of both arms")
    return all_of(parts, what=what, show=len(parts))


def judge_success(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], baselines: Sequence[str]) -> Judgement:
    """``higher_success``: the paired final-success gain over every baseline meets ``success_gain``."""
    parts = {}
    for (env, b), (t, base) in _pairs(rows, baselines, "final_success").items():
        few = enough_seeds(len(t), min_n=MIN_SEEDS, what="paired seeds")
        if few is not None:
            parts[f"{env} vs {b}"] = few
            continue
        est = bootstrap_ci([x - y for x, y in zip(t, base)], seed=0)
        parts[f"{env} vs {b}"] = against_bar(f"{env}: T²PO − {b} final success", est, bars["success_gain"],
                                             n=len(t), min_n=MIN_SEEDS)
    return _each(parts, "(environment, baseline) pairs")


def _ratio(rows: Sequence[dict[str, Any]], bars: Mapping[str, Bar], baselines: Sequence[str], metric: str,
           bar: str, label: str) -> Judgement:
    parts = {}
    for (env, b), (t, base) in _pairs(rows, baselines, metric).items():
        few = enough_seeds(len(t), min_n=MIN_SEEDS, what="paired seeds")
        if few is None and sum(base) == 0:
            few = Judgement(Verdict.INCONCLUSIVE, f"{b} has no {label} in any seed: no ratio")
        if few is not None:
            parts[f"{env} vs {b}"] = few
            continue
        est = ratio_ci(t, base, paired=True, seed=0)
        parts[f"{env} vs {b}"] = against_bar(f"{env}: T²PO / {b} {label}", est, bars[bar], n=len(t),
                                             min_n=MIN_SEEDS)
    return _each(parts, "(environment, baseline) pairs")


def judge_low_info(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], baselines: Sequence[str]) -> Judgement:
    """``fewer_low_info_turns``: T²PO's low-information turn rate over every baseline's meets ``low_info_ratio``."""
    return _ratio(rows, bars, baselines, "low_info", "low_info_ratio", "low-information turns per turn")


def judge_think(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], baselines: Sequence[str]) -> Judgement:
    """``fewer_think_tokens``: T²PO's think tokens per turn over every baseline's meets ``think_ratio``."""
    return _ratio(rows, bars, baselines, "think", "think_ratio", "think tokens per turn")


def judge_collapses(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], baselines: Sequence[str]
                    ) -> Judgement:
    """``fewer_collapses``: fewer collapsed runs than every baseline, paired by seed (module docstring)."""
    parts = {}
    for (env, b), (t, base) in _pairs(rows, baselines, "collapsed").items():
        few = enough_seeds(len(t), min_n=MIN_SEEDS, what="paired seeds")
        if few is None and sum(t) + sum(base) == 0:
            few = Judgement(Verdict.INCONCLUSIVE, f"no collapse in either arm ({len(t)} seeds of T²PO and {b}): "
                            "stability is not tested")
        if few is not None:
            parts[f"{env} vs {b}"] = few
            continue
        est = bootstrap_ci([y - x for x, y in zip(t, base)], seed=0)
        name = f"{env}: collapsed {b} − collapsed T²PO ({int(sum(base))} vs {int(sum(t))} of {len(t)} seeds)"
        parts[f"{env} vs {b}"] = against_bar(name, est, bars["collapse_gap"], n=len(t), min_n=MIN_SEEDS,
                                             fail_bar=bars["collapse_worse"])
    return _each(parts, "(environment, baseline) pairs")


RULES = {"higher_success": judge_success, "fewer_low_info_turns": judge_low_info, "fewer_think_tokens": judge_think,
         "fewer_collapses": judge_collapses}
