"""What the [P02] organism claims measure: one suite run per seed (``_runs.py``), drawn here. The four behavioural
claims are not judged (``_rules.UNJUDGED``: the organism verbalizes by construction); each check returns
``unsupported`` with that reason and reports the organism's numbers against the claim's bar as a finding, a test of
our monitors and harness. ``estimator_recovers`` is judged; the real-LM claim is in ``_checks_real.py``."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.monitorability._checks_real import check_cot_beats_action_real
from icml26.papers.monitorability._rules import ORGANISM_RULES, UNJUDGED, judge_recovers
from icml26.papers.monitorability._runs import compute_rows, estimator_rows, length_rows, suite_rows

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.monitorability.claims import ComputeConfig, EstimatorConfig, LengthConfig, SuiteConfig

__all__ = ["check_compute_scaling", "check_cot_beats_action", "check_cot_beats_action_real",
           "check_estimator_recovers", "check_followup_helps", "check_longer_cot"]

NOTE = ("the organism verbalizes by construction (module docstring of _organism.py): its numbers show the suite "
        "measures what was planted, not that a frontier model behaves so")
ORGANISM_FINDING = "organism against the claim's bar (tests our monitors and harness; by construction, not a verdict)"


def _not_judged(claim: str, rows: list[dict[str, Any]], ctx: Context, summary: str, figures: list[FigureData],
                findings: dict[str, str] | None = None) -> ClaimResult:
    """The result of an ``UNJUDGED`` organism claim: ``unsupported`` with the reason, the organism's numbers measured
    against the claim's bar (by its organism rule) as a finding."""
    j = ORGANISM_RULES[claim](rows, bars=ctx.bars)
    return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=f"not judged: {UNJUDGED[claim]}", summary=summary,
                       measured=dict(j.measured), rows=rows, figures=figures, notes=NOTE,
                       findings={ORGANISM_FINDING: f"{j.verdict.value}: {j.reason}", **(findings or {})})


def _flat(parts: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [r for p in parts for r in p]


def _mean(rows: list[dict[str, Any]], key: str = "g_mean2", **where: Any) -> float:
    v = [float(r[key]) for r in rows if all(r.get(k) == x for k, x in where.items())]
    return float(np.nanmean(v)) if v and np.isfinite(v).any() else float("nan")


def _bars(rows: list[dict[str, Any]], monitors: tuple[str, ...], name: str, caption: str) -> FigureData:
    fig, ax = new_figure(width=6.4, height=3.6)
    archs = sorted({r["archetype"] for r in rows})
    w = 0.8 / len(monitors)
    for j, m in enumerate(monitors):
        ax.bar(np.arange(len(archs)) + j * w, [_mean(rows, archetype=a, monitor=m) for a in archs], w, label=m)
    ax.set_xticks(np.arange(len(archs)) + 0.4 - w / 2, archs)
    ax.set_ylabel("g-mean² = TPR × TNR (mean over seeds)")
    ax.set_ylim(0, 1)
    ax.legend(title="monitor scope", fontsize=8)
    return render(fig, name=name, caption=caption)


def _table(rows: list[dict[str, Any]], monitors: tuple[str, ...]) -> str:
    return "; ".join(f"{a}: " + ", ".join(f"{m} {_mean(rows, archetype=a, monitor=m):.3f}" for m in monitors)
                     for a in sorted({r["archetype"] for r in rows}))


def check_cot_beats_action(cfg: SuiteConfig, ctx: Context) -> ClaimResult:
    """[P02] Abstract: CoT monitoring beats action-only monitoring; measured on the organism, not judged."""
    rows = _flat(ctx.map(partial(suite_rows, cfg), ctx.seeds))
    mons = ("action", "cot", "all")
    return _not_judged("cot_beats_action", rows, ctx, _table(rows, mons), [_bars(
        rows, mons, "g_mean2_by_scope", "g-mean² of the action-only, CoT-only and CoT+action monitors per archetype "
        "on the simulated organism")], {"CoT only vs CoT+action (ours)": _table(rows, ("cot", "all"))})


def check_followup_helps(cfg: SuiteConfig, ctx: Context) -> ClaimResult:
    """[P02] Abstract: asking a follow-up question and reading its CoT raises monitorability; measured on the
    organism, not judged."""
    rows = _flat(ctx.map(partial(suite_rows, cfg), ctx.seeds))
    mons = ("all", "all+followup")
    return _not_judged("followup_helps", rows, ctx, _table(rows, mons), [_bars(
        rows, mons, "g_mean2_followup", "g-mean² of the CoT+action monitor with and without the follow-up CoT per "
        "archetype on the simulated organism")])


def _curves(rows: list[dict[str, Any]], x: str, by: str, name: str, xlabel: str, caption: str) -> FigureData:
    fig, axes = new_figure(width=7.5, height=3.2)
    archs = sorted({r["archetype"] for r in rows})
    xs = sorted({int(r[x]) for r in rows})
    for a in archs:
        for m in sorted({r[by] for r in rows}):
            ys = [_mean(rows, archetype=a, **{by: m, x: v}) for v in xs]
            axes.plot(xs, ys, marker="o", linestyle="-" if m == "all" else "--", label=f"{a} / {m}")
    axes.set_xscale("log", base=2)
    axes.set_xlabel(xlabel)
    axes.set_ylabel("g-mean² (mean over seeds)")
    axes.legend(fontsize=7, ncol=2)
    return render(fig, name=name, caption=caption)


def check_longer_cot(cfg: LengthConfig, ctx: Context) -> ClaimResult:
    """[P02] Abstract: longer CoTs are more monitorable (the organism's CoT length K swept; not judged)."""
    rows = _flat(ctx.map(partial(length_rows, cfg.suite, cfg.lengths), ctx.seeds))
    summary = "; ".join(f"{a}: " + ", ".join(f"K={k} {_mean(rows, archetype=a, monitor='all', cot_steps=k):.3f}"
                                              for k in cfg.lengths) for a in sorted({r["archetype"] for r in rows}))
    return _not_judged("longer_cot", rows, ctx, summary, [_curves(
        rows, "cot_steps", "monitor", "g_mean2_vs_cot_length", "CoT length K (words)",
        "g-mean² of the CoT+action (solid) and action-only (dashed) monitors against the organism's CoT length")])


def check_compute_scaling(cfg: ComputeConfig, ctx: Context) -> ClaimResult:
    """[P02] Sec. on test-time monitor compute: more reads raise monitorability, more steeply with CoT access
    (our partial-read stand-in on the organism; not judged)."""
    rows = _flat(ctx.map(partial(compute_rows, cfg.suite, cfg.reads, cfg.keep), ctx.seeds))
    summary = "; ".join(f"{a} {s}: " + ", ".join(f"k={k} {_mean(rows, archetype=a, scope=s, reads=k):.3f}"
                                                 for k in cfg.reads)
                        for a in sorted({r["archetype"] for r in rows}) for s in ("action", "all"))
    return _not_judged("compute_scaling", rows, ctx, summary, [_curves(
        rows, "reads", "scope", "g_mean2_vs_reads", f"reads k (each keeps {cfg.keep:.0%} of the words)",
        "g-mean² of majority votes over k partial reads, with CoT access (solid) and action only (dashed)")])


def check_estimator_recovers(cfg: EstimatorConfig, ctx: Context) -> ClaimResult:
    """[P02] The intervention estimator with cross-fit filtering recovers known TPR and TNR (planted experiment
    and the organism's hidden ground truth)."""
    rows = _flat(ctx.map(partial(estimator_rows, cfg), ctx.seeds))
    j = judge_recovers(rows, bars=ctx.bars)

    def err(source: str, filt: str, rate: str) -> float:
        v = [abs(r[rate] - r[f"true_{rate}"]) for r in rows if r["source"] == source and r["filter"] == filt]
        return float(np.mean(v))

    summary = (f"planted (TPR {cfg.tpr}, TNR {cfg.tnr}) cross-fit mean |error| TPR {err('planted', 'crossfit', 'tpr'):.3f}"
               f", TNR {err('planted', 'crossfit', 'tnr'):.3f}; organism TPR {err('organism', 'crossfit', 'tpr'):.3f}"
               f", TNR {err('organism', 'crossfit', 'tnr'):.3f}")
    bias = {f: float(np.mean([r["tpr"] - r["true_tpr"] for r in rows if r["source"] == "planted"
                              and r["filter"] == f])) for f in ("crossfit", "none", "insample")}
    fig, ax = new_figure(width=5.5, height=3.4)
    for k, f in enumerate(("crossfit", "none", "insample")):
        v = [r["tpr"] for r in rows if r["source"] == "planted" and r["filter"] == f]
        ax.scatter(np.full(len(v), k), v, alpha=0.7)
    ax.axhline(cfg.tpr, color="k", linestyle=":", label=f"true TPR {cfg.tpr}")
    ax.set_xticks(range(3), ["cross-fit", "no filter", "in-sample filter"])
    ax.set_ylabel("estimated TPR (one point per seed)")
    ax.legend(fontsize=8)
    fig_d = render(fig, name="estimated_tpr_by_filter", caption="estimated TPR of the planted intervention experiment "
                   "per seed under each prompt filter, against the true TPR")
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[fig_d], findings={
        "mean TPR bias by filter (ours)": ", ".join(f"{f} {b:+.3f}" for f, b in bias.items())})
