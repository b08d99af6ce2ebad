"""Verdict rules of the [P01] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

- ``bits_per_param``: a plateau row per (model size, seed) (``size``, ``seed``, ``last_ratio`` = mem at the largest
  over the next-largest dataset size, ``on_plateau`` = every run of that size and seed stopped on its train-loss
  plateau) and the fit capacity = α·P (``alpha`` with its bootstrap CI, ``r2``, the log-log ``slope``). Saturation
  first: every size's median ``last_ratio`` must meet ``saturation`` and every run must have stopped on its plateau,
  else α is no capacity and the verdict is ``inconclusive``. Then α against ``alpha``, R² against ``fit_r2`` and the
  slope against ``loglog_slope``: all must hold.
- ``rise_then_fall``: a row per (seed, dataset size N) with the unintended memorisation ``mem_bits``. Per seed the rise
  (largest mem_U after the smallest N, minus mem_U at the smallest N, over the seed's peak) against ``rise`` (failing
  only below ``no_rise``) and mem_U at the largest N over the peak against ``fall``, both with bootstrap CIs.
- ``mia_to_chance``: a row per (seed, N) with the membership-inference ``mia_auc``. The per-seed drop of the AUC from
  the smallest to the largest N against ``auc_drop`` and the AUC at the largest N against ``auc_end``.

The two Markov rules need :data:`MIN_SEEDS` seeds (a CI over fewer has no spread worth the name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.verdicts import Judgement, against_bar, all_of, enough_seeds, fmt

__all__ = ["RULES", "judge_bits_per_param", "judge_mia", "judge_rise_then_fall", "seed_table"]


def _ci(e: Estimate) -> list[float]:
    return [e.lo, e.hi]


def judge_bits_per_param(plateaus: Sequence[Mapping[str, Any]], *, alpha: Estimate, r2: float, slope: float,
                         bars: Mapping[str, Bar]) -> Judgement:
    """``bits_per_param`` (module docstring): saturation gates the reading; α, R² and the slope must all hold."""
    sizes = list(dict.fromkeys(str(p["size"]) for p in plateaus))
    seeds = sorted({p["seed"] for p in plateaus})
    ratios = {s: float(np.median([p["last_ratio"] for p in plateaus if p["size"] == s])) for s in sizes}
    sat = {s: against_bar(f"mem(N_max)/mem(N_prev) at {s}", r, bars["saturation"]) for s, r in ratios.items()}
    off = [f"{p['size']} seed {p['seed']}" for p in plateaus if not p["on_plateau"]]
    parts = {"α": against_bar("α (bits/param)", alpha, bars["alpha"], n=len(seeds)),
             "R²": against_bar("R² of capacity = α·P", r2, bars["fit_r2"]),
             "slope": against_bar("log-log slope of capacity on P", slope, bars["loglog_slope"])}
    fit = all_of(parts, what="parts (α, R², slope)")
    held = [f"{k}: {j.reason}" for k, j in parts.items() if j.verdict is Verdict.HOLDS]
    fit_text = fit.reason + (f". Held: {'; '.join(held)}" if held and fit.verdict is not Verdict.HOLDS else "")
    measured = {**fit.measured, "alpha": alpha.value, "alpha_ci": _ci(alpha), "r2": r2, "loglog_slope": slope,
                "saturation_ratios": ratios, "runs_off_plateau": off}
    unsaturated = [j.reason for j in sat.values() if j.verdict is not Verdict.HOLDS]
    if unsaturated or off:
        why = "; ".join(unsaturated + ([f"runs that hit the step cap: {', '.join(off)}"] if off else []))
        return Judgement(Verdict.INCONCLUSIVE, f"not saturated ({why}): α cannot be read as a capacity; the fit: "
                         f"{fit_text}", measured)
    few = enough_seeds(len(seeds))
    if few is not None:
        return Judgement(Verdict.INCONCLUSIVE, f"{few.reason}; the fit: {fit_text}", measured)
    sat_text = ", ".join(f"{k} {fmt(v)}" for k, v in ratios.items())
    return Judgement(fit.verdict, f"saturated (mem(N_max)/mem(N_prev) {sat_text}, each "
                     f"{bars['saturation'].threshold}); {fit_text}", measured)


def seed_table(rows: Sequence[Mapping[str, Any]], key: str) -> tuple[list[int], list[Any], np.ndarray]:
    """The dataset sizes N (ascending), the seeds, and ``rows[key]`` as a (seeds, N) array; every seed must have
    every N."""
    ns = sorted({int(r["n_sequences"]) for r in rows})
    seeds = sorted({r["seed"] for r in rows})
    by = {(r["seed"], int(r["n_sequences"])): float(r[key]) for r in rows}
    missing = [(s, n) for s in seeds for n in ns if (s, n) not in by]
    if missing:
        raise ValueError(f"rows lack (seed, N) = {missing[:5]}: every seed needs every dataset size")
    return ns, seeds, np.array([[by[s, n] for n in ns] for s in seeds])


def judge_rise_then_fall(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``rise_then_fall`` (module docstring): a rise after the smallest N and a fall by the largest, per seed."""
    ns, seeds, mem = seed_table(rows, "mem_bits")
    if len(ns) < 3:
        return Judgement(Verdict.INCONCLUSIVE, f"{len(ns)} dataset sizes: a rise and a fall need at least 3")
    peak = np.maximum(mem.max(1), 1e-12)
    rise = bootstrap_ci((mem[:, 1:].max(1) - mem[:, 0]) / peak, seed=0)
    fall = bootstrap_ci(mem[:, -1] / peak, seed=0)
    j = all_of({"rise": against_bar("rise (max mem_U after N_min − mem_U(N_min)) / peak", rise, bars["rise"],
                                    n=len(seeds), fail_bar=bars["no_rise"]),
                "fall": against_bar("mem_U(N_max) / peak", fall, bars["fall"], n=len(seeds))},
               what="parts (rise, fall)")
    mean = mem.mean(0)
    k = int(mean.argmax())
    measured = {**j.measured, "n_sequences": ns, "mem_bits_mean": mean.tolist(), "peak_n": ns[k],
                "first_over_peak": float(mean[0] / mean[k]) if mean[k] > 0 else float("nan"),
                "rise": rise.value, "rise_ci": _ci(rise), "last_over_peak": fall.value, "last_over_peak_ci": _ci(fall)}
    reason = f"seed-mean peak at N = {ns[k]} of {ns}; {j.reason}"
    few = enough_seeds(len(seeds))
    if few is not None:
        return Judgement(Verdict.INCONCLUSIVE, f"{few.reason}; {reason}", measured)
    return Judgement(j.verdict, reason, measured)


def judge_mia(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``mia_to_chance`` (module docstring): the AUC drops from the smallest to the largest N and ends near chance."""
    ns, seeds, auc = seed_table(rows, "mia_auc")
    if len(ns) < 2:
        return Judgement(Verdict.INCONCLUSIVE, "one dataset size: no drop to measure")
    drop = bootstrap_ci(auc[:, 0] - auc[:, -1], seed=0)
    last = bootstrap_ci(auc[:, -1], seed=0)
    j = all_of({"drop": against_bar(f"AUC(N={ns[0]}) − AUC(N={ns[-1]})", drop, bars["auc_drop"], n=len(seeds)),
                "end": against_bar(f"AUC(N={ns[-1]})", last, bars["auc_end"], n=len(seeds))},
               what="parts (drop, end)")
    measured = {**j.measured, "n_sequences": ns, "auc_mean": auc.mean(0).tolist(), "auc_drop": drop.value,
                "auc_drop_ci": _ci(drop), "auc_last": last.value, "auc_last_ci": _ci(last)}
    reason = f"mean AUC by N: {', '.join(fmt(a) for a in auc.mean(0))}; {j.reason}"
    few = enough_seeds(len(seeds))
    if few is not None:
        return Judgement(Verdict.INCONCLUSIVE, f"{few.reason}; {reason}", measured)
    return Judgement(j.verdict, reason, measured)


RULES = {"bits_per_param": judge_bits_per_param, "rise_then_fall": judge_rise_then_fall, "mia_to_chance": judge_mia}
