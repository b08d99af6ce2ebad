"""Verdict rules of the [P26] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

The claims are theorems about every instance of a class (every separable data set, every bandit), so a rule asks
every instance (seed) to meet every bar: one instance that misses a bar fails the claim. Each instance is a
deterministic run, so each number is compared as it is (no confidence interval); an undefined number (NaN, e.g. a
rate persistence from a run too short for two windows) leaves its part ``inconclusive``.

- ``sign_gd_logistic``, ``sign_gd_softmax_pg``: per seed, sign GD linear (``rate``, ``persistence``), GD sublinear
  (``gd_loglog_slope``) and sign GD far below GD at the same k (``speedup_decades``).
- ``adaptive_two_layer``: per seed and method (RMSProp, Adam at the pinned β2), linear (``rate``, ``persistence``).
- ``lower_bound``: the slow methods' log-log slope of iterations-to-ε on 1/ε meets ``slow_slope``; the fast ones'
  meets ``fast_slope`` and they reach every ε.
- ``affine_smoothness``: per trajectory whose f spans ``f_span_decades``, log ‖∇²f‖ on log f meets
  ``loglog_slope`` (a shorter one is ``inconclusive``: near f ~ 1 any H0 covers the curvature); where a
  closed-form H1 exists (logistic), no point violates ‖∇²f‖ ≤ H1 f (``bound_violations``), at any length.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.verdicts import Judgement, against_bar, all_of, fmt

__all__ = ["RULES", "judge_adaptive", "judge_affine", "judge_lower_bound", "judge_sign_vs_gd"]


def _linear(rate: float, persistence: float, bars: Mapping[str, Bar], who: str) -> dict[str, Judgement]:
    return {"rate": against_bar(f"{who} slope of log f per step", rate, bars["rate"]),
            "persistence": against_bar(f"{who} rate persistence", persistence, bars["persistence"])}


def _per_seed(parts: Mapping[str, Judgement], rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> Judgement:
    j = all_of(parts, what="seeds")
    measured = {**j.measured, **{k: [r[k] for r in rows] for k in keys}}
    return Judgement(j.verdict, j.reason, measured)


def judge_sign_vs_gd(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """Both sign-GD claims: every seed meets ``rate``, ``persistence``, ``gd_loglog_slope`` and ``speedup_decades``.

    A row: ``{"seed", "sign_rate", "sign_persistence", "gd_loglog_slope", "speedup_decades"}``.
    """
    parts = {}
    for r in rows:
        bits = _linear(r["sign_rate"], r["sign_persistence"], bars, "sign-GD")
        bits["gd_loglog_slope"] = against_bar("GD log-log slope of f on k", r["gd_loglog_slope"], bars["gd_loglog_slope"])
        bits["speedup_decades"] = against_bar("decades of f between GD and sign GD at the same k",
                                              r["speedup_decades"], bars["speedup_decades"])
        parts[f"seed {r['seed']}"] = all_of(bits, what="bars", show=4)
    return _per_seed(parts, rows, ("sign_rate", "sign_persistence", "gd_loglog_slope", "speedup_decades"))


def judge_adaptive(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], methods: Sequence[str]) -> Judgement:
    """``adaptive_two_layer``: for every seed, each of ``methods`` (row keys ``<method>_rate``,
    ``<method>_persistence``) meets ``rate`` and ``persistence``."""
    parts = {}
    for r in rows:
        bits = {f"{m} {k}": j for m in methods
                for k, j in _linear(r[f"{m}_rate"], r[f"{m}_persistence"], bars, m).items()}
        parts[f"seed {r['seed']}"] = all_of(bits, what="(method, bar) checks", show=4)
    return _per_seed(parts, rows, [f"{m}_{k}" for m in methods for k in ("rate", "persistence")])


def judge_lower_bound(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], slow: Sequence[str],
                      fast: Sequence[str]) -> Judgement:
    """``lower_bound``: a row per method ``{"method", "slope", "reached_all"}``; the ``slow`` methods' slope meets
    ``slow_slope``, the ``fast`` methods' meets ``fast_slope`` and they reached every ε."""
    by = {r["method"]: r for r in rows}
    parts: dict[str, Judgement] = {}
    for m in slow:
        parts[m] = against_bar(f"{m} log-log slope of iterations on 1/ε", by[m]["slope"], bars["slow_slope"])
    for m in fast:
        j = against_bar(f"{m} log-log slope of iterations on 1/ε", by[m]["slope"], bars["fast_slope"])
        if not by[m]["reached_all"]:
            j = Judgement(Verdict.FAILS, f"{m} did not reach every ε within the iteration budget; {j.reason}",
                          j.measured)
        parts[m] = j
    j = all_of(parts, what="methods", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "slopes": {m: by[m]["slope"] for m in (*slow, *fast)}})


def _affine_parts(r: dict[str, Any], bars: Mapping[str, Bar]) -> dict[str, Judgement]:
    lo, hi = r["log10_f_range"]
    span_bar = bars["f_span_decades"]
    parts = {}
    if span_bar.satisfied(hi - lo):
        parts["slope"] = against_bar("log-log slope of ‖∇²f‖ on f", r["loglog_slope"], bars["loglog_slope"])
    else:
        parts["slope"] = Judgement(Verdict.INCONCLUSIVE, f"f spans only {fmt(hi - lo)} decades (bar {span_bar.threshold}"
                                   f" ({span_bar.provenance})): too short to judge the slope")
    if r.get("bound_violations") is not None:
        parts["bound"] = against_bar("points with ‖∇²f‖ > H1 f", r["bound_violations"], bars["bound_violations"])
    return parts


def judge_affine(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``affine_smoothness``: a row per (seed, problem) trajectory ``{"seed", "problem", "loglog_slope",
    "log10_f_range": [lo, hi], "bound_violations": int | None}``; see the module docstring."""
    parts = {}
    for r in rows:
        bits = _affine_parts(r, bars)
        parts[f"seed {r['seed']} {r['problem']}"] = bits["slope"] if len(bits) == 1 else all_of(bits, what="bars")
    j = all_of(parts, what="trajectories")
    slopes = {f"seed {r['seed']} {r['problem']}": r["loglog_slope"] for r in rows}
    return Judgement(j.verdict, j.reason, {**j.measured, "loglog_slopes": slopes})


RULES = {"sign_gd_logistic": judge_sign_vs_gd, "sign_gd_softmax_pg": judge_sign_vs_gd,
         "adaptive_two_layer": judge_adaptive, "lower_bound": judge_lower_bound, "affine_smoothness": judge_affine}
