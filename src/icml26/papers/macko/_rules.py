"""Verdict rules of the [P05] claims: pure functions of what the checks measured, built from :mod:`icml26.verdicts`.

- ``memory_reduction``: MACKO / dense fp16 bytes at 50 % sparsity meets ``ratio_at_50`` and the break-even density
  (where MACKO's bytes reach dense fp16's) meets ``break_even_density``; both are exact byte counts (no CI).
- ``spmv_speedup_50``: the median over paired rounds of (dense time / MACKO time), with a bootstrap CI of that
  median, meets ``speedup`` with its whole CI. A cache-resident toy size (``decide=False``) decides nothing.
- ``e2e_memory``: dense fp16 / MACKO bytes of the decoder's linear-layer weights meets ``memory_reduction``.
- ``e2e_speed``: the MACKO model's greedy tokens agree with the pruned dense model's (``token_agreement``: a fast
  model that decodes other tokens is not the pruned model), its weights are large enough to stream from memory
  (``weight_bytes``; else the time says nothing about a bandwidth-bound decoder), and the median per-round decode
  speedup meets ``decode_speedup`` with its whole CI.

- ``e2e_real_lm``: on a pretrained decoder, dense fp16 / MACKO bytes of the block linears meets
  ``memory_reduction``, the smallest greedy-token agreement with the pruned dense fp16 model meets
  ``token_agreement``, and the pruned / dense perplexity on held-out text meets ``perplexity_ratio``.
- ``e2e_real_lm_speed``: the ``e2e_speed`` rule on the pretrained decoder's paired decode rounds.

Speed numbers are wall-clock-derived and go to ``timings`` (``timed=True``), never to ``measured``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, fmt

__all__ = ["RULES", "judge_e2e_memory", "judge_e2e_speed", "judge_memory", "judge_real_lm", "judge_spmv_speed",
           "median_ratio"]

Times = Sequence[float] | np.ndarray  # per-round seconds, aligned across the kernels of one run


def median_ratio(num: Times, den: Times) -> Estimate:
    """Median over paired rounds of ``num[i] / den[i]`` with a 95 % bootstrap CI of that median (seed 0)."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError("num and den must be 1-D per-round times of equal, non-zero length")
    return bootstrap_ci(a / b, stat=np.median, seed=0)


def judge_memory(ratio_at_50: float, break_even: float, *, bars: Mapping[str, Bar]) -> Judgement:
    """``memory_reduction``: the bytes ratio at 50 % sparsity and the break-even density, each against its bar."""
    parts = {
        "bytes at 50%": against_bar("MACKO / dense fp16 bytes at 50% sparsity", ratio_at_50, bars["ratio_at_50"]),
        "break-even": against_bar("break-even density", break_even, bars["break_even_density"]),
    }
    j = all_of(parts, what="bars")
    return Judgement(j.verdict, j.reason, {**j.measured, "ratio_at_50": ratio_at_50, "reduction_at_50": 1 / ratio_at_50,
                                           "break_even_density": break_even})


def judge_spmv_speed(dense_s: Times, macko_s: Times, *, bars: Mapping[str, Bar], baseline: str,
                     decide: bool = True) -> Judgement:
    """``spmv_speedup_50``: the median per-round speedup of MACKO over ``baseline`` (paired rounds) against
    ``speedup``; ``decide=False`` (a cache-resident toy size) reports it without deciding."""
    est = median_ratio(dense_s, macko_s)
    j = against_bar(f"median per-round speedup over {baseline}", est, bars["speedup"], n=len(macko_s),
                    min_n=MIN_SEEDS, timed=True)
    if not decide:
        return Judgement(Verdict.INCONCLUSIVE, f"a cache-resident toy size decides nothing about a bandwidth-bound "
                                               f"kernel: {j.reason}", timings=j.timings)
    return j


def judge_e2e_memory(dense16_bytes: int, macko_bytes: int, *, bars: Mapping[str, Bar]) -> Judgement:
    """``e2e_memory``: dense fp16 / MACKO bytes of the linear-layer weights against ``memory_reduction``."""
    ratio = dense16_bytes / macko_bytes
    j = against_bar("dense fp16 / MACKO bytes of the linear-layer weights", ratio, bars["memory_reduction"])
    reason = f"linear-layer weights {fmt(dense16_bytes / 1e6)} -> {fmt(macko_bytes / 1e6)} MB: {j.reason}"
    return Judgement(j.verdict, reason, {**j.measured, "memory_reduction": ratio, "dense16_bytes": dense16_bytes,
                                         "macko_bytes": macko_bytes})


def judge_e2e_speed(dense_s: Times, macko_s: Times, *, agreement: float, weight_bytes: int,
                    bars: Mapping[str, Bar], baseline: str, decide: bool = True) -> Judgement:
    """``e2e_speed`` (module docstring): tokens agree, weights stream, then the decode speedup against its bar."""
    tokens = against_bar("greedy-token agreement with the pruned dense model", agreement, bars["token_agreement"])
    measured = {**tokens.measured, "token_agreement": agreement, "weight_bytes": weight_bytes}
    if tokens.verdict is Verdict.FAILS:  # whatever its speed, a model that decodes other tokens fails
        return Judgement(Verdict.FAILS, f"the MACKO model is not the pruned model: {tokens.reason}", measured)
    streams = bars["weight_bytes"].satisfied(weight_bytes)
    measured["weights_stream_from_memory"] = streams
    speed = against_bar(f"median per-round decode speedup over {baseline}", median_ratio(dense_s, macko_s),
                        bars["decode_speedup"], n=len(macko_s), min_n=MIN_SEEDS, timed=True)
    if not decide:
        return Judgement(Verdict.INCONCLUSIVE, f"speed not decided at a toy size ({speed.reason}); {tokens.reason}",
                         measured, speed.timings)
    if not streams:
        wb = bars["weight_bytes"]
        return Judgement(Verdict.INCONCLUSIVE, (
            f"weights of {fmt(weight_bytes / 2**20)} MiB miss the {wb.text or wb.name} bar {wb.threshold} "
            f"({wb.provenance}): cache-resident weights say nothing about a bandwidth-bound decoder; {speed.reason}"),
            measured, speed.timings)
    j = all_of({"tokens": tokens, "speed": speed}, what="parts")
    return Judgement(j.verdict, j.reason, measured, j.timings)  # the parts' verdicts rest on wall-clock: not measured


def judge_real_lm(out: Mapping[str, object], *, bars: Mapping[str, Bar]) -> Judgement:
    """``e2e_real_lm``: the MACKO bytes, the MACKO model's tokens and the pruned model's perplexity, each on its bar."""
    dense, macko = float(str(out["dense16_bytes"])), float(str(out["macko_bytes"]))
    agree = [float(a) for a in out["agreement"]]  # type: ignore[union-attr]
    if not agree or macko <= 0:
        raise ValueError("e2e_real_lm needs the greedy agreements and a positive MACKO size")
    return all_of({
        "memory": against_bar("dense fp16 / MACKO bytes of the block linears", dense / macko, bars["memory_reduction"]),
        "tokens": against_bar("min greedy-token agreement with the pruned dense fp16 model", min(agree),
                              bars["token_agreement"], n=len(agree)),
        "perplexity": against_bar("pruned / dense perplexity on held-out text",
                                  float(str(out["ppl_pruned"])) / float(str(out["ppl_dense"])), bars["perplexity_ratio"]),
    })


RULES = {"memory_reduction": judge_memory, "spmv_speedup_50": judge_spmv_speed, "e2e_memory": judge_e2e_memory,
         "e2e_speed": judge_e2e_speed, "e2e_real_lm": judge_real_lm, "e2e_real_lm_speed": judge_e2e_speed}
