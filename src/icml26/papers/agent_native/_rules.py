"""Verdict rules of the [P17] claims: pure functions of per-seed, per-arm rows, built from :mod:`icml26.verdicts`.

Rows are ``{"seed", "arm", "resolve", "completion", ...}`` (one per seed and data arm; ``resolve`` is the resolve
rate over the held-out bugs and held-out-template bugs together, ``completion`` the code-completion accuracy on
held-out templates). Differences are paired by seed; their bootstrap CIs are over seeds (at least
:data:`~icml26.verdicts.MIN_SEEDS`).

Every rule first asks whether the runs can test the claim at all: the best compared arm's mean resolve rate must
meet ``learned_floor`` (an agent that resolves nothing ranks no data arm above another); otherwise inconclusive.

- ``half_budget_beats_static``: resolve(ctx_env at B/2) − resolve(static at B), non-inferior within ``margin``.
- ``native_ordering``: resolve(ctx_env) − resolve(ctx) against ``env_gain`` and resolve(ctx) − resolve(static)
  against ``ctx_gain``, both at budget B.
- ``general_code``: completion(ctx_env) − completion(none) against ``completion_gain`` (``completion``: each model's
  best prompt format); a base above ``headroom`` leaves no room for a gain, so then only a loss is decided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds, non_inferior, sign

__all__ = ["RULES", "UNJUDGED", "judge_general_code", "judge_half_budget", "judge_ordering", "paired"]


def paired(rows: Sequence[Mapping[str, Any]], key: str, a: str, b: str) -> np.ndarray:
    """Per-seed ``key`` of arm ``a`` minus arm ``b`` (seeds where both ran, in seed order)."""
    by = {(r["seed"], r["arm"]): float(r[key]) for r in rows if "arm" in r and key in r}
    seeds = sorted({s for s, _ in by})
    return np.asarray([by[(s, a)] - by[(s, b)] for s in seeds if (s, a) in by and (s, b) in by], dtype=float)


def _mean(rows: Sequence[Mapping[str, Any]], key: str, arm: str) -> float:
    v = [float(r[key]) for r in rows if r.get("arm") == arm and key in r]
    return float(np.mean(v)) if v else float("nan")


def _gate(rows: Sequence[Mapping[str, Any]], arms: Sequence[str], bars: Mapping[str, Bar]) -> Judgement | None:
    """``None`` when the runs can test the claim; else the inconclusive judgement that says why."""
    n = len({r["seed"] for r in rows if "arm" in r})
    few = enough_seeds(n)
    if few is not None:
        return few
    best = max(arms, key=lambda a: _mean(rows, "resolve", a) if np.isfinite(_mean(rows, "resolve", a)) else -1.0)
    floor = against_bar(f"mean resolve rate of the best arm ({best})", _mean(rows, "resolve", best),
                        bars["learned_floor"])
    if floor.verdict is not Verdict.HOLDS:
        return Judgement(Verdict.INCONCLUSIVE, "the agents hardly resolve any task, so no data arm can rank above "
                         f"another: {floor.reason}", {"learned_floor": dict(floor.measured)})
    return None


def _diff(name: str, d: np.ndarray, bar: Bar) -> Judgement:
    if d.size == 0:
        return Judgement(Verdict.INCONCLUSIVE, f"{name}: no paired seeds")
    return against_bar(name, bootstrap_ci(d, seed=0), bar, n=int(d.size), min_n=MIN_SEEDS)


def judge_half_budget(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``half_budget_beats_static`` (module docstring)."""
    gate = _gate(rows, ("ctx_env_half", "static"), bars)
    if gate is not None:
        return gate
    d = paired(rows, "resolve", "ctx_env_half", "static")
    if d.size == 0:
        return Judgement(Verdict.INCONCLUSIVE, "no seed ran both ctx_env_half and static")
    j = non_inferior("resolve(ctx+env, B/2) − resolve(static, B)", bootstrap_ci(d, seed=0), bars["margin"],
                     n=int(d.size), min_n=MIN_SEEDS)
    return Judgement(j.verdict, j.reason, {**j.measured, "per_seed": d.tolist()})


def judge_ordering(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``native_ordering`` (module docstring)."""
    gate = _gate(rows, ("ctx_env", "ctx", "static"), bars)
    if gate is not None:
        return gate
    env = paired(rows, "resolve", "ctx_env", "ctx")
    ctx = paired(rows, "resolve", "ctx", "static")
    j = all_of({"ctx+env > ctx": _diff("resolve(ctx+env) − resolve(ctx)", env, bars["env_gain"]),
                "ctx > static": _diff("resolve(ctx) − resolve(static)", ctx, bars["ctx_gain"])})
    return Judgement(j.verdict, j.reason, {**j.measured, "per_seed_env_gain": env.tolist(),
                                           "per_seed_ctx_gain": ctx.tolist()})


def judge_general_code(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``general_code`` (module docstring): gated on the completion accuracy itself, not on resolving."""
    n = len({r["seed"] for r in rows if "arm" in r})
    few = enough_seeds(n)
    if few is not None:
        return few
    best = max(_mean(rows, "completion", "ctx_env"), _mean(rows, "completion", "none"))
    floor = against_bar("best mean completion accuracy (ctx+env or none)", best, bars["learned_floor"])
    if floor.verdict is not Verdict.HOLDS:
        return Judgement(Verdict.INCONCLUSIVE, "neither model completes held-out templates, so no gain can be "
                         f"measured: {floor.reason}", {"learned_floor": dict(floor.measured)})
    d = paired(rows, "completion", "ctx_env", "none")
    j = _diff("completion(ctx+env MT) − completion(no MT)", d, bars["completion_gain"])
    room = against_bar("mean completion accuracy without mid-training", _mean(rows, "completion", "none"),
                       bars["headroom"])
    if room.verdict is not Verdict.HOLDS and d.size:
        # a base at the ceiling leaves no gain to show: only a loss (the whole CI below 0) can still be decided
        loss = sign("completion(ctx+env MT) − completion(no MT)", bootstrap_ci(d, seed=0), expected=1,
                    n=int(d.size), min_n=MIN_SEEDS)
        if loss.verdict is not Verdict.FAILS:
            return Judgement(Verdict.INCONCLUSIVE, "the base model leaves no room for a gain: "
                             f"{room.reason}; {j.reason}", {**j.measured, "per_seed": d.tolist()})
        j = loss
    return Judgement(j.verdict, j.reason, {**j.measured, "per_seed": d.tolist()})


RULES = {"half_budget_beats_static": judge_half_budget, "native_ordering": judge_ordering,
         "general_code": judge_general_code}
UNJUDGED: dict[str, str] = {}
