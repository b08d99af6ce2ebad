"""Verdict rules of the [P31] claims: pure functions of accuracy tables, built from :mod:`icml26.verdicts`.

A row is one (seed, method, budget, question) cell: ``{"seed", "method", "budget", "question", "n", "correct"}``;
the uncompressed model is ``method = "full"`` at ``budget = 1.0``. Seeds are the unit of replication (each seed
trains its own toy LM and draws its own evaluation clips).

- ``superior_tradeoff``: the toy LM answers >= ``trained_accuracy`` uncompressed, and at every budget PRIM's accuracy
  is non-inferior to every baseline's (per-seed paired differences, bootstrap CI, ``accuracy_margin``).
- ``retains_full_accuracy``: the trained-accuracy precondition, and PRIM's accuracy at ``budget`` over the full
  model's (per seed) has its whole CI at or above ``retention``.
- ``cross_modal_degrades_least``: the full model answers the cross-modal moment question at >= ``trained_accuracy``
  (a question it has not learnt has no accuracy to lose), and PRIM's accuracy drop from the full model on it,
  averaged over the budgets, is non-inferior (``drop_margin``) to its drop on each single-modality question.
- ``prefill_speedup`` (timed): the paired CI of full / compressed LM prefill seconds meets ``speedup``, and that of
  the whole pipeline (embedding, PRIM's scoring and plan included) meets ``end_to_end_speedup``.

A missed trained-accuracy precondition makes the first three ``inconclusive``: it is about our toy LM, not the claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, non_inferior

__all__ = ["RULES", "accuracy", "judge_cross_modal", "judge_retention", "judge_speedup", "judge_tradeoff"]

CROSS = "where_at_beep"


def accuracy(rows: Sequence[Mapping[str, Any]], method: str, budget: float, seed: int,
             question: str | None = None) -> float:
    """Accuracy of one (method, budget, seed), over all questions or one."""
    sel = [r for r in rows if r["method"] == method and r["budget"] == budget and r["seed"] == seed
           and (question is None or r["question"] == question)]
    n = sum(int(r["n"]) for r in sel)
    return float("nan") if n == 0 else sum(int(r["correct"]) for r in sel) / n


def _seeds(rows: Sequence[Mapping[str, Any]]) -> list[int]:
    return sorted({int(r["seed"]) for r in rows})


def _ci(values: list[float]) -> Any:
    v = [x for x in values if np.isfinite(x)]
    return bootstrap_ci(v, seed=0) if v else float("nan")


def _trained(rows: Sequence[Mapping[str, Any]], bars: Mapping[str, Bar]) -> Judgement:
    seeds = _seeds(rows)
    return against_bar("full-model accuracy", _ci([accuracy(rows, "full", 1.0, s) for s in seeds]),
                       bars["trained_accuracy"], n=len(seeds), min_n=MIN_SEEDS)


def _gated(trained: Judgement, j: Judgement, measured: Mapping[str, Any]) -> Judgement:
    """``j`` with ``measured`` when the ``trained`` precondition holds; otherwise ``inconclusive``: the toy LM our
    claim runs on has not learnt what the claim compresses, which says nothing about the paper."""
    if trained.verdict is not Verdict.HOLDS:
        return Judgement(Verdict.INCONCLUSIVE, f"the trained-model precondition is not met ({trained.reason}), so the "
                         f"comparisons cannot decide; they measured {j.reason}", measured)
    return Judgement(j.verdict, j.reason, measured)


def judge_tradeoff(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``superior_tradeoff`` (module docstring)."""
    seeds = _seeds(rows)
    budgets = sorted({float(r["budget"]) for r in rows if r["method"] == "prim"}, reverse=True)
    baselines = sorted({str(r["method"]) for r in rows} - {"prim", "full"})
    parts = {"trained": _trained(rows, bars)}
    for b in budgets:
        for m in baselines:
            d = [accuracy(rows, "prim", b, s) - accuracy(rows, m, b, s) for s in seeds]
            parts[f"{b:.3g} vs {m}"] = non_inferior(f"PRIM − {m} accuracy at {b:.3g}", _ci(d), bars["accuracy_margin"],
                                                    n=len(seeds), min_n=MIN_SEEDS)
    j = all_of(parts, what="(budget, baseline) pairs and the trained-model check")
    acc = {f"{m}@{b:.3g}": float(np.mean([accuracy(rows, m, b, s) for s in seeds]))
           for b in budgets for m in ("prim", *baselines)}
    return _gated(parts["trained"], j, {**j.measured, "mean_accuracy": acc})


def judge_retention(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar], budget: float) -> Judgement:
    """``retains_full_accuracy`` (module docstring)."""
    seeds = _seeds(rows)
    ratio = [accuracy(rows, "prim", budget, s) / accuracy(rows, "full", 1.0, s) for s in seeds]
    parts = {"trained": _trained(rows, bars),
             "retention": against_bar(f"PRIM@{budget:.3g} / full accuracy", _ci(ratio), bars["retention"],
                                      n=len(seeds), min_n=MIN_SEEDS)}
    j = all_of(parts, what="parts")
    return _gated(parts["trained"], j, {**j.measured, "ratio_per_seed": ratio})


def judge_cross_modal(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``cross_modal_degrades_least`` (module docstring)."""
    seeds = _seeds(rows)
    budgets = sorted({float(r["budget"]) for r in rows if r["method"] == "prim"}, reverse=True)
    questions = sorted({str(r["question"]) for r in rows})
    if CROSS not in questions or len(questions) < 2:
        raise ValueError(f"rows must hold the cross-modal question {CROSS!r} and at least one other")

    def drop(q: str, s: int) -> float:
        return float(np.mean([accuracy(rows, "full", 1.0, s, q) - accuracy(rows, "prim", b, s, q) for b in budgets]))

    seed_acc = [accuracy(rows, "full", 1.0, s, CROSS) for s in seeds]
    parts = {"trained": against_bar(f"full-model accuracy on {CROSS}", _ci(seed_acc), bars["trained_accuracy"],
                                    n=len(seeds), min_n=MIN_SEEDS)}
    for q in questions:
        if q != CROSS:
            d = [drop(q, s) - drop(CROSS, s) for s in seeds]
            parts[f"vs {q}"] = non_inferior(f"drop({q}) − drop(cross-modal)", _ci(d), bars["drop_margin"],
                                            n=len(seeds), min_n=MIN_SEEDS)
    j = all_of(parts, what="single-modality comparisons and the trained check", show=len(parts))
    drops = {q: float(np.mean([drop(q, s) for s in seeds])) for q in questions}
    return _gated(parts["trained"], j, {**j.measured, "mean_drop": drops})


def judge_speedup(full_s: Sequence[float], compressed_s: Sequence[float], *, full_total_s: Sequence[float],
                  compressed_total_s: Sequence[float], bars: Mapping[str, Bar], flops_ratio: float) -> Judgement:
    """``prefill_speedup`` (module docstring): paired rounds of the LM prefill alone (``full_s``, ``compressed_s``)
    and of the whole pipeline, embedding and PRIM's scoring included (``*_total_s``); the FLOPs ratio rides along in
    ``measured``, every wall-clock number (and each part's call) in ``timings``."""
    series = (full_s, compressed_s, full_total_s, compressed_total_s)
    if not full_s or any(len(x) != len(full_s) for x in series):
        raise ValueError("full_s, compressed_s, full_total_s and compressed_total_s must be non-empty and paired")
    lm = ratio_ci(list(full_s), list(compressed_s), paired=True, seed=0)
    total = ratio_ci(list(full_total_s), list(compressed_total_s), paired=True, seed=0)
    j = all_of({"LM prefill": against_bar("full / compressed LM prefill seconds", lm, bars["speedup"],
                                          n=len(full_s), min_n=MIN_SEEDS, timed=True),
                "with selection": against_bar("full / compressed seconds, PRIM's scoring included", total,
                                              bars["end_to_end_speedup"], n=len(full_s), min_n=MIN_SEEDS,
                                              timed=True)}, what="speed-ups")
    return Judgement(j.verdict, f"{j.reason}; attention FLOPs ratio {flops_ratio:.3f}", {"flops_ratio": flops_ratio},
                     {**j.timings, "parts": dict(j.measured.get("parts", {}))})


RULES = {"superior_tradeoff": judge_tradeoff, "retains_full_accuracy": judge_retention,
         "cross_modal_degrades_least": judge_cross_modal, "prefill_speedup": judge_speedup}
