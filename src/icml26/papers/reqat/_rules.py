"""Verdict rules of the [P11] claims: pure functions of measured rows, built from :mod:`icml26.verdicts`.

Real-model rows (SmolLM2-135M, W4A4KV4 PTQ against the float32 model, CIs by bootstrap over documents):

- ``fp4_degrades``: one row per document ``{"doc", "n_items", "correct_ref", "correct_ptq"}``; the pooled accuracy
  drop (float32 − FP4) against ``accuracy_drop``.
- ``low_entropy_failures``: one row per (document, entropy bin) ``{"doc", "bin", "n", "log_rho", ...}`` (bin 0 the
  lowest-entropy quarter of positions, ``n_bins − 1`` the highest; ``log_rho`` the bin's mean); the gap in mean
  log ρ between the lowest and the highest bin against ``log_rho_gap``.
- ``qfit_kv_error``: one row per (document, layer) ``{"doc", "layer", "mse_plain", "mse_qfit"}`` on held-out
  documents; the geometric mean over layers of Σ mse_qfit / Σ mse_plain against ``score_mse_ratio``.

Tiny-model rows (one row per (seed, method) ``{"seed", "method", "accuracy"}``; CIs by bootstrap over seeds, at least
:data:`~icml26.verdicts.MIN_SEEDS` of them):

- ``ptq_degrades``: FT − FT+PTQ accuracy against ``ptq_gap``.
- ``reqat_recovers``: ReQAT − FT non-inferior within ``ft_margin`` and ReQAT − QAT against ``qat_gain``.
- ``surpasses_ft``: ReQAT − FT against ``ft_gain``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds, non_inferior

__all__ = ["MIN_DOCS", "RULES", "UNJUDGED", "judge_degrades", "judge_low_entropy", "judge_ptq_gap",
           "judge_qfit", "judge_recovers", "judge_surpasses", "method_accuracy"]

MIN_DOCS = MIN_SEEDS  # documents below which no bootstrap CI over documents is usable


def _by_doc(rows: Sequence[Mapping[str, Any]]) -> list[Any]:
    return sorted({r["doc"] for r in rows})


def judge_degrades(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``fp4_degrades``: pooled accuracy(float32) − accuracy(FP4) over the documents' scored lines."""
    docs = _by_doc(rows)
    n = np.array([r["n_items"] for r in rows], dtype=float)
    ref = np.array([r["correct_ref"] for r in rows], dtype=float)
    ptq = np.array([r["correct_ptq"] for r in rows], dtype=float)
    if n.sum() == 0:
        return Judgement(Verdict.INCONCLUSIVE, "no scored lines")

    def drop(idx: np.ndarray) -> float:
        i = idx.astype(int)
        return float((ref[i].sum() - ptq[i].sum()) / max(n[i].sum(), 1.0))

    est = bootstrap_ci(np.arange(len(rows)), stat=drop, seed=0)
    j = against_bar("accuracy drop float32 − FP4", est, bars["accuracy_drop"], n=len(docs), min_n=MIN_DOCS)
    measured = {**j.measured, "acc_ref": float(ref.sum() / n.sum()), "acc_ptq": float(ptq.sum() / n.sum()),
                "items": int(n.sum())}
    return Judgement(j.verdict, j.reason + f"; accuracy {measured['acc_ref']:.3f} → {measured['acc_ptq']:.3f} over "
                     f"{int(n.sum())} lines", measured)


def judge_low_entropy(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``low_entropy_failures``: mean log ρ in the lowest-entropy bin minus in the highest, pooled over the documents
    that have positions in both (the others are counted apart)."""
    bins = sorted({r["bin"] for r in rows})
    if len(bins) < 2:
        return Judgement(Verdict.INCONCLUSIVE, "fewer than two entropy bins")
    lo, hi = bins[0], bins[-1]
    cell = {(r["doc"], r["bin"]): (float(r["n"]), float(r["n"]) * float(r["log_rho"])) for r in rows if r["n"] > 0}
    docs = [d for d in _by_doc(rows) if (d, lo) in cell and (d, hi) in cell]
    if not docs:
        return Judgement(Verdict.INCONCLUSIVE, "no document has positions in both extreme entropy bins")
    n_lo, s_lo = (np.array([cell[d, b][k] for d in docs]) for b, k in ((lo, 0), (lo, 1)))
    n_hi, s_hi = (np.array([cell[d, b][k] for d in docs]) for b, k in ((hi, 0), (hi, 1)))

    def gap(idx: np.ndarray) -> float:
        i = idx.astype(int)
        return float(s_lo[i].sum() / n_lo[i].sum() - s_hi[i].sum() / n_hi[i].sum())

    est = bootstrap_ci(np.arange(len(docs)), stat=gap, seed=0)
    j = against_bar("mean log ρ, lowest − highest entropy bin", est, bars["log_rho_gap"], n=len(docs),
                    min_n=MIN_DOCS)
    per_bin = {}
    for b in bins:
        n = sum(float(r["n"]) for r in rows if r["bin"] == b)
        per_bin[str(b)] = {k: sum(float(r["n"]) * float(r[k]) for r in rows if r["bin"] == b) / max(n, 1.0)
                           for k in ("log_rho", "kl", "flip") if all(k in r for r in rows)}
    left_out = len(_by_doc(rows)) - len(docs)
    return Judgement(j.verdict, j.reason + (f"; {left_out} documents lack an extreme bin" if left_out else ""),
                     {**j.measured, "per_bin": per_bin})


def judge_qfit(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``qfit_kv_error``: geometric mean over layers of the held-out score-MSE ratio Q-FIT / plain."""
    docs = _by_doc(rows)
    layers = sorted({r["layer"] for r in rows})
    plain = np.zeros((len(docs), len(layers)))
    fit = np.zeros_like(plain)
    for r in rows:
        i, k = docs.index(r["doc"]), layers.index(r["layer"])
        plain[i, k], fit[i, k] = r["mse_plain"], r["mse_qfit"]

    def gmean_ratio(idx: np.ndarray) -> float:
        i = idx.astype(int)
        return float(np.exp(np.mean(np.log(np.maximum(fit[i][:, ok].sum(0), 1e-300) / plain[i][:, ok].sum(0)))))

    ok = (plain > 0).all(0)  # layers whose plain error is positive in every document
    if not ok.any():
        return Judgement(Verdict.INCONCLUSIVE, "no layer has a positive KV4 score error")
    est = bootstrap_ci(np.arange(len(docs)), stat=gmean_ratio, seed=0)
    j = against_bar("geometric-mean score-MSE ratio Q-FIT / plain", est, bars["score_mse_ratio"], n=len(docs),
                    min_n=MIN_DOCS)
    per_layer = (fit.sum(0) / np.maximum(plain.sum(0), 1e-300)).tolist()
    return Judgement(j.verdict, j.reason, {**j.measured, "per_layer_ratio": per_layer})


def method_accuracy(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[int, float]]:
    """Method -> seed -> accuracy."""
    out: dict[str, dict[int, float]] = {}
    for r in rows:
        out.setdefault(str(r["method"]), {})[int(r["seed"])] = float(r["accuracy"])
    return out


def _diff(rows: Sequence[Mapping[str, Any]], a: str, b: str) -> tuple[Estimate, int]:
    acc = method_accuracy(rows)
    seeds = sorted(set(acc.get(a, {})) & set(acc.get(b, {})))
    if not seeds:
        return Estimate(float("nan"), float("nan"), float("nan")), 0
    return bootstrap_ci([acc[a][s] - acc[b][s] for s in seeds], seed=0), len(seeds)


def _with_means(j: Judgement, rows: Sequence[Mapping[str, Any]]) -> Judgement:
    means = {m: float(np.mean(list(v.values()))) for m, v in method_accuracy(rows).items()}
    return Judgement(j.verdict, j.reason, {**j.measured, "mean_accuracy": means})


def judge_ptq_gap(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``ptq_degrades``: accuracy(FT) − accuracy(FT+PTQ), paired by seed."""
    est, n = _diff(rows, "ft", "ft_ptq")
    few = enough_seeds(n)
    if few is not None:
        return _with_means(few, rows)
    return _with_means(against_bar("FT − FT+PTQ accuracy", est, bars["ptq_gap"], n=n, min_n=MIN_SEEDS), rows)


def judge_recovers(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``reqat_recovers``: ReQAT non-inferior to FT within ``ft_margin`` and ahead of QAT by ``qat_gain``."""
    d_ft, n_ft = _diff(rows, "reqat", "ft")
    d_qat, n_qat = _diff(rows, "reqat", "qat")
    few = enough_seeds(min(n_ft, n_qat))
    if few is not None:
        return _with_means(few, rows)
    parts = {"vs FT": non_inferior("ReQAT − FT accuracy", d_ft, bars["ft_margin"], n=n_ft, min_n=MIN_SEEDS),
             "vs QAT": against_bar("ReQAT − QAT accuracy", d_qat, bars["qat_gain"], n=n_qat, min_n=MIN_SEEDS)}
    return _with_means(all_of(parts, what="comparisons"), rows)


def judge_surpasses(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``surpasses_ft``: accuracy(ReQAT) − accuracy(FT), paired by seed, against ``ft_gain``."""
    est, n = _diff(rows, "reqat", "ft")
    few = enough_seeds(n)
    if few is not None:
        return _with_means(few, rows)
    return _with_means(against_bar("ReQAT − FT accuracy", est, bars["ft_gain"], n=n, min_n=MIN_SEEDS), rows)


RULES = {"fp4_degrades": judge_degrades, "low_entropy_failures": judge_low_entropy, "qfit_kv_error": judge_qfit,
         "ptq_degrades": judge_ptq_gap, "reqat_recovers": judge_recovers, "surpasses_ft": judge_surpasses}
UNJUDGED: dict[str, str] = {}
