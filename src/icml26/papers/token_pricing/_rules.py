"""Verdict rules of the [P13] claims, built from :mod:`icml26.verdicts` only (pure functions of the rows)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import Judgement, against_bar, all_of, enough_seeds, share

__all__ = ["RULES", "UNJUDGED", "judge_bound", "judge_ic", "judge_margin", "judge_overcharge", "judge_profitable"]

Rows = Sequence[Mapping[str, Any]]


def _seeds(rows: Rows) -> Judgement | None:
    return enough_seeds(len({r["seed"] for r in rows}))


def judge_overcharge(outputs: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """Outputs of the judged (T, p) cell, one row each (``seed``, ``plausible_any``: some checked depth is
    plausible, ``overcharge``: extra tokens billed / truthful tokens): the share with a plausible longer report and
    the mean overcharge (bootstrap CI over outputs) against their bars."""
    if not outputs:
        return Judgement(Verdict.INCONCLUSIVE, "no outputs in the judged cell")
    low = _seeds(outputs)
    if low is not None:
        return low
    k = sum(bool(r["plausible_any"]) for r in outputs)
    est = bootstrap_ci([float(r["overcharge"]) for r in outputs], seed=0)
    return all_of({
        "plausible_share": share("plausible_share", k, len(outputs), bars["plausible_share"], noun="outputs"),
        "mean_overcharge": against_bar("mean_overcharge", est, bars["mean_overcharge"], n=len(outputs)),
    })


def judge_profitable(costs: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """One row per timed output (``seed``, ``revenue_tokens``: extra tokens billed, ``cost_tokens``: seconds of the
    heuristic's forward passes over seconds per generated token): the ratio of mean revenue to mean cost, paired
    bootstrap CI, against its bar (wall-clock: ``timed``)."""
    if not costs:
        return Judgement(Verdict.INCONCLUSIVE, "no timed outputs")
    low = _seeds(costs)
    if low is not None:
        return low
    rev = [float(r["revenue_tokens"]) for r in costs]
    cost = [float(r["cost_tokens"]) for r in costs]
    est = ratio_ci(rev, cost, seed=0)
    return against_bar("revenue_over_cost", est, bars["revenue_over_cost"], n=len(costs), timed=True)


def judge_ic(tokenizers: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """One row per tokenizer (``tokenizer``, ``char_price_max_dev``: the largest |per-character price of a random
    re-tokenization − that of the canonical one|, ``token_price_ratio``: mean per-token price of the
    re-tokenizations / canonical): per-character invariant and per-token not, for every tokenizer."""
    if not tokenizers:
        return Judgement(Verdict.INCONCLUSIVE, "no tokenizer measured")
    parts = {}
    for r in tokenizers:
        name = str(r["tokenizer"])
        parts[f"{name}: per-char"] = against_bar("char_price_max_dev", float(r["char_price_max_dev"]),
                                                 bars["char_price_max_dev"], n=int(r["n"]))
        parts[f"{name}: per-token"] = against_bar("token_price_ratio", float(r["token_price_ratio"]),
                                                  bars["token_price_ratio"], n=int(r["n"]))
    return all_of(parts, what="tokenizer checks")


def judge_margin(held_out: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """One row per held-out output (``seed``, ``char_revenue``: r_c x characters with r_c fitted on the calibration
    outputs of its language, ``token_revenue``: r_t x tokens): mean per-character revenue / mean per-token revenue,
    paired bootstrap CI, against the band."""
    if not held_out:
        return Judgement(Verdict.INCONCLUSIVE, "no held-out outputs")
    low = _seeds(held_out)
    if low is not None:
        return low
    est = ratio_ci([float(r["char_revenue"]) for r in held_out], [float(r["token_revenue"]) for r in held_out],
                   seed=0)
    return against_bar("revenue_ratio", est, bars["revenue_ratio"], n=len(held_out))


def judge_bound(strings: Rows, *, bars: Mapping[str, Bar]) -> Judgement:
    """One row per short string (``brute_len``: longest plausible tokenization found by exhaustive search,
    ``heuristic_len``: longest plausible report of the heuristic, ``complete``: the search finished): the share of
    decided strings where brute force reaches at least the heuristic's length. A finished search decides; an
    unfinished one only when its lower bound already reaches the heuristic."""
    decided = [r for r in strings if r["complete"] or r["brute_len"] >= r["heuristic_len"]]
    if not decided:
        return Judgement(Verdict.INCONCLUSIVE, f"none of {len(strings)} searches decided (all stopped at the width cap)")
    k = sum(int(r["brute_len"]) >= int(r["heuristic_len"]) for r in decided)
    return share("bound_share", k, len(decided), bars["bound_share"], noun="strings")


RULES = {
    "plausible_overcharge": judge_overcharge,
    "heuristic_profitable": judge_profitable,
    "char_pricing_ic": judge_ic,
    "margin_preserving": judge_margin,
    "brute_force_bound": judge_bound,
}
UNJUDGED: dict[str, str] = {}
