"""Verdict rules of the [P34] claims: pure functions of the episode tables, built from :mod:`icml26.verdicts`.

Rows are episodes (``seed``, ``episode``, ``split`` and one accuracy per condition: the fraction of the episode's
queries answered right) or, for the overhead, repetitions with seconds per generated token. Every CI is a bootstrap
over episodes (paired: both conditions of a difference come from the same episode), pooled over the seeds; the
seeds are evaluation draws on one trained model and fewer than :data:`MIN_SEEDS` of them give ``inconclusive``.

- ``heldout_gain``: held-out episodes, accuracy(rerouting on the selected layers) − accuracy(no adaptation) against
  ``gain``.
- ``confident_layers``: held-out episodes, accuracy(selected layers) − accuracy(all layers), non-inferior within
  ``margin``; judged only where the reference passes the ``sensitivity`` gate (accuracy(all layers) −
  accuracy(none) above the margin, whole CI: no adaptation itself would then be judged inferior), otherwise
  ``inconclusive``, since near chance both conditions sit within the margin of doing nothing.
- ``full_ttt_overadapts``: training-task episodes; full-parameter TTT lowers accuracy below no adaptation
  (``accuracy_change``) while fitting the prompt more closely than rerouting (``context_fit``: its prompt CE after
  the prefill fit minus rerouting's); both parts must hold.
- ``switch_readaptation``: after the mid-sequence task switch, accuracy(continuous re-adaptation) −
  accuracy(prefill-only adaptation) on the new task's queries against ``gain``.
- ``overhead``: paired ratio of seconds per generated token, rerouting / full-parameter TTT with the same schedule,
  against ``vs_full_ttt`` (timed: the numbers go to ``timings``); the ratio to plain greedy decoding is reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds, non_inferior

__all__ = ["RULES", "UNJUDGED", "judge_confident_layers", "judge_heldout_gain", "judge_overadapts",
           "judge_overhead", "judge_switch"]


def _seeds(rows: Sequence[Mapping[str, Any]]) -> int:
    return len({r["seed"] for r in rows})


def _diff(rows: Sequence[Mapping[str, Any]], a: str, b: str) -> tuple[Any, int]:
    d = [float(r[a]) - float(r[b]) for r in rows]
    return bootstrap_ci(d, seed=0), len(d)


def _per_seed(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for s in sorted({r["seed"] for r in rows}):
        sel = [r for r in rows if r["seed"] == s]
        out[str(s)] = {k: float(np.mean([r[k] for r in sel])) for k in keys}
    return out


def _split(rows: Sequence[Mapping[str, Any]], split: str) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("split", split) == split]


def _with_means(j: Judgement, rows: Sequence[Mapping[str, Any]], keys: Sequence[str], **extra: Any) -> Judgement:
    means = {k: float(np.mean([r[k] for r in rows])) for k in keys}
    return Judgement(j.verdict, j.reason, {**j.measured, "means": means, "per_seed": _per_seed(rows, keys),
                                            "episodes": len(rows), **extra}, j.timings)


def _paired(rows: Sequence[Mapping[str, Any]], a: str, b: str, name: str, bar: Bar) -> Judgement:
    few = enough_seeds(_seeds(rows))
    if few is not None:
        return few
    est, n = _diff(rows, a, b)
    return against_bar(name, est, bar, n=n)


def judge_heldout_gain(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``heldout_gain``: held-out accuracy, rerouting on the selected layers minus no adaptation, against ``gain``."""
    held = _split(rows, "held_out")
    j = _paired(held, "selected", "none", "held-out accuracy gain (rerouting − none)", bars["gain"])
    return _with_means(j, held, ("none", "selected", "all"))


def judge_confident_layers(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``confident_layers``: held-out accuracy of the selected layers is non-inferior to all layers', judged only
    where all layers beat no adaptation by more than the margin (the ``sensitivity`` gate; else inconclusive)."""
    held = _split(rows, "held_out")
    few = enough_seeds(_seeds(held))
    if few is not None:
        return _with_means(few, held, ("none", "selected", "all"))
    margin, gate = bars["margin"], bars["sensitivity"]
    if float(gate.value) != -float(margin.value):  # type: ignore[arg-type]
        raise ValueError(f"the sensitivity bar {gate.threshold} must be the margin {margin.threshold} with its sign "
                         "flipped (the reference's effect against the same margin)")
    ref, n = _diff(held, "all", "none")
    sens = against_bar("held-out accuracy, all layers − none", ref, gate, n=n)
    est, _ = _diff(held, "selected", "all")
    ni = non_inferior("held-out accuracy, selected − all layers", est, margin, n=n)
    measured = {**ni.measured, **sens.measured}
    if sens.verdict is Verdict.HOLDS:
        j = Judgement(ni.verdict, f"{ni.reason}; the reference beats no adaptation by more than the margin: "
                                  f"{sens.reason}", measured)
    else:
        j = Judgement(Verdict.INCONCLUSIVE, "not judged, δ on every layer is not shown to beat no adaptation by more "
                                            "than the margin, so the margin cannot tell the selected layers from no "
                                            f"adaptation: {sens.reason}; the comparison itself: {ni.reason}", measured)
    return _with_means(j, held, ("none", "selected", "all"))


def judge_overadapts(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``full_ttt_overadapts``: full TTT is below no adaptation in accuracy and below rerouting in prompt CE."""
    keys = ("none", "router", "full", "ce_none", "ce_router", "ce_full")
    few = enough_seeds(_seeds(rows))
    if few is not None:
        return _with_means(few, rows, keys)
    acc, n = _diff(rows, "full", "none")
    fit, _ = _diff(rows, "ce_full", "ce_router")
    j = all_of({"accuracy": against_bar("accuracy change (full TTT − none)", acc, bars["accuracy_change"], n=n),
                "context fit": against_bar("prompt CE after the fit (full TTT − rerouting)", fit,
                                           bars["context_fit"], n=n)}, what="parts", show=2)
    return _with_means(j, rows, keys)


def judge_switch(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``switch_readaptation``: accuracy on the second task, continuous minus prefill-only, against ``gain``."""
    j = _paired(rows, "continuous", "prefill", "accuracy after the switch (continuous − prefill-only)",
                bars["gain"])
    return _with_means(j, rows, ("none", "prefill", "continuous"))


def judge_overhead(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``overhead`` (timed): seconds per generated token, rerouting / full TTT, paired over repetitions."""
    n = len(rows)
    few = enough_seeds(n, min_n=MIN_SEEDS, what="repetitions")
    if few is not None:
        return few
    vs_full = ratio_ci([r["reroute_s"] for r in rows], [r["full_s"] for r in rows], paired=True, seed=0)
    vs_plain = ratio_ci([r["reroute_s"] for r in rows], [r["plain_s"] for r in rows], paired=True, seed=0)
    j = against_bar("s/token, rerouting / full TTT", vs_full, bars["vs_full_ttt"], n=n, timed=True)
    plain = {"estimate": vs_plain.value, "ci": [vs_plain.lo, vs_plain.hi], "n": n}
    reason = f"{j.reason}; rerouting / plain greedy decoding = {vs_plain}"
    return Judgement(j.verdict, reason, {}, {**j.timings, "s/token, rerouting / plain decoding": plain})


RULES = {"heldout_gain": judge_heldout_gain, "confident_layers": judge_confident_layers,
         "full_ttt_overadapts": judge_overadapts, "switch_readaptation": judge_switch, "overhead": judge_overhead}
UNJUDGED: dict[str, str] = {}
