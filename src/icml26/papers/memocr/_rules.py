"""Verdict rules of the [P29] claims: pure functions of answer rows, built from :mod:`icml26.verdicts`.

A row is one answer: ``{"seed", "episode", "question", "budget", "method", "correct"}``; a question is identified by
``(seed, episode, question)`` and every method answers every question at every budget (``random`` only at the
budgets it was run at), so differences are paired per question. CIs are percentile bootstraps over questions.

- ``low_budget_gain``: at each budget of 16 and 64 visual tokens, layout − uniform and layout − text accuracy meet
  ``gain`` with the whole CI (four parts, all must hold).
- ``parity_at_full``: at 1024 tokens, layout − uniform and layout − text lie inside the ``parity`` band.
- ``policy_beats_random``: at 16 tokens, trained − random promotion accuracy meets ``margin``.
- ``token_efficiency``: the budget at which accuracy first reaches ``target_accuracy`` (log-linear interpolation
  over the budget grid), for layout and for the better baseline (uniform or text); their ratio meets ``efficiency``.
  A method already at the target at the smallest budget is placed at that budget, one that never reaches it at the
  largest (both make the ratio a lower bound: conservative for ``holds``). A lower bound cannot show a miss, so when
  the layout curve is clamped at the small end or both baselines at the large end, a CI below the bar is
  ``inconclusive``, not ``fails``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import Judgement, against_bar, all_of, enough_seeds

__all__ = ["RULES", "budget_to_reach", "judge_efficiency", "judge_gain", "judge_parity", "judge_random"]


def _table(rows: Sequence[dict[str, Any]]) -> tuple[list[tuple[Any, ...]], dict[tuple[Any, ...], bool]]:
    keys = sorted({(r["seed"], r["episode"], r["question"]) for r in rows})
    ok = {(r["seed"], r["episode"], r["question"], r["budget"], r["method"]): bool(r["correct"]) for r in rows}
    return keys, ok


def _seeds(rows: Sequence[dict[str, Any]]) -> int:
    return len({r["seed"] for r in rows})


def _diff(rows: Sequence[dict[str, Any]], budget: int, a: str, b: str, bar: Bar) -> Judgement:
    keys, ok = _table(rows)
    d = [float(ok[(*k, budget, a)]) - float(ok[(*k, budget, b)]) for k in keys
         if (*k, budget, a) in ok and (*k, budget, b) in ok]
    if not d:
        return Judgement(Verdict.INCONCLUSIVE, f"no paired answers of {a} and {b} at B = {budget}")
    return against_bar(f"acc({a}) − acc({b}) at B = {budget}", bootstrap_ci(d, seed=0), bar, n=len(d))


def _pairs(rows: Sequence[dict[str, Any]], budgets: Sequence[int], against: Sequence[str], bar: Bar,
           what: str) -> Judgement:
    few = enough_seeds(_seeds(rows))
    if few is not None:
        return few
    parts = {f"B={b} vs {m}": _diff(rows, b, "layout", m, bar) for b in budgets for m in against}
    return all_of(parts, what=what, show=len(parts))


def judge_gain(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``low_budget_gain`` (module docstring)."""
    return _pairs(rows, (16, 64), ("uniform", "text"), bars["gain"], "(budget, baseline) pairs")


def judge_parity(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``parity_at_full`` (module docstring)."""
    return _pairs(rows, (1024,), ("uniform", "text"), bars["parity"], "baselines")


def judge_random(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``policy_beats_random`` (module docstring)."""
    few = enough_seeds(_seeds(rows))
    return few if few is not None else _diff(rows, 16, "layout", "random", bars["margin"])


def budget_to_reach(budgets: Sequence[float], accuracy: Sequence[float], target: float) -> float:
    """The smallest budget at which ``accuracy`` (over increasing ``budgets``) reaches ``target``, interpolating
    linearly in log budget between grid points; clamped to the grid's ends (see the module docstring)."""
    b = np.log(np.asarray(budgets, dtype=float))
    a = np.asarray(accuracy, dtype=float)
    if a[0] >= target:
        return float(math.exp(b[0]))
    for i in range(1, len(a)):
        if a[i] >= target:
            t = (target - a[i - 1]) / (a[i] - a[i - 1])
            return float(math.exp(b[i - 1] + t * (b[i] - b[i - 1])))
    return float(math.exp(b[-1]))


def _curves(ok: dict[tuple[Any, ...], bool], keys: Sequence[tuple[Any, ...]], budgets: Sequence[int],
            methods: Sequence[str]) -> dict[str, list[float]]:
    return {m: [float(np.mean([ok[(*k, b, m)] for k in keys])) for b in budgets] for m in methods}


def judge_efficiency(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``token_efficiency`` (module docstring): budget ratio (best baseline / layout) at the target accuracy."""
    few = enough_seeds(_seeds(rows))
    if few is not None:
        return few
    keys, ok = _table(rows)
    budgets = sorted({r["budget"] for r in rows if r["method"] == "layout"})
    target = float(bars["target_accuracy"].value)  # type: ignore[arg-type]
    methods = ("layout", "uniform", "text")

    def ratio(idx: np.ndarray) -> float:
        c = _curves(ok, [keys[int(i)] for i in idx], budgets, methods)
        need = {m: budget_to_reach(budgets, c[m], target) for m in methods}
        return min(need["uniform"], need["text"]) / need["layout"]

    est = bootstrap_ci(np.arange(len(keys)), stat=ratio, seed=0)
    curves = _curves(ok, keys, budgets, methods)
    need = {m: budget_to_reach(budgets, curves[m], target) for m in methods}
    j = against_bar(f"budget ratio (best baseline / layout) at accuracy {target:g}", est, bars["efficiency"],
                    n=len(keys))
    clamped = curves["layout"][0] >= target or max(max(curves["uniform"]), max(curves["text"])) < target
    verdict, reason = j.verdict, j.reason
    if verdict is Verdict.FAILS and clamped:
        verdict = Verdict.INCONCLUSIVE
        reason = f"{reason}; but a curve is clamped at the budget grid's end, so the ratio is only a lower bound"
    return Judgement(verdict, reason, {**j.measured, "budget_needed": need, "curves": curves, "budgets": budgets,
                                       "lower_bound": bool(clamped)})


RULES = {"low_budget_gain": judge_gain, "parity_at_full": judge_parity, "policy_beats_random": judge_random,
         "token_efficiency": judge_efficiency}
