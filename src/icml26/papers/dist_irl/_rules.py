"""Verdict rules of the [P18] claims: pure functions of per-seed rows, built from :mod:`icml26.verdicts`.

One row per seed of the two-route runs (``_checks.py``). Every CI is a percentile bootstrap over seeds, and fewer
than :data:`~icml26.verdicts.MIN_SEEDS` seeds give ``inconclusive``.

- ``reward_shape``: rows ``{"seed", "mu_safe", "mu_risky", "sigma_safe", "sigma_risky"}`` of the fit with every
  reward group learned. The CI of log(σ_risky / σ_safe) must meet ``spread_order`` and that of μ_risky − μ_safe
  ``mean_order``: the ordering of the two reward laws, the most the task's choices can identify (and only with the
  start/goal rewards known; the size of the spread is not identifiable there, see ``_tasks.py``).
- ``risk_averse_imitation``: rows ``{"seed", "dirl", "bc", "maxent"}``, each policy's decision-state agreement with
  the expert averaged over every context: DIRL's CI against ``agreement``, and the paired CIs of DIRL − BC and
  DIRL − MaxEnt against ``beats_baselines`` (an always-safe policy misses the first, a clone of the noisy
  demonstrator the second).
- ``fsd_decreases``: rows ``{"seed", "checkpoints", "violation"}``: the true FSD violation at reward step ``at`` over
  its value at step 0, CI against ``violation_ratio``. The step is fixed, so the verdict does not depend on how long
  the run goes on after it; a run that stops before ``at`` gives ``inconclusive``.
- ``iteration_complexity``: not judged (:data:`UNJUDGED`); the check reports our solver's rate as a measurement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of

__all__ = ["BASELINES", "RULES", "UNJUDGED", "judge_fsd", "judge_imitation", "judge_reward_shape"]

#: a floor for spreads in log ratios (a planted or degenerate zero spread stays finite)
_TINY = 1e-12


def judge_reward_shape(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``reward_shape``: risky cells learned wider (``spread_order``) and higher-mean (``mean_order``) than safe ones."""
    n = len(rows)
    log_ratio = [float(np.log(max(r["sigma_risky"], _TINY)) - np.log(max(r["sigma_safe"], _TINY))) for r in rows]
    gap = [float(r["mu_risky"] - r["mu_safe"]) for r in rows]
    parts = {
        "spread": against_bar("log(σ_risky/σ_safe)", bootstrap_ci(log_ratio, seed=0), bars["spread_order"], n=n,
                              min_n=MIN_SEEDS),
        "mean": against_bar("μ_risky − μ_safe", bootstrap_ci(gap, seed=0), bars["mean_order"], n=n, min_n=MIN_SEEDS),
    }
    j = all_of(parts, what="orderings")
    measured = {**j.measured, "sigma_ratio": [float(np.exp(v)) for v in log_ratio], "mean_gap": gap}
    return Judgement(j.verdict, j.reason, measured)


#: the baselines DIRL must beat on agreement (``beats_baselines``): the notes' behaviour cloning and MaxEnt IRL
BASELINES: tuple[str, ...] = ("bc", "maxent")


def judge_imitation(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``risk_averse_imitation``: DIRL's decision-state agreement over every context meets ``agreement``, and beats
    each of :data:`BASELINES` paired by seed (``beats_baselines``)."""
    n = len(rows)
    agree = [float(r["dirl"]) for r in rows]
    parts = {"agreement": against_bar("agreement over all decision states, DIRL", bootstrap_ci(agree, seed=0),
                                      bars["agreement"], n=n, min_n=MIN_SEEDS)}
    diffs: dict[str, list[float]] = {}
    for b in BASELINES:
        diffs[b] = [float(r["dirl"]) - float(r[b]) for r in rows]
        parts[f"beats {b}"] = against_bar(f"DIRL − {b} agreement", bootstrap_ci(diffs[b], seed=0),
                                          bars["beats_baselines"], n=n, min_n=MIN_SEEDS)
    j = all_of(parts, what="parts", show=len(parts))
    return Judgement(j.verdict, j.reason, {**j.measured, "agree_all": agree, "diff": diffs})


def judge_fsd(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar], at: int) -> Judgement:
    """``fsd_decreases``: violation at reward step ``at`` / violation at step 0 meets ``violation_ratio``."""
    short = sorted(int(max(r["checkpoints"])) for r in rows if at not in r["checkpoints"])
    if short:
        return Judgement(Verdict.INCONCLUSIVE, f"the runs stop at step {short[0]}, before step {at} where the "
                         "violation is read: not measured at this budget", {"steps_run": short, "read_at": at})
    ratios, final = [], []
    for r in rows:
        v = np.asarray(r["violation"], dtype=float)
        start = max(float(v[0]), _TINY)
        ratios.append(float(v[list(r["checkpoints"]).index(at)] / start))
        final.append(float(v[-1] / start))
    j = against_bar(f"violation at step {at} / at step 0", bootstrap_ci(ratios, seed=0), bars["violation_ratio"],
                    n=len(rows), min_n=MIN_SEEDS)
    return Judgement(j.verdict, j.reason, {**j.measured, "ratio_at_step": ratios, "ratio_at_end": final,
                                           "read_at": at})


RULES = {"reward_shape": judge_reward_shape, "risk_averse_imitation": judge_imitation, "fsd_decreases": judge_fsd}
UNJUDGED = {
    "iteration_complexity": (
        "[P18]'s O(eps^-2) bound is a theorem about its own algorithm and objective, which the abstract does not "
        "give; our game and mirror-prox solver are a reconstruction, so their measured rate can neither confirm nor "
        "refute it (the slope is reported as a measurement)"),
}
