"""Verdict rules of the [P10] claims: pure functions of what was measured, built from :mod:`icml26.verdicts`.

Inputs are per-seed numbers (one trained agent per seed) or per-start numbers (the 100 evaluation starts); every
rule takes the claim's declared bars (``paper.toml``) by name and returns one :class:`~icml26.verdicts.Judgement`.

- ``optimum``: our reference optimum R* (Eq. A3) reaches the goal from every start (``goal_share``), our own richer
  searches beat it by at most ``search_gain`` on any start, and no trained agent beats it on any start
  (``agents_beating``). What it tests is our reconstruction of the analytic optimum, not the paper's solution.
- ``mlp_gap``: per algorithm (ARS, PPO), the paired bootstrap CI over seeds of mean regret(MLP) / mean regret(CH)
  with the same trainer meets ``gap_ratio`` (a gap is "large" against what a Chebyshev policy reaches); an algorithm
  with which neither class learns (``learns``: mean regret of the better class) cannot show a gap of the MLP class and
  leaves the claim undecided, as does an algorithm not run at this budget or a CH regret <= 0 (no ratio).
- ``regret_ratio``: the paired bootstrap CI of mean regret(MLP) / mean regret(CH) (ARS) meets ``regret_ratio`` and
  the parameter ratio meets ``param_ratio``; a regret <= 0 leaves the ratio undefined.
- ``consistent_gains`` / ``pendulum_gains``: per algorithm, the CI over seeds of mean return(CH) − mean return(MLP)
  meets ``gain``; only algorithms with which one of the classes learns count (``learns``), and at least
  ``min_algorithms`` must count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt, share

__all__ = ["RULES", "judge_gap", "judge_mc_gains", "judge_optimum", "judge_pendulum_gains", "judge_ratio"]


def judge_optimum(reaches: Sequence[bool], search_gains: Sequence[float], beaten: Mapping[str, int], *,
                  bars: Mapping[str, Bar]) -> Judgement:
    """``optimum``: ``reaches`` per start (R* > 0), ``search_gains`` per start (best return of our searches − R*),
    ``beaten`` per trained agent (starts on which it returns more than R*)."""
    gain = float(np.max(search_gains))
    worst = int(np.argmax(search_gains))
    pairs = int(sum(beaten.values()))
    parts = {
        "our R* reaches the goal": share("starts reached", int(sum(map(bool, reaches))), len(reaches),
                                         bars["goal_share"]),
        "our searches vs our R* (Eq. A3)": against_bar(f"max gain over R* (start #{worst})", gain,
                                                       bars["search_gain"]),
        "trained agents vs our R*": against_bar("start-agent pairs above R*", pairs, bars["agents_beating"]),
    }
    j = all_of(parts, what="checks of our reference optimum", show=3)
    measured = {**j.measured, "search_max_gain": gain, "search_starts_beaten": int(np.sum(np.asarray(search_gains) > 1e-9)),
                "agent_pairs_beating": pairs}
    return Judgement(j.verdict, j.reason, measured)


def _learns_mc(bars: Mapping[str, Bar], regret_ch: float, regret_mlp: float) -> bool:
    return bars["learns"].satisfied(min(regret_ch, regret_mlp))


def _not_counted(algo: str, what: str, bar: Bar) -> Judgement:
    return Judgement(Verdict.INCONCLUSIVE, f"neither class learns with {algo} at this budget ({what}; an algorithm "
                                           f"counts only if one class meets {bar.threshold})")


def _skipped(skipped: Sequence[str]) -> dict[str, Judgement]:
    return {a: Judgement(Verdict.INCONCLUSIVE, f"{a} is not run at this budget") for a in skipped}


def judge_gap(regret_mlp: Mapping[str, Sequence[float]], regret_ch: Mapping[str, Sequence[float]], *,
              bars: Mapping[str, Bar], skipped: Sequence[str] = ()) -> Judgement:
    """``mlp_gap``: per algorithm the regrets per seed of the MLP and of the Chebyshev policy, paired by seed: the
    ratio of mean regrets MLP / CH against ``gap_ratio`` (and the learn gate)."""
    parts: dict[str, Judgement] = {}
    measured: dict[str, Any] = {}
    for algo, reg in regret_mlp.items():
        ch = list(regret_ch[algo])
        m, c = float(np.mean(reg)), float(np.mean(ch))
        est = bootstrap_ci(list(reg), seed=0)
        measured[f"regret_mlp_{algo}"] = [est.value, est.lo, est.hi]
        measured[f"regret_ch_{algo}_mean"] = c
        if not _learns_mc(bars, c, m):
            parts[algo] = _not_counted(algo, f"mean regret CH {fmt(c)}, MLP {fmt(m)}", bars["learns"])
        elif min(ch) <= 0.0:
            parts[algo] = Judgement(Verdict.INCONCLUSIVE, f"CH-{algo} regret <= 0 on a seed: it matches or beats the "
                                                          "best known return, so the ratio is undefined")
        else:
            r = ratio_ci(list(reg), ch, paired=True, seed=0)
            measured[f"gap_ratio_{algo}"] = [r.value, r.lo, r.hi]
            parts[algo] = against_bar(f"regret MLP-{algo} / CH-{algo}", r, bars["gap_ratio"], n=len(reg),
                                      min_n=MIN_SEEDS)
    parts.update(_skipped(skipped))
    j = all_of(parts, what="algorithms", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, **measured})


def judge_ratio(regret_mlp: Sequence[float], regret_ch: Sequence[float], params_mlp: int, params_ch: int, *,
                bars: Mapping[str, Bar]) -> Judgement:
    """``regret_ratio``: regrets per seed of MLP-ARS and CH-ARS (paired by seed) and the two parameter counts."""
    p_ratio = params_mlp / params_ch
    measured: dict[str, Any] = {"param_ratio": p_ratio, "params_mlp": params_mlp, "params_ch": params_ch}
    bad = [name for name, r in (("MLP-ARS", regret_mlp), ("CH-ARS", regret_ch)) if min(r) <= 0.0]
    if bad:
        return Judgement(Verdict.INCONCLUSIVE, f"regret <= 0 for {', '.join(bad)}: an agent matches or beats the "
                                               "best known return there, so the ratio is undefined", measured)
    ratio = ratio_ci(list(regret_mlp), list(regret_ch), paired=True, seed=0)
    parts = {"regret": against_bar("regret ratio MLP/CH", ratio, bars["regret_ratio"], n=len(regret_mlp),
                                   min_n=MIN_SEEDS),
             "parameters": against_bar("parameter ratio MLP/CH", p_ratio, bars["param_ratio"])}
    j = all_of(parts, what="parts", show=2)
    return Judgement(j.verdict, j.reason, {**j.measured, **measured, "regret_ratio": [ratio.value, ratio.lo, ratio.hi]})


def _gains(diffs: Mapping[str, Sequence[float]], not_counted: Mapping[str, Judgement], bars: Mapping[str, Bar],
           skipped: Sequence[str]) -> Judgement:
    """CH − MLP per counted algorithm against ``gain``; at least ``min_algorithms`` counted, none skipped."""
    parts: dict[str, Judgement] = {}
    for algo, d in diffs.items():
        if algo not in not_counted:
            parts[algo] = against_bar(f"{algo}: CH − MLP return", bootstrap_ci(list(d), seed=0), bars["gain"],
                                      n=len(d), min_n=MIN_SEEDS)
    counted = len(parts)
    parts.update(not_counted)
    parts.update(_skipped(skipped))
    j = all_of(parts, what="algorithms", show=len(parts))
    need = bars["min_algorithms"]
    measured = {**j.measured, "counted_algorithms": counted}
    if j.verdict is Verdict.FAILS:
        return Judgement(j.verdict, j.reason, measured)
    if not need.satisfied(counted):
        return Judgement(Verdict.INCONCLUSIVE, f"{counted} algorithm(s) counted, need {need.threshold} "
                                               f"({need.provenance}): {j.reason}", measured)
    if skipped:
        return Judgement(Verdict.INCONCLUSIVE, j.reason, measured)
    return Judgement(j.verdict, j.reason, measured)


def judge_mc_gains(returns_ch: Mapping[str, Sequence[float]], returns_mlp: Mapping[str, Sequence[float]],
                   regret_ch: Mapping[str, float], regret_mlp: Mapping[str, float], *, bars: Mapping[str, Bar],
                   skipped: Sequence[str] = ()) -> Judgement:
    """``consistent_gains``: per algorithm the mean returns per seed of CH and MLP (paired by seed) and their mean
    regrets (the learn gate)."""
    diffs = {a: list(np.asarray(returns_ch[a]) - np.asarray(returns_mlp[a])) for a in returns_ch}
    off = {a: _not_counted(a, f"mean regret CH {fmt(regret_ch[a])}, MLP {fmt(regret_mlp[a])}", bars["learns"])
           for a in diffs if not _learns_mc(bars, regret_ch[a], regret_mlp[a])}
    return _gains(diffs, off, bars, skipped)


def judge_pendulum_gains(returns_ch: Mapping[str, Sequence[float]], returns_mlp: Mapping[str, Sequence[float]],
                         zero_torque: float, *, bars: Mapping[str, Bar], skipped: Sequence[str] = ()) -> Judgement:
    """``pendulum_gains``: per algorithm the mean returns per seed of CH and MLP over the start grid, and the
    zero-torque policy's mean return (the learn gate: the better class must beat it by ``learns``)."""
    diffs = {a: list(np.asarray(returns_ch[a]) - np.asarray(returns_mlp[a])) for a in returns_ch}
    off = {}
    for a in diffs:
        best = max(float(np.mean(returns_ch[a])), float(np.mean(returns_mlp[a])))
        if not bars["learns"].satisfied(best - zero_torque):
            off[a] = _not_counted(a, f"best mean return {fmt(best)} vs zero torque {fmt(zero_torque)}",
                                  bars["learns"])
    j = _gains(diffs, off, bars, skipped)
    return Judgement(j.verdict, j.reason, {**j.measured, "zero_torque_return": zero_torque})


RULES = {"optimum": judge_optimum, "mlp_gap": judge_gap, "regret_ratio": judge_ratio,
         "consistent_gains": judge_mc_gains, "pendulum_gains": judge_pendulum_gains}
