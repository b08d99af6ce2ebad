"""Verdict rules of the [P27] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

Rows come from the edit experiment (:mod:`._experiment`): ``{"seed", "method", "efficacy", "generalisation",
"specificity", "perplexity", ...}``, percentages for the first three, one forget set per seed and one row per
method (``base`` is the unedited model). Every estimate is a mean over seeds with a bootstrap CI; fewer than
``MIN_SEEDS`` seeds give ``inconclusive``.

- ``targeted_unlearning``: ZeroUnlearn's efficacy and generalisation against their bars, its specificity drop and
  relative perplexity increase (paired with ``base`` by seed) against theirs; every part must hold.
- ``gradient_ascent_cost``: gradient ascent's perplexity ratio (after / before) at the step where its efficacy first
  reached the target; a seed where it never did counts with its ratio at the last step, flagged.
- ``projector_matters``: generalisation without the projector minus with it, paired by seed, against a bar > 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of

__all__ = ["RULES", "UNJUDGED", "judge_ga", "judge_projector", "judge_unlearning"]


def _by(rows: Sequence[Mapping[str, Any]], method: str) -> dict[int, Mapping[str, Any]]:
    return {int(r["seed"]): r for r in rows if r["method"] == method}


def _mean(name: str, values: Sequence[float], bar: Bar) -> Judgement:
    est = bootstrap_ci([float(v) for v in values], seed=0)
    return against_bar(name, est, bar, n=len(values), min_n=MIN_SEEDS)


def _missing(what: str) -> Judgement:
    return Judgement(Verdict.INCONCLUSIVE, f"no seed has {what}")


def judge_unlearning(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``targeted_unlearning`` (module docstring)."""
    base, zu = _by(rows, "base"), _by(rows, "zerounlearn")
    seeds = sorted(set(base) & set(zu))
    if not seeds:
        return _missing("both the unedited model and ZeroUnlearn")
    b, z = [base[s] for s in seeds], [zu[s] for s in seeds]
    parts = {
        "efficacy": _mean("efficacy (%)", [r["efficacy"] for r in z], bars["efficacy"]),
        "generalisation": _mean("generalisation (%)", [r["generalisation"] for r in z], bars["generalisation"]),
        "specificity": _mean("specificity drop (pts)", [x["specificity"] - y["specificity"] for x, y in zip(b, z)],
                             bars["specificity_drop"]),
        "perplexity": _mean("perplexity increase (%)", [100.0 * (y["perplexity"] / x["perplexity"] - 1.0)
                                                        for x, y in zip(b, z)], bars["perplexity_increase"]),
    }
    j = all_of(parts, what="bars", show=4)
    return Judgement(j.verdict, f"{j.reason}. {len(seeds)} forget sets", {**j.measured, "seeds": len(seeds)})


def judge_ga(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``gradient_ascent_cost`` (module docstring)."""
    base, ga = _by(rows, "base"), _by(rows, "ga")
    seeds = sorted(set(base) & set(ga))
    if not seeds:
        return _missing("both the unedited model and gradient ascent")
    ratios = [float(ga[s]["perplexity"]) / float(base[s]["perplexity"]) for s in seeds]
    reached = sum(bool(ga[s].get("reached", True)) for s in seeds)
    j = _mean("GA perplexity after / before", ratios, bars["ga_perplexity_ratio"])
    note = "" if reached == len(seeds) else (f"; GA reached the target efficacy on {reached} of {len(seeds)} forget "
                                             "sets (the others at their last step)")
    return Judgement(j.verdict, j.reason + note, {**j.measured, "reached": reached, "seeds": len(seeds)})


def judge_projector(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``projector_matters`` (module docstring)."""
    with_p, without = _by(rows, "zerounlearn"), _by(rows, "zerounlearn_no_op")
    seeds = sorted(set(with_p) & set(without))
    if not seeds:
        return _missing("ZeroUnlearn both with and without the projector")
    gaps = [float(without[s]["generalisation"]) - float(with_p[s]["generalisation"]) for s in seeds]
    j = _mean("generalisation without P − with P (pts)", gaps, bars["generalisation_gap"])
    return Judgement(j.verdict, j.reason, {**j.measured, "seeds": len(seeds)})


RULES = {"targeted_unlearning": judge_unlearning, "gradient_ascent_cost": judge_ga,
         "projector_matters": judge_projector}
UNJUDGED: dict[str, str] = {}
