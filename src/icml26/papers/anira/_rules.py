"""Verdict rules of the [P23] claims: pure functions of per-(task, method, seed) rows, built from
:mod:`icml26.verdicts`. Every CI is a bootstrap over seeds (:func:`icml26.common.stats.bootstrap_ci`), with at least
:data:`~icml26.verdicts.MIN_SEEDS` seeds for a decided verdict.

- ``depth_tracks_difficulty``: for every judged (task, method), the mean over seeds of Spearman's rho between
  per-token depth and difficulty meets ``rho``.
- ``no_length_extrapolation``: for every judged (task, method) whose in-distribution accuracy meets ``id_accuracy``
  (else that pair is inconclusive: a model that did not learn the task says nothing about extrapolation), the ID -
  OOD accuracy gap in points meets ``accuracy_drop`` and the OOD - ID mean depth meets ``depth_increase``.
- ``decision_timing``: for ANIRA-E against each ANIRA-O variant, paired by seed, R^2_static(E) - R^2_static(O)
  meets ``static_gap`` and R^2_state(O) - R^2_state(E) meets ``state_gap`` (on the tasks whose rows carry the R^2
  of both feature sets; rows without them are not judged here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of

__all__ = ["JUDGED", "ONLINE", "RULES", "judge_alignment", "judge_extrapolation", "judge_timing"]

#: the adaptive methods whose claims are judged (the baselines are reported beside them)
JUDGED = ("anira_e", "anira_o_act", "anira_o_ponder")
ONLINE = ("anira_o_act", "anira_o_ponder")


def _pairs(rows: Sequence[Mapping[str, Any]], methods: Sequence[str]) -> list[tuple[str, str]]:
    return sorted({(r["task"], r["method"]) for r in rows if r["method"] in methods})


def _values(rows: Sequence[Mapping[str, Any]], task: str, method: str, key: str) -> list[float]:
    return [float(r[key]) for r in sorted(rows, key=lambda r: r["seed"]) if r["task"] == task and r["method"] == method]


def _none(what: str) -> Judgement:
    return Judgement(Verdict.INCONCLUSIVE, f"no rows of {what}")


def judge_alignment(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar],
                    methods: Sequence[str] = JUDGED) -> Judgement:
    """``depth_tracks_difficulty`` (module docstring)."""
    parts = {}
    for task, m in _pairs(rows, methods):
        rho = _values(rows, task, m, "rho")
        parts[f"{task} {m}"] = against_bar(f"{task} {m} Spearman rho", bootstrap_ci(rho, seed=0), bars["rho"],
                                           n=len(rho), min_n=MIN_SEEDS)
    if not parts:
        return _none("the judged methods")
    return all_of(parts, what="(task, method) pairs", show=len(parts))


def _extrapolation_pair(rows: Sequence[Mapping[str, Any]], task: str, m: str, bars: Mapping[str, Bar]) -> Judgement:
    ids = _values(rows, task, m, "id_accuracy")
    learned = against_bar(f"{task} {m} ID accuracy", bootstrap_ci(ids, seed=0), bars["id_accuracy"], n=len(ids),
                          min_n=MIN_SEEDS)
    if learned.verdict is not Verdict.HOLDS:
        return Judgement(Verdict.INCONCLUSIVE, f"not judged, the task is not learned in distribution: {learned.reason}",
                         learned.measured)
    ood = _values(rows, task, m, "ood_accuracy")
    gap = [100.0 * (a - b) for a, b in zip(ids, ood)]
    dd = [b - a for a, b in zip(_values(rows, task, m, "id_depth"), _values(rows, task, m, "ood_depth"))]
    drop = against_bar(f"{task} {m} ID - OOD accuracy (pts)", bootstrap_ci(gap, seed=0), bars["accuracy_drop"],
                       n=len(gap), min_n=MIN_SEEDS)
    more = against_bar(f"{task} {m} OOD - ID mean depth", bootstrap_ci(dd, seed=0), bars["depth_increase"],
                       n=len(dd), min_n=MIN_SEEDS)
    return all_of({"accuracy drop": drop, "depth increase": more}, what="parts")


def judge_extrapolation(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar],
                        methods: Sequence[str] = JUDGED) -> Judgement:
    """``no_length_extrapolation`` (module docstring)."""
    parts = {f"{t} {m}": _extrapolation_pair(rows, t, m, bars) for t, m in _pairs(rows, methods)}
    if not parts:
        return _none("the judged methods")
    return all_of(parts, what="(task, method) pairs", show=len(parts))


def judge_timing(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar],
                 online: Sequence[str] = ONLINE) -> Judgement:
    """``decision_timing`` (module docstring): ANIRA-E against every ANIRA-O variant present, paired by seed."""
    parts = {}
    for task in sorted({r["task"] for r in rows if r["method"] == "anira_e" and "r2_static" in r}):
        early = {r["seed"]: r for r in rows if r["task"] == task and r["method"] == "anira_e" and "r2_static" in r}
        for m in online:
            other = {r["seed"]: r for r in rows if r["task"] == task and r["method"] == m and "r2_static" in r}
            seeds = sorted(set(early) & set(other))
            if not seeds:
                continue
            static = [early[s]["r2_static"] - other[s]["r2_static"] for s in seeds]
            state = [other[s]["r2_state"] - early[s]["r2_state"] for s in seeds]
            parts[f"{task} {m} static"] = against_bar(f"{task} R2_static(E) - R2_static({m})",
                                                      bootstrap_ci(static, seed=0), bars["static_gap"],
                                                      n=len(seeds), min_n=MIN_SEEDS)
            parts[f"{task} {m} state"] = against_bar(f"{task} R2_state({m}) - R2_state(E)",
                                                     bootstrap_ci(state, seed=0), bars["state_gap"],
                                                     n=len(seeds), min_n=MIN_SEEDS)
    if not parts:
        return _none("ANIRA-E paired with an ANIRA-O variant")
    return all_of(parts, what="comparisons", show=len(parts))


RULES = {"depth_tracks_difficulty": judge_alignment, "no_length_extrapolation": judge_extrapolation,
         "decision_timing": judge_timing}
UNJUDGED: dict[str, str] = {}
