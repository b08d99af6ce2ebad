"""Verdict rules of the [P32] claims: pure functions of what was measured, built from :mod:`icml26.verdicts`.

Inputs are per-seed means (CountDown: one SFT base and its GRPO runs per seed; the unit of the CIs) or per-prompt
values (the exact toy: every prompt of every seed's task set). Each rule takes the claim's declared bars by name.

- ``vanilla_collapse``: vanilla GRPO − the SFT base, CIs over seeds, for the distinct correct answers
  (``distinct_change``) and pass@k (``passk_change``) on held-out prompts: both must fall.
- ``ds_improves_both``: DS − vanilla at the closed-form optimum of the KL-regularised objective (the theory's
  setting), CIs over prompts, for pass@1 (``pass1_gain``), variant pass@k (``passk_gain``) and the entropy among the
  correct answers (``entropy_gain``).
- ``entropy_heuristics``: each of :data:`PREDICTIONS` (the theory's directions), in every training mode: the
  predicted sign times the CI over prompts of the difference meets ``predicted_sign``.
- ``countdown_ds``: DS − vanilla GRPO, CIs over seeds, for pass@1 (``pass1_gain``) and pass@k (``passk_gain``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from icml26.claims import Bar
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of

__all__ = ["PREDICTIONS", "RULES", "judge_collapse", "judge_countdown", "judge_kl_optimum", "judge_signs"]

#: (method a, method b, metric, predicted sign of a − b): an entropy bonus raises the entropy among correct answers
#: and lowers pass@1, entropy minimisation the reverse, and DS has a higher pass@1 than the entropy bonus
PREDICTIONS: tuple[tuple[str, str, str, int], ...] = (
    ("entropy_bonus", "vanilla", "entropy_correct", 1), ("entropy_bonus", "vanilla", "pass@1", -1),
    ("entropy_min", "vanilla", "entropy_correct", -1), ("entropy_min", "vanilla", "pass@1", 1),
    ("ds", "entropy_bonus", "pass@1", 1))


def _diff(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """Bootstrap CI (seed 0) of the mean paired difference ``a − b``."""
    return bootstrap_ci(np.asarray(a, dtype=float) - np.asarray(b, dtype=float), seed=0)


def _record(est: Estimate) -> list[float]:
    return [est.value, est.lo, est.hi]


def _paired(a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]], checks: Mapping[str, tuple[str, Bar]],
            label: str, min_n: int) -> Judgement:
    """One part per metric: the CI of ``a[metric] − b[metric]`` against its bar; all must hold."""
    parts, diffs = {}, {}
    for metric, (name, bar) in checks.items():
        est = _diff(a[metric], b[metric])
        diffs[metric] = _record(est)
        parts[name] = against_bar(label, est, bar, n=len(a[metric]), min_n=min_n)
    j = all_of(parts, what="metrics", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "diff_ci": diffs})


def judge_collapse(base: Mapping[str, Sequence[float]], vanilla: Mapping[str, Sequence[float]], *,
                   bars: Mapping[str, Bar], k: int) -> Judgement:
    """``vanilla_collapse``: per-seed means of ``distinct_correct`` and ``pass@k`` for the SFT base and vanilla GRPO."""
    checks = {"distinct_correct": ("distinct correct answers", bars["distinct_change"]),
              f"pass@{k}": (f"pass@{k}", bars["passk_change"])}
    return _paired(vanilla, base, checks, "vanilla − base", MIN_SEEDS)


def judge_kl_optimum(ds: Mapping[str, Sequence[float]], vanilla: Mapping[str, Sequence[float]], *,
                     bars: Mapping[str, Bar], k: int) -> Judgement:
    """``ds_improves_both``: per-prompt ``pass@1``, ``variant_pass@k`` and ``entropy_correct`` at the KL-regularised
    optimum with the DS reward and with the plain verifier reward."""
    checks = {"pass@1": ("pass@1", bars["pass1_gain"]),
              f"variant_pass@{k}": (f"variant pass@{k}", bars["passk_gain"]),
              "entropy_correct": ("entropy among correct answers", bars["entropy_gain"])}
    return _paired(ds, vanilla, checks, "DS − vanilla at the optimum", 1)


def _signed(est: Estimate, sign: int) -> Estimate:
    lo, hi = sorted((sign * est.lo, sign * est.hi))
    return Estimate(sign * est.value, lo, hi, est.level)


def judge_signs(per: Mapping[str, Mapping[str, Mapping[str, Sequence[float]]]], *,
                bars: Mapping[str, Bar]) -> Judgement:
    """``entropy_heuristics``: ``per[mode][method][metric]`` per prompt; every prediction in every mode must hold."""
    parts, measured = {}, []
    for mode, by in per.items():
        for a, b, metric, sign in PREDICTIONS:
            est = _diff(by[a][metric], by[b][metric])
            name = f"{mode}: {a} − {b} {metric} ({'+' if sign > 0 else '−'})"
            parts[name] = against_bar(f"{'+' if sign > 0 else '−'}({a} − {b} {metric})", _signed(est, sign),
                                      bars["predicted_sign"], n=len(by[a][metric]))
            measured.append({"mode": mode, "a": a, "b": b, "metric": metric, "predicted_sign": sign,
                             "diff_ci": _record(est)})
    j = all_of(parts, what="predicted signs", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "predictions": measured})


def judge_countdown(ds: Mapping[str, Sequence[float]], vanilla: Mapping[str, Sequence[float]], *,
                    bars: Mapping[str, Bar], k: int) -> Judgement:
    """``countdown_ds``: per-seed means of ``pass@1`` and ``pass@k`` for DS and vanilla GRPO (same SFT base)."""
    checks = {"pass@1": ("pass@1", bars["pass1_gain"]), f"pass@{k}": (f"pass@{k}", bars["passk_gain"])}
    return _paired(ds, vanilla, checks, "DS − vanilla", MIN_SEEDS)


RULES = {"vanilla_collapse": judge_collapse, "ds_improves_both": judge_kl_optimum,
         "entropy_heuristics": judge_signs, "countdown_ds": judge_countdown}
