"""Verdict rules of the [P25] claims: pure functions of per-seed rows, built from :mod:`icml26.verdicts`.

- ``gap_vanishes``: rows ``{"seed", "sft_fold", "sft_unfold", "rl_fold", "rl_unfold"}`` (accuracies in points). The
  SFT gap (Unfold − Fold) must meet ``sft_gap`` first: without an initial gap the run cannot test the claim, and the
  verdict is inconclusive (never fails). Then the RL gap must meet ``final_gap`` and Fold after RL must be
  non-inferior to Unfold after SFT (``fold_quality``). Bootstrap CIs over seeds, at least :data:`MIN_SEEDS`.
- ``summary_completeness``: rows ``{"seed", "sft_completeness", "rl_completeness"}``; the rise's CI against
  ``completeness_rise``.
- ``fold_kv``: rows ``{"seed", "fold_peak", "unfold_peak", "fold_finished", "unfold_finished"}`` (mean peak cached
  tokens and the share of finished rollouts on the longest programs). The ratio of means over seeds (paired
  bootstrap) against ``kv_ratio``, and the least finished share of any seed and mode against ``well_formed``.
- ``throughput``: rows ``{"repeat", "fold_tps", "unfold_tps"}`` (tokens/s at one KV budget); the paired ratio CI
  against ``throughput_ratio``; wall-clock, so its numbers go to ``timings``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds, non_inferior

__all__ = ["RULES", "UNJUDGED", "judge_completeness", "judge_gap", "judge_kv", "judge_throughput"]


def _col(rows: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    return np.asarray([float(r[key]) for r in rows], dtype=float)


def judge_gap(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``gap_vanishes`` (module docstring)."""
    n = len(rows)
    if n == 0:
        return Judgement(Verdict.INCONCLUSIVE, "no runs")
    sft_gap = _col(rows, "sft_unfold") - _col(rows, "sft_fold")
    rl_gap = _col(rows, "rl_unfold") - _col(rows, "rl_fold")
    quality = _col(rows, "rl_fold") - _col(rows, "sft_unfold")
    pre = against_bar("Unfold − Fold after SFT (pts)", bootstrap_ci(sft_gap, seed=0), bars["sft_gap"], n=n,
                      min_n=MIN_SEEDS)
    parts = {"final gap": against_bar("Unfold − Fold after RL (pts)", bootstrap_ci(rl_gap, seed=0),
                                      bars["final_gap"], n=n, min_n=MIN_SEEDS),
             "fold quality": non_inferior("Fold after RL − Unfold after SFT (pts)", bootstrap_ci(quality, seed=0),
                                          bars["fold_quality"], n=n, min_n=MIN_SEEDS)}
    j = all_of(parts, what="parts", show=2)
    measured = {**j.measured, "precondition": dict(pre.measured), "sft_gap": sft_gap.tolist(),
                "rl_gap": rl_gap.tolist(), "fold_quality": quality.tolist()}
    if pre.verdict is not Verdict.HOLDS:
        return Judgement(Verdict.INCONCLUSIVE, f"the SFT checkpoints do not show the initial gap, so the run cannot "
                         f"test its closing: {pre.reason}. After RL: {j.reason}", measured)
    return Judgement(j.verdict, f"initial gap present ({pre.reason}). {j.reason}", measured)


def judge_completeness(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``summary_completeness`` (module docstring)."""
    few = enough_seeds(len(rows))
    rise = _col(rows, "rl_completeness") - _col(rows, "sft_completeness") if rows else np.zeros(0)
    if few is not None:
        return Judgement(few.verdict, few.reason, {"rise": rise.tolist()})
    j = against_bar("completeness after RL − after SFT", bootstrap_ci(rise, seed=0), bars["completeness_rise"],
                    n=len(rows), min_n=MIN_SEEDS)
    return Judgement(j.verdict, j.reason, {**j.measured, "rise": rise.tolist()})


def judge_kv(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``fold_kv`` (module docstring)."""
    n = len(rows)
    few = enough_seeds(n)
    if few is not None:
        return few
    ratio = ratio_ci(_col(rows, "fold_peak"), _col(rows, "unfold_peak"), paired=True, seed=0)
    least = float(min(_col(rows, "fold_finished").min(), _col(rows, "unfold_finished").min()))
    parts = {"KV ratio": against_bar("mean peak KV, Fold / Unfold", ratio, bars["kv_ratio"], n=n, min_n=MIN_SEEDS),
             "well formed": against_bar("least share of finished rollouts (a seed, a mode)", least,
                                        bars["well_formed"])}
    j = all_of(parts, what="parts", show=2)
    return Judgement(j.verdict, j.reason, {**j.measured, "per_seed_ratio": (_col(rows, "fold_peak")
                                                                          / _col(rows, "unfold_peak")).tolist()})


def judge_throughput(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``throughput`` (module docstring); timed: the ratio goes to ``timings``."""
    few = enough_seeds(len(rows), what="repeats")
    if few is not None:
        return few
    est = ratio_ci(_col(rows, "fold_tps"), _col(rows, "unfold_tps"), paired=True, seed=0)
    return against_bar("tokens/s, Fold / Unfold at one KV budget", est, bars["throughput_ratio"], n=len(rows),
                       min_n=MIN_SEEDS, timed=True)


RULES = {"gap_vanishes": judge_gap, "summary_completeness": judge_completeness, "fold_kv": judge_kv,
         "throughput": judge_throughput}
UNJUDGED: dict[str, str] = {}
