"""Verdict rules of the [P19] claims: pure functions of what the checks measured, built from :mod:`icml26.verdicts`.

- ``exact_vs_tiktoken``: the mismatches against tiktoken's own definitions, summed over the encodings and over the
  corpus, pure BPE, the fuzz strings and every byte prefix, meet ``mismatches`` (none).
- ``flat_per_byte``: for every (input, pre-tokenization) of our encoder, per-byte time at the largest size over that
  at the smallest; the largest such growth meets ``per_byte_growth``. A toy size (``decide=False``) decides nothing.
- ``speed_vs_hf``: the outputs of the two sides are identical (else not a drop-in: fails), and every comparison's
  speed-up over HF (the same pre-split words, pure BPE, the whole pipeline) meets ``speedup``.
- ``eager_delay``: the streamed tokens equal the one-shot encoding, and the maximum and mean pending bytes meet
  ``max_pending`` and ``mean_pending``.

Timings and their ratios go to ``timings`` (``timed=True``), never to ``measured``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt

__all__ = ["MISMATCH_KEYS", "RULES", "SPEED_COMPARISONS", "growth_ratios", "judge_eager", "judge_exact", "judge_flat",
           "judge_speed"]

#: the mismatch counts of one encoding's row that ``exact_vs_tiktoken`` adds up
MISMATCH_KEYS = ("corpus_mismatch", "pure_mismatch", "fuzz_mismatch", "prefix_mismatch")
#: The paper's ~3x is a BPE-vs-BPE number (its HF integration keeps HF's normalizer and pre-tokenizer and swaps the
#: BPE model). ``pipeline`` (our native split + core vs HF's Oniguruma split + BPE) also times the splitters, so the
#: BPE-only comparisons are required as well: ``words`` (the same pre-tokenized words on both sides) and ``pure`` (no
#: pre-tokenization on either side).
SPEED_COMPARISONS = ("words", "pure", "pipeline")


def judge_exact(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``exact_vs_tiktoken``: the total mismatch count over all rows (one per encoding) against ``mismatches``."""
    total = sum(int(r[k]) for r in rows for k in MISMATCH_KEYS)
    j = against_bar("token sequences that differ from tiktoken", total, bars["mismatches"])
    per = "; ".join(f"{r['encoding']}: " + ", ".join(f"{k.split('_')[0]} {r[k]}" for k in MISMATCH_KEYS) for r in rows)
    checked = sum(int(r["prefixes"]) for r in rows)
    return Judgement(j.verdict, f"{j.reason} ({per}; {checked} byte prefixes checked)",
                     {**j.measured, "mismatches": total, "prefixes": checked})


def growth_ratios(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, bool, str], float]:
    """Per (input, pretokenize, impl): median ns/byte at the largest size over the median at the smallest."""
    out: dict[tuple[str, bool, str], float] = {}
    for key, (small, large) in _ends(rows).items():
        out[key] = float(np.median(large)) / float(np.median(small))
    return out


def _ends(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, bool, str], tuple[list[float], list[float]]]:
    """Per (input, pretokenize, impl): the repeated ns/byte timings at the smallest and at the largest size."""
    out = {}
    for key in sorted({(r["input"], r["pretokenize"], r["impl"]) for r in rows}):
        sel = [r for r in rows if (r["input"], r["pretokenize"], r["impl"]) == key]
        lo, hi = min(r["n"] for r in sel), max(r["n"] for r in sel)
        out[key] = ([r["ns_per_byte"] for r in sel if r["n"] == lo], [r["ns_per_byte"] for r in sel if r["n"] == hi])
    return out


def judge_flat(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar], decide: bool = True) -> Judgement:
    """``flat_per_byte``: for every input and pre-tokenization, inc_bpe's per-byte growth from the smallest to the
    largest size (a bootstrap CI over the repeated timings of each end) must meet ``per_byte_growth``."""
    ends = {k: v for k, v in _ends(rows).items() if k[2] == "inc_bpe"}
    if not ends:
        raise ValueError("rows hold no inc_bpe timings")
    parts = {}
    for (kind, pre, _), (small, large) in ends.items():
        est = ratio_ci(large, small, paired=False, seed=0)
        parts[f"{kind!r} {'pre-tokenized' if pre else 'pure BPE'}"] = against_bar(
            "per-byte growth", est, bars["per_byte_growth"], n=min(len(small), len(large)), min_n=MIN_SEEDS,
            timed=True)
    j = all_of(parts, what="inputs")
    ratios = growth_ratios(rows)
    base = {impl: max(v for k, v in ratios.items() if k[2] == impl) for impl in sorted({k[2] for k in ratios})
            if impl != "inc_bpe"}
    base_txt = ", ".join(f"{k} up to {fmt(v)}" for k, v in base.items())
    timings = {**j.timings, "inc_bpe_max_ratio": max(v for k, v in ratios.items() if k[2] == "inc_bpe"),
               **{f"{k}_max_ratio": v for k, v in base.items()},
               "ratios": {f"{k[0]}|{'pre' if k[1] else 'pure'}|{k[2]}": v for k, v in ratios.items()}}
    if not decide:
        return Judgement(Verdict.INCONCLUSIVE, f"toy sizes decide nothing about growth: {j.reason}; {base_txt}",
                         timings=timings)
    return Judgement(j.verdict, f"{j.reason}; the baselines grow {base_txt}" if base else j.reason, timings=timings)


def judge_speed(speedups: Mapping[str, float], identical: Mapping[str, bool], *, bars: Mapping[str, Bar],
                decide: bool = True) -> Judgement:
    """``speed_vs_hf``: identical outputs, then every comparison of :data:`SPEED_COMPARISONS` against ``speedup``."""
    measured = {"identical": dict(identical)}
    differ = sorted(k for k, same in identical.items() if not same)
    if differ:
        return Judgement(Verdict.FAILS, f"the outputs differ from HF's in {differ}: not a drop-in replacement", measured)
    parts = {k: against_bar(f"{k} speed-up over HF", speedups[k], bars["speedup"], timed=True)
             for k in SPEED_COMPARISONS}
    j = all_of(parts, what="comparisons", show=len(parts))
    if not decide:
        return Judgement(Verdict.INCONCLUSIVE, f"a toy corpus decides nothing about speed: {j.reason}", measured,
                         j.timings)
    return Judgement(j.verdict, j.reason, measured, j.timings)


def judge_eager(max_pending: int, mean_pending: float, exact: bool, *, bars: Mapping[str, Bar]) -> Judgement:
    """``eager_delay``: the stream equals the one-shot encoding, and its delay meets both bars."""
    measured: dict[str, Any] = {"max_pending": max_pending, "mean_pending": mean_pending, "exact": exact}
    if not exact:
        return Judgement(Verdict.FAILS, "the streamed tokens differ from the one-shot encoding", measured)
    j = all_of({"max": against_bar("maximum pending bytes", max_pending, bars["max_pending"]),
                "mean": against_bar("mean pending bytes", mean_pending, bars["mean_pending"])}, what="bars")
    return Judgement(j.verdict, f"{j.reason}; stream output exact", {**j.measured, **measured})


RULES = {"exact_vs_tiktoken": judge_exact, "flat_per_byte": judge_flat, "speed_vs_hf": judge_speed,
         "eager_delay": judge_eager}
