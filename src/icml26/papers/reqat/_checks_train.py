"""What the [P11] training claims measure: the tiny reasoning model's accuracy per method and seed at an equal
budget (``_tinyrun.py``), judged by ``_rules.py``; the three claims share one run (group ``tiny``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.reqat._rules import judge_ptq_gap, judge_recovers, judge_surpasses, method_accuracy
from icml26.papers.reqat._tinyrun import base_state, run_seed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.reqat.claims import TrainConfig

ORDER = ("base", "ft", "ft_ptq", "qat", "taq", "reqat")
LABEL = {"base": "base", "ft": "FT (fp32)", "ft_ptq": "FT+PTQ", "qat": "QAT",
         "taq": "TAQ", "reqat": "ReQAT"}
FULL_REASON = ("the paper's scale (R1-Qwen-14B / R1-Llama-8B, 280-350M training tokens of OpenThoughts3 traces, AIME "
               "evaluation) needs GPU-days; this package trains a 0.1M-parameter model on arithmetic traces")


def tiny_runs(cfg: TrainConfig, seeds: tuple[int, ...]) -> list[dict[str, Any]]:
    """Every (seed, method) row: one base model (from the first seed), then each seed's fine-tuning runs."""
    base = base_state(cfg, seeds[0])
    return [r for s in seeds for r in run_seed((cfg, base, s))]


def _figure(rows: list[dict[str, Any]], cfg: TrainConfig) -> FigureData:
    acc = method_accuracy(rows)
    methods = [m for m in ORDER if m in acc]
    fig, ax = new_figure(width=7.0, height=3.8)
    for i, m in enumerate(methods):
        vals = np.array(list(acc[m].values()))
        ax.bar(i, vals.mean(), color="C0" if m in ("ft", "base") else ("C3" if m == "reqat" else "C7"), alpha=0.8)
        ax.scatter(np.full(vals.size, i), vals, color="k", s=10, zorder=3)
    ax.set_xticks(range(len(methods)), [LABEL[m] for m in methods], rotation=20)
    ax.set(ylabel="answer accuracy (T = 0.6, top-p 0.95)", ylim=(0, 1),
           title=f"{cfg.scheme.upper()} W4A4KV4, {cfg.budget_steps} steps × {cfg.batch} traces per method")
    return render(fig, name="accuracy_per_method",
                  caption="Answer accuracy of the tiny reasoning model per method (bars: mean over seeds; dots: seeds).")


def _summary(rows: list[dict[str, Any]]) -> str:
    acc = method_accuracy(rows)
    return "; ".join(f"{LABEL[m]} {np.mean(list(acc[m].values())):.3f}" for m in ORDER if m in acc)


def _findings(rows: list[dict[str, Any]]) -> dict[str, str]:
    acc = method_accuracy(rows)

    def mean(m: str) -> float:
        return float(np.mean(list(acc[m].values()))) if m in acc else float("nan")

    out = {"base": f"base model (before fine-tuning) {mean('base'):.3f}"}
    if "taq" in acc:
        out["ablation"] = f"TAQ alone {mean('taq'):.3f} vs ReQAT (TAQ + Q-FIT + SEM) {mean('reqat'):.3f}"
    return out


def _result(judge: Any, cfg: TrainConfig, ctx: Context) -> ClaimResult:
    if cfg.full_scale:
        return ClaimResult(Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")
    rows = ctx.shared(tiny_runs, cfg, tuple(ctx.seeds))
    j = judge(rows, bars=ctx.bars)
    return ClaimResult.judged(j, summary=_summary(rows), rows=rows, figures=[_figure(rows, cfg)],
                              findings=_findings(rows), notes=(
                                  "One base model per run (the first seed), trained on traces with corrupted steps; "
                                  "the seeds vary the fine-tuning batches and the sampling. Equal budget: every "
                                  "method takes the same number of optimiser steps of the same batch size."))


def check_ptq_degrades(cfg: TrainConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P11]: W4A4KV4 PTQ degrades reasoning (FT − FT+PTQ accuracy on the tiny model)."""
    return _result(judge_ptq_gap, cfg, ctx)


def check_reqat_recovers(cfg: TrainConfig, ctx: Context) -> ClaimResult:
    """Abstract / Table 2 of [P11]: ReQAT recovers FT accuracy and beats QAT at the same budget."""
    return _result(judge_recovers, cfg, ctx)


def check_surpasses_ft(cfg: TrainConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P11]: ReQAT surpasses full-precision fine-tuning at the same budget."""
    return _result(judge_surpasses, cfg, ctx)
