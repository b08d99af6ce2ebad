"""What the [P23] claims measure: trained runs per (task, method, seed) (:mod:`._runs`, shared within a run group),
judged by :mod:`._rules`, drawn by :mod:`._figures`. The baselines (fixed depth T, fixed depth and Mixture-of-Depths
at the ANIRA variants' mean compute) are reported beside the judged variants as findings: accuracy against compute
per token."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.papers.anira._figures import LABELS, compute_figure, extrapolation_figure, profile_figure, timing_figure
from icml26.papers.anira._rules import ONLINE, judge_alignment, judge_extrapolation, judge_timing
from icml26.papers.anira._runs import run_all

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.anira.claims import AlignmentConfig, ExtrapolationConfig, TimingConfig


def _mean(rows: Sequence[dict[str, Any]], task: str, method: str, key: str) -> float:
    return float(np.mean([r[key] for r in rows if r["task"] == task and r["method"] == method]))


def _pairs(rows: Sequence[dict[str, Any]], methods: Sequence[str] | None = None) -> list[tuple[str, str]]:
    seen = {(r["task"], r["method"]) for r in rows}
    return [(t, m) for t in sorted({t for t, _ in seen}) for m in LABELS if (t, m) in seen
            and (methods is None or m in methods)]


def _line(rows: Sequence[dict[str, Any]], t: str, m: str) -> str:
    return (f"rho {_mean(rows, t, m, 'rho'):.2f}, ID accuracy {100 * _mean(rows, t, m, 'id_accuracy'):.1f} %, "
            f"{_mean(rows, t, m, 'id_depth'):.2f} iterations and {_mean(rows, t, m, 'id_flops') / 1e3:.0f} kFLOPs "
            "per token")


def _baselines(rows: Sequence[dict[str, Any]], judged: Sequence[str]) -> dict[str, str]:
    return {f"{t} {LABELS[m]} (baseline)": _line(rows, t, m) for t, m in _pairs(rows) if m not in judged}


def _compute(rows: Sequence[dict[str, Any]], t: str, m: str) -> str:
    """Accuracy against compute per token for one (task, method), means over seeds, with the baseline's setting."""
    sel = [r for r in rows if r["task"] == t and r["method"] == m]
    setting = (f" (fixed at {sel[0]['fixed_depth']})" if "fixed_depth" in sel[0] else
               f" (capacity {sel[0]['capacity']:.3g})" if "capacity" in sel[0] else "")
    return (f"ID accuracy {100 * _mean(rows, t, m, 'id_accuracy'):.1f} % at {_mean(rows, t, m, 'id_depth'):.2f} "
            f"iterations{setting} and {_mean(rows, t, m, 'id_flops') / 1e3:.0f} kFLOPs per token, rho "
            f"{_mean(rows, t, m, 'rho'):.2f}; longer inputs {100 * _mean(rows, t, m, 'ood_accuracy'):.1f} % at "
            f"{_mean(rows, t, m, 'ood_depth'):.2f} iterations")


def _hardest_trained(rows: Sequence[dict[str, Any]], t: str, m: str) -> str:
    """Per-token depth and accuracy at the highest in-distribution difficulty (present in every seed) and on the
    longer inputs' tokens above it, means over seeds: the extrapolation compared with like tokens."""
    sel = [r for r in rows if r["task"] == t and r["method"] == m]
    k = max(set.intersection(*(set(r["id_profile"]) for r in sel)), key=int)
    at = [r["id_profile"][k] for r in sel]
    text = (f"at difficulty {k} in distribution: depth {np.mean([a[0] for a in at]):.2f}, accuracy "
            f"{100 * np.mean([a[1] for a in at]):.1f} %")
    above = [[v for j, v in r["ood_profile"].items() if int(j) > int(k)] for r in sel]
    if not all(above):
        return text + f"; no longer-input tokens above difficulty {k}"
    depth = np.mean([sum(v[0] * v[2] for v in a) / sum(v[2] for v in a) for a in above])
    acc = np.mean([sum(v[1] * v[2] for v in a) / sum(v[2] for v in a) for a in above])
    return f"{text}; above it on the longer inputs: depth {depth:.2f}, accuracy {100 * acc:.1f} %"


def check_depth_tracks_difficulty(cfg: AlignmentConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P23]: compute allocation aligned with task complexity emerges without difficulty supervision
    (Spearman rho of per-token depth against ground-truth difficulty, in distribution)."""
    rows = run_all(cfg.runs, tuple(ctx.seeds), ctx)
    j = judge_alignment(rows, bars=ctx.bars, methods=cfg.judged)
    summary = "; ".join(f"{t} {LABELS[m]}: {_line(rows, t, m)}" for t, m in _pairs(rows, cfg.judged))
    figures = []
    for t in sorted({r["task"] for r in rows}):
        figures.append(profile_figure(rows, t, col=0, ylabel="mean iterations per token", name=f"{t}_depth_vs_difficulty",
                                      caption=f"{t}: mean per-token depth against ground-truth difficulty per method "
                                              "(mean over seeds); dashed: the longer inputs."))
        figures.append(profile_figure(rows, t, col=1, ylabel="per-token accuracy", name=f"{t}_accuracy_vs_difficulty",
                                      caption=f"{t}: per-token accuracy against difficulty per method (mean over "
                                              "seeds); dashed: the longer inputs."))
    findings = {f"{t} {LABELS[m]} rho above the lowest difficulty": f"{_mean(rows, t, m, 'rho_above_lowest'):.2f} "
                "(the lowest level needs no look-up: a direct binding, the lowest digit)"
                for t, m in _pairs(rows, cfg.judged)}
    findings.update(_baselines(rows, cfg.judged))
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=figures, findings=findings,
                              notes="Difficulty labels are never given to the model: they enter only the analysis. "
                              "Depth: iterations in which a token's state was updated; FLOPs: token_flops of the "
                              "sparse inference path.")


def check_no_length_extrapolation(cfg: ExtrapolationConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P23]: compute alignment does not imply algorithmic generalisation (models fail on unseen input
    sizes despite allocating more compute): ID vs OOD accuracy and mean depth per method."""
    rows = run_all(cfg.runs, tuple(ctx.seeds), ctx)
    j = judge_extrapolation(rows, bars=ctx.bars, methods=cfg.judged)

    def line(t: str, m: str) -> str:
        return (f"{t} {LABELS[m]}: accuracy {100 * _mean(rows, t, m, 'id_accuracy'):.1f} -> "
                f"{100 * _mean(rows, t, m, 'ood_accuracy'):.1f} %, depth {_mean(rows, t, m, 'id_depth'):.2f} -> "
                f"{_mean(rows, t, m, 'ood_depth'):.2f}")

    findings = {f"{t} {LABELS[m]} against the hardest trained difficulty": _hardest_trained(rows, t, m)
                for t, m in _pairs(rows, cfg.judged)}
    for t in sorted({r["task"] for r in rows}):
        adaptive = [r["id_depth"] for r in rows if r["task"] == t and r["method"] in cfg.judged]
        if adaptive and any(r["task"] == t and r["method"] not in cfg.judged for r in rows):
            findings[f"{t} matched compute"] = (f"{np.mean(adaptive):.2f} iterations per token, the mean of "
                                                "the ANIRA variants in distribution")
    findings.update({f"{t} {LABELS[m]} accuracy vs compute": _compute(rows, t, m) for t, m in _pairs(rows)})
    tasks = sorted({r["task"] for r in rows})
    figures = [extrapolation_figure(rows, t) for t in tasks] + [compute_figure(rows, t) for t in tasks]
    return ClaimResult.judged(j, summary="; ".join(line(t, m) for t, m in _pairs(rows, cfg.judged)), rows=rows,
                              figures=figures, findings=findings,
                              notes="OOD accuracy and depth are read on the longer inputs' tokens beyond the training "
                              "range (pointer chasing: more hops than in training) or on whole sums (addition). "
                              "Baselines (not judged): fixed depth T, fixed depth at the ANIRA variants' mean "
                              "depth (rounded) and Mixture-of-Depths at capacity mean depth / T, same model and "
                              "training otherwise.")


def check_decision_timing(cfg: TimingConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P23]: early compute decisions rely on static structural cues, online halting tracks algorithmic
    execution state (R^2 of per-token depth on static vs execution-state features, ANIRA-E vs ANIRA-O)."""
    rows = run_all(cfg.runs, tuple(ctx.seeds), ctx)
    j = judge_timing(rows, bars=ctx.bars, online=ONLINE)
    summary = "; ".join(f"{t} {LABELS[m]}: R2 static {_mean(rows, t, m, 'r2_static'):.2f}, state "
                        f"{_mean(rows, t, m, 'r2_state'):.2f}" for t, m in _pairs(rows))
    findings = {f"{t} {LABELS[m]} alignment": _line(rows, t, m) for t, m in _pairs(rows)}
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[timing_figure(rows, t) for t in
                              sorted({r["task"] for r in rows})], findings=findings,
                              notes="Static features: in-degree, out-degree, graph size. Execution-state features "
                              "(Kahn's algorithm when it removes the node): round, frontier size, children enabled "
                              "for the next round, nodes not yet removed. In-sample least squares with an intercept.")
