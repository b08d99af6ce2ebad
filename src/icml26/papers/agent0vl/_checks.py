"""What the [P16] claims measure: per seed, one cold start on rendered figures and every arm evolved from it
(shared by the run group ``runs`` through ``ctx.shared`` and cached on disk); the figures.

The verdicts come from :mod:`._rules`; this module runs the seeds, collects the rows and draws.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.agent0vl._measure import triangle_vertices
from icml26.papers.agent0vl._render import FIGURE_KINDS, make_tasks
from icml26.papers.agent0vl._rules import judge_evolution, judge_recovery, judge_text_gap, judge_verification
from icml26.papers.agent0vl._runs import run_seed
from icml26.papers.agent0vl._tools import measure_object

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.agent0vl.claims import ComparisonConfig

NAMES = {"serc": "SERC, tool-grounded verifier", "text_only": "SERC, text-only verifier",
         "text_trusting": "SERC, text-only verifier trusting tool outputs", "oracle": "GRPO, oracle (label) reward",
         "no_repair": "SERC without repair"}


def _rows(cfg: ComparisonConfig, ctx: Context) -> list[dict[str, Any]]:
    return [r for s in ctx.seeds for r in ctx.shared(run_seed, cfg.run, s)]


def _strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "scores"} for r in rows]


def _mean(rows: list[dict[str, Any]], arm: str, key: str) -> list[float]:
    runs = [r[key] for r in rows if r["arm"] == arm]
    return [float(x) for x in np.mean(np.array(runs, dtype=float), axis=0)] if runs else []


def _curves(rows: list[dict[str, Any]]) -> FigureData:
    fig, ax = new_figure()
    for i, arm in enumerate(NAMES):
        runs = [r["curve"] for r in rows if r["arm"] == arm]
        if not runs:
            continue
        for c in runs:
            ax.plot(range(len(c)), c, color=f"C{i}", lw=0.7, alpha=0.35)
        ax.plot(range(len(runs[0])), np.mean(runs, axis=0), color=f"C{i}", lw=2.2, marker="o",
                label=f"{NAMES[arm]} ({len(runs)} seeds)")
    ax.set_xticks(range(max(len(r["curve"]) for r in rows if "curve" in r)))
    ax.set(xlabel="evolution iteration (0 = cold start)", ylabel="test accuracy (sampled answers)",
           title="Accuracy over self-evolution iterations")
    ax.legend()
    return render(fig, name="evolution_curves", caption="Held-out accuracy of the Solver after each iteration; thin "
                  "lines one seed each, thick the mean. Only the oracle arm ever sees a label.")


def _roc(rows: list[dict[str, Any]]) -> FigureData:
    from sklearn.metrics import roc_curve

    fig, ax = new_figure(width=4.5, height=4.5)
    sc = [r["scores"] for r in rows if r["arm"] == "verifier"]
    correct = [c for s in sc for c in s["correct"]]
    for i, (key, name) in enumerate((("tool", "tool-grounded"), ("text", "text-only"))):
        if len(set(correct)) == 2:
            fpr, tpr, _ = roc_curve(correct, [x for s in sc for x in s[key]])
            ax.plot(fpr, tpr, color=f"C{i}", lw=2, label=f"{name} verifier")
    ax.plot([0, 1], [0, 1], color="0.6", ls=":", lw=1)
    ax.set(xlabel="false positive rate", ylabel="true positive rate", title="Step scores vs step correctness")
    ax.legend()
    return render(fig, name="verifier_roc", caption="ROC of the Verifier's step scores against the steps' true "
                  "correctness, on the cold-start policy's trajectories over the noisy test figures (all seeds pooled).")


def _renders() -> FigureData:
    tasks = [t for t in make_tasks(24, seed=0) if t.question.kind != "value"]
    picks = [next(t for t in tasks if t.layout.kind == k) for k in FIGURE_KINDS if
             any(t.layout.kind == k for t in tasks)]
    fig, _ = new_figure(width=3.0 * len(picks), height=3.6)
    fig.clear()
    for i, t in enumerate(picks):
        ax = fig.add_subplot(1, len(picks), i + 1)
        ax.imshow(t.image, cmap="gray", vmin=0, vmax=1)
        got = [measure_object(t.image, t.layout, k) for k in range(len(t.label.values))]
        if t.layout.kind == "triangles":
            v = triangle_vertices(t.image, t.layout) * t.layout.px_per_unit
            for name, (x, y) in zip("ABC", v):
                ax.plot(x, t.layout.height - y, "+", color="C3", ms=7)
                ax.text(x, t.layout.height - y - 2, name, color="C3", fontsize=7, ha="center")
            tool = "sides AB, BC, CA"
        else:
            for k, c in enumerate(t.layout.centres):
                ax.text(c, 6, str(got[k]), ha="center", va="top", color="C3", fontsize=8)
            tool = "values"
        ax.set_title(textwrap.fill(t.question.text(t.layout.kind), 30) + f"\nmeasure tool, {tool}: {got}", fontsize=6)
        ax.set_axis_off()
    return render(fig, name="rendered_figures", caption="One rendered task per figure kind (bar chart, circle panel, "
                  "line chart, triangle) with what the pixel-measuring tool reads from the image array (red; on the "
                  "triangle, the corners it finds).")


def _by_kind(rows: list[dict[str, Any]], arm: str) -> dict[str, list[float]]:
    runs = [r["curve_by_kind"] for r in rows if r["arm"] == arm and "curve_by_kind" in r]
    kinds = [k for k in FIGURE_KINDS if runs and all(k in r for r in runs)]
    return {k: [float(x) for x in np.mean([r[k] for r in runs], axis=0)] for k in kinds}


def _findings(rows: list[dict[str, Any]]) -> dict[str, str]:
    out = {}
    for arm in NAMES:
        tool = _mean(rows, arm, "tool_use")
        if tool:
            out[f"tool-call share of steps per iteration, {NAMES[arm]}"] = ", ".join(f"{x:.2f}" for x in tool)
        for kind, curve in _by_kind(rows, arm).items():
            out[f"test accuracy per iteration on {kind}, {NAMES[arm]}"] = " → ".join(f"{x:.3f}" for x in curve)
    return out


def _summary(rows: list[dict[str, Any]]) -> str:
    return "; ".join(f"{NAMES[a]}: " + " → ".join(f"{x:.3f}" for x in _mean(rows, a, "curve"))
                     for a in NAMES if _mean(rows, a, "curve"))


def check_self_evolution_gain(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Abstract and iteration table of [P16]: accuracy rises over the evolution iterations, no external reward."""
    rows = _rows(cfg, ctx)
    j = judge_evolution(rows, bars=ctx.bars)
    return ClaimResult.judged(j, summary="mean accuracy by iteration: " + _summary(rows), rows=_strip(rows),
                              figures=[_curves(rows), _renders()], findings=_findings(rows),
                              notes="Accuracy of the Solver alone (no verification or repair at test time), "
                              f"{cfg.run.eval_samples} sampled answers per test figure.")


def check_tool_grounded_verification(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P16]: tool-grounded critique verifies visual reasoning steps where text-only evaluation fails."""
    rows = _rows(cfg, ctx)
    j = judge_verification(rows, bars=ctx.bars)
    v = [r for r in rows if r["arm"] == "verifier"]

    def mean(key: str) -> str:
        return f"{np.mean([float(r[key]) for r in v]):.3f}" if v else "nan"

    findings = {
        "share of correct steps in the cold start's trajectories (noisy figures)": mean("correct_share"),
        "share of readings the pixel tool gets wrong on the noisy figures": mean("tool_misread_share"),
        **{f"share of {kind} readings the pixel tool gets wrong on the noisy figures":
           f"{np.mean([float(r['tool_misread_by_kind'][kind]) for r in v]):.3f}"
           for kind in FIGURE_KINDS if v and all(kind in r.get("tool_misread_by_kind", {}) for r in v)},
        "AUROC on the clean figures, tool-grounded vs text-only (the tool is exact there)":
            f"{mean('auroc_tool_clean')} vs {mean('auroc_text_clean')}",
        "AUROC of a text-only verifier that trusts the transcript's tool outputs (noisy figures)":
            mean("auroc_trusting"),
    }
    return ClaimResult.judged(j, summary=f"{j.reason}", rows=_strip(rows), figures=[_roc(rows)], findings=findings,
                              notes="Both verifiers score the same steps, on the test figures re-rendered with pixel "
                              f"noise of std {cfg.run.verify_noise} (where the pixel tool misreads some objects); the "
                              "tool-grounded one re-measures and recomputes, the text-only one asks the policy's "
                              "own belief.")


def check_zero_reward_recovery(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P16]: zero-external-reward evolution recovers most of what a label reward gains."""
    rows = _rows(cfg, ctx)
    j = judge_recovery(rows, bars=ctx.bars)
    return ClaimResult.judged(j, summary="mean accuracy by iteration: " + _summary(rows), rows=_strip(rows),
                              figures=[_curves(rows)], findings=_findings(rows))


def check_text_only_gains_less(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P16]: text-only self-evaluation hallucinates, so evolving with it gains less."""
    rows = _rows(cfg, ctx)
    j = judge_text_gap(rows, bars=ctx.bars)
    return ClaimResult.judged(j, summary="mean accuracy by iteration: " + _summary(rows), rows=_strip(rows),
                              figures=[_curves(rows)], findings=_findings(rows))
