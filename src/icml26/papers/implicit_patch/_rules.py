"""Verdict rules of the [P06] claims: pure functions of the measured rows, built from :mod:`icml26.verdicts`.

Every rule takes the claim's declared bars (``paper.toml``) by name and returns one :class:`~icml26.verdicts.Judgement`.
A *sensitivity* part (the context must matter, the generation must not collapse) that misses its bar makes the claim
``inconclusive``, never ``fails``: the test could not see the effect there.

- ``gemma_equivalence`` / ``general_equivalence``: rows ``{"diff64", "diff32", "effect"}`` (one per (model, pair));
  the largest float64 and float32 logit gaps meet ``float64_gap`` / ``float32_gap``; the context's smallest effect
  meets ``context_effect``.
- ``patched_generation``: rows ``{"agree", "agree_alone", "distinct"}`` (one per run); the smallest agreement meets
  ``token_agreement``; the unpatched query alone's largest agreement meets ``unpatched_agreement`` and the smallest
  number of distinct tokens ``distinct_tokens``.
- ``negative_controls``: rows ``{"variant", "diff", "rel"}``; the full patch meets ``full_patch_gap`` and every
  partial patch's smallest relative error meets ``control_error``.
- ``llama_equivalence``: rows ``{"rel_gap", "effect", "control"}`` and, on some, ``"agree"``; the largest relative
  gap meets ``float64_gap``, the smallest greedy agreement ``token_agreement``, the smallest control gap
  ``control_error``; the context's smallest effect ``context_effect`` (sensitivity).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.verdicts import Judgement, against_bar, all_of

__all__ = ["FULL", "RULES", "judge_controls", "judge_equivalence", "judge_generation", "judge_real"]

#: the name of the complete patch among the negative-control variants
FULL = "full patch"

Row = Mapping[str, Any]


def _sensitivity(j: Judgement) -> Judgement:
    """A sensitivity part: missing its bar means the test is blind there (``inconclusive``), not a failed claim."""
    if j.verdict is Verdict.FAILS:
        return Judgement(Verdict.INCONCLUSIVE, f"the test is insensitive here: {j.reason}", j.measured, j.timings)
    return j


def _nonempty(rows: Sequence[Row], what: str) -> int:
    if not rows:
        raise ValueError(f"{what} needs at least one row")
    return len(rows)


def judge_equivalence(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``gemma_equivalence`` / ``general_equivalence``: the patched query alone gives the with-context logits."""
    n = _nonempty(rows, "the equivalence rule")
    return all_of({
        "float64": against_bar("max |Δlogit| float64", max(float(r["diff64"]) for r in rows), bars["float64_gap"], n=n),
        "float32": against_bar("max |Δlogit| float32", max(float(r["diff32"]) for r in rows), bars["float32_gap"], n=n),
        "context effect": _sensitivity(against_bar("min context effect", min(float(r["effect"]) for r in rows),
                                                   bars["context_effect"], n=n)),
    })


def judge_generation(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``patched_generation``: per-step patches reproduce the with-context greedy tokens, where that is informative."""
    n = _nonempty(rows, "the generation rule")
    return all_of({
        "agreement": against_bar("min token agreement", min(float(r["agree"]) for r in rows),
                                 bars["token_agreement"], n=n),
        "context changes the output": _sensitivity(against_bar(
            "max agreement of the unpatched query alone", max(float(r["agree_alone"]) for r in rows),
            bars["unpatched_agreement"], n=n)),
        "not collapsed": _sensitivity(against_bar("min distinct tokens", min(int(r["distinct"]) for r in rows),
                                                  bars["distinct_tokens"], n=n)),
    })


def judge_controls(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``negative_controls``: the full patch is exact; each partial patch leaves part of the context's effect."""
    full = [float(r["diff"]) for r in rows if r["variant"] == FULL]
    partial = sorted({r["variant"] for r in rows if r["variant"] != FULL})
    if not full or not partial:
        raise ValueError(f"negative_controls needs {FULL!r} rows and partial-patch rows")
    parts = {FULL: against_bar("max |Δlogit| of the full patch", max(full), bars["full_patch_gap"], n=len(full))}
    for v in partial:
        rel = [float(r["rel"]) for r in rows if r["variant"] == v]
        parts[v] = against_bar("min error / context effect", min(rel), bars["control_error"], n=len(rel))
    return all_of(parts, what="patches", show=len(parts))


def judge_real(rows: Sequence[Row], *, bars: Mapping[str, Bar]) -> Judgement:
    """``llama_equivalence``: exact on a real Llama model, greedy decoding kept, another context's patches fail."""
    n = _nonempty(rows, "the real-model rule")
    gen = [float(r["agree"]) for r in rows if "agree" in r]
    if not gen:
        raise ValueError("llama_equivalence needs rows with a greedy agreement")
    return all_of({
        "float64": against_bar("max relative |Δlogit|", max(float(r["rel_gap"]) for r in rows), bars["float64_gap"],
                               n=n),
        "generation": against_bar("min greedy agreement", min(gen), bars["token_agreement"], n=len(gen)),
        "control": against_bar("min relative gap with another context's patches",
                               min(float(r["control"]) for r in rows), bars["control_error"], n=n),
        "context effect": _sensitivity(against_bar("min relative context effect", min(float(r["effect"]) for r in rows),
                                                   bars["context_effect"], n=n)),
    })


RULES = {
    "gemma_equivalence": judge_equivalence,
    "general_equivalence": judge_equivalence,
    "patched_generation": judge_generation,
    "negative_controls": judge_controls,
    "llama_equivalence": judge_real,
}
