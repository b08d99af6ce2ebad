"""Verdict rules of the [P16] claims: pure functions of run rows, built from :mod:`icml26.verdicts`.

Rows (from ``_runs.run_seed``): an arm row ``{"arm", "seed", "curve": [acc_0, ..., acc_K], "gain"}`` per (arm,
seed) for the arms ``serc``, ``text_only``, ``oracle``; a ``verifier`` row ``{"arm": "verifier", "seed",
"auroc_tool", "auroc_text"}`` per seed. Every CI is a bootstrap over seeds; fewer than ``MIN_SEEDS`` seeds are
inconclusive.

- ``self_evolution_gain``: acc_K − acc_0 of ``serc`` meets ``gain``, and every iteration's gain acc_k − acc_{k−1}
  meets ``step_gain`` (monotone).
- ``tool_grounded_verification``: AUROC(tool-grounded) − AUROC(text-only) of the step scores meets ``auroc_gain``.
- ``zero_reward_recovery``: mean gain of ``serc`` over mean gain of ``oracle`` (paired over seeds) meets
  ``recovered_share``; an oracle gain whose CI is not above 0 leaves nothing to recover (inconclusive).
- ``text_only_gains_less``: gain(``serc``) − gain(``text_only``), and − gain(``text_trusting``) where that arm
  ran, paired over seeds, each meets ``gain_gap``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds, fmt

__all__ = ["RULES", "TEXT_ARMS", "judge_evolution", "judge_recovery", "judge_text_gap", "judge_verification"]


def _by_seed(rows: Sequence[dict[str, Any]], arm: str) -> dict[int, dict[str, Any]]:
    return {int(r["seed"]): r for r in rows if r["arm"] == arm}


def _paired(rows: Sequence[dict[str, Any]], a: str, b: str, key: str) -> tuple[list[float], list[float]]:
    ra, rb = _by_seed(rows, a), _by_seed(rows, b)
    seeds = sorted(set(ra) & set(rb))
    return [float(ra[s][key]) for s in seeds], [float(rb[s][key]) for s in seeds]


def judge_evolution(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar], arm: str = "serc") -> Judgement:
    """``self_evolution_gain``: the overall gain and each iteration's gain of ``arm`` (module docstring)."""
    runs = sorted(_by_seed(rows, arm).values(), key=lambda r: r["seed"])
    few = enough_seeds(len(runs))
    if few is not None:
        return few
    curves = [list(map(float, r["curve"])) for r in runs]
    k = min(len(c) for c in curves) - 1
    if k < 1:
        return Judgement(Verdict.INCONCLUSIVE, "no evolution iteration was evaluated")
    n = len(curves)
    parts = {"overall": against_bar(f"accuracy gain over {k} iterations", bootstrap_ci([c[k] - c[0] for c in curves]),
                                    bars["gain"], n=n, min_n=MIN_SEEDS)}
    for i in range(1, k + 1):
        parts[f"iteration {i}"] = against_bar(f"accuracy gain of iteration {i}",
                                              bootstrap_ci([c[i] - c[i - 1] for c in curves]), bars["step_gain"],
                                              n=n, min_n=MIN_SEEDS)
    j = all_of(parts, what="gains", show=k + 1)
    mean = [sum(c[i] for c in curves) / n for i in range(k + 1)]
    reason = f"{j.reason}. Mean accuracy by iteration: " + " → ".join(fmt(m) for m in mean)
    return Judgement(j.verdict, reason, {**j.measured, "mean_curve": mean})


def judge_verification(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``tool_grounded_verification``: the AUROC gain of tool-grounded over text-only step scores."""
    vs = [r for r in rows if r["arm"] == "verifier"
          and not (math.isnan(float(r["auroc_tool"])) or math.isnan(float(r["auroc_text"])))]
    few = enough_seeds(len(vs))
    if few is not None:
        return few
    d = [float(r["auroc_tool"]) - float(r["auroc_text"]) for r in vs]
    j = against_bar("AUROC(tool-grounded) − AUROC(text-only)", bootstrap_ci(d), bars["auroc_gain"], n=len(vs),
                    min_n=MIN_SEEDS)
    tool = sum(float(r["auroc_tool"]) for r in vs) / len(vs)
    text = sum(float(r["auroc_text"]) for r in vs) / len(vs)
    return Judgement(j.verdict, f"{j.reason}; mean AUROC {fmt(tool)} vs {fmt(text)}",
                     {**j.measured, "auroc_tool": tool, "auroc_text": text})


def judge_recovery(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``zero_reward_recovery``: gain(serc) / gain(oracle), paired over seeds."""
    serc, oracle = _paired(rows, "serc", "oracle", "gain")
    few = enough_seeds(len(serc), what="paired seeds")
    if few is not None:
        return few
    og = bootstrap_ci(oracle)
    if og.lo <= 0:
        return Judgement(Verdict.INCONCLUSIVE, f"the oracle-reward arm's gain {og} is not above 0: no gain to recover",
                         {"oracle_gain": og.value})
    est = ratio_ci(serc, oracle, paired=True)
    j = against_bar("gain(SERC) / gain(oracle reward)", est, bars["recovered_share"], n=len(serc), min_n=MIN_SEEDS)
    return Judgement(j.verdict, f"{j.reason}; oracle gain {og}", {**j.measured, "oracle_gain": og.value,
                                                                   "serc_gain": sum(serc) / len(serc)})


TEXT_ARMS = {"text_only": "text-only SERC", "text_trusting": "text-only SERC trusting tool outputs"}


def judge_text_gap(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``text_only_gains_less``: gain(serc) − gain(text arm), paired over seeds, for ``text_only`` and, where it
    was run, ``text_trusting`` (the text-only verifier that believes tool outputs); every gap must meet the bar."""
    parts: dict[str, Judgement] = {}
    gains: dict[str, float] = {}
    for arm, name in TEXT_ARMS.items():
        if arm != "text_only" and arm not in {r["arm"] for r in rows}:
            continue
        serc, text = _paired(rows, "serc", arm, "gain")
        few = enough_seeds(len(serc), what="paired seeds")
        if few is not None:
            return few
        est = bootstrap_ci([a - b for a, b in zip(serc, text)])
        parts[arm] = against_bar(f"gain(tool-grounded SERC) − gain({name})", est, bars["gain_gap"], n=len(serc),
                                 min_n=MIN_SEEDS)
        gains["serc_gain"], gains[f"{arm}_gain"] = sum(serc) / len(serc), sum(text) / len(text)
    j = all_of(parts, what="gaps", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, **gains})


RULES = {"self_evolution_gain": judge_evolution, "tool_grounded_verification": judge_verification,
         "zero_reward_recovery": judge_recovery, "text_only_gains_less": judge_text_gap}
