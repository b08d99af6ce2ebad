"""What the [P09] claims measure: federations on the two-modality digits (one per method, setting and seed), and
their figures. The verdicts come from :mod:`._rules`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.mfedpba._experiments import Federation, RunTask, run_federation
from icml26.papers.mfedpba._rules import FULL, judge_ablations, judge_imbalance, judge_outperforms

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.mfedpba.claims import AblationConfig, CompareConfig, ImbalanceConfig

LABELS = {"mfedpba": "MFedPBA", "local": "local only", "fedproto": "FedProto", "logit_avg": "uniform logit avg.",
          "fedavg": "FedAvg", "mfedpba_no_gw": "MFedPBA − GW", "mfedpba_uniform": "MFedPBA, uniform weights"}


def _run(tasks: list[RunTask], fed: Federation, ctx: Context) -> list[dict[str, Any]]:
    """Every task, one federation per ``ctx.map`` item; or, with ``per_client``, each federation with its clients
    mapped (one client update per worker per round)."""
    if fed.per_client:
        return [run_federation(t, mapper=ctx.map) for t in tasks]
    return ctx.map(run_federation, tasks)


def _strip(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "curve"} for r in rows]


def _mean(rows: Sequence[dict[str, Any]], key: str = "accuracy", **where: Any) -> float:
    vals = [100.0 * r[key] for r in rows if all(r[k] == v for k, v in where.items())]
    return float(np.mean(vals)) if vals else float("nan")


def _accuracy_figure(rows: list[dict[str, Any]], groups: Sequence[tuple[str, Sequence[str]]], title: str
                     ) -> FigureData:
    fig, ax = new_figure(width=7.5, height=4.0)
    ticks: list[str] = []
    xs: list[float] = []
    x = 0.0
    for setting, methods in groups:
        for m in methods:
            vals = [100.0 * r["accuracy"] for r in rows if r["setting"] == setting and r["method"] == m]
            ax.bar(x, float(np.mean(vals)), color="C0" if m == FULL else "0.7", width=0.7)
            ax.scatter(np.full(len(vals), x), vals, color="k", s=12, zorder=3)
            ticks.append(f"{LABELS.get(m, m)}\n({setting.replace('_', ' ')})")
            xs.append(x)
            x += 1.0
        x += 0.5
    ax.set_xticks(xs, ticks, rotation=30, ha="right")
    lo = min(100.0 * r["accuracy"] for r in rows)
    ax.set(ylabel="mean client test accuracy (%)", title=title, ylim=(max(0.0, lo - 10.0), None))
    return render(fig, name="accuracy_by_method", caption="Mean held-out client accuracy per method (bars: mean "
                  "over seeds; dots: one seed each).")


def _curve_figure(rows: list[dict[str, Any]], setting: str, methods: Sequence[str], name: str) -> FigureData:
    fig, ax = new_figure()
    for i, m in enumerate(methods):
        curves = np.array([r["curve"] for r in rows if r["setting"] == setting and r["method"] == m])
        if curves.size:
            ax.plot(np.arange(1, curves.shape[1] + 1), 100.0 * curves.mean(0), label=LABELS.get(m, m),
                    color=f"C{i}", lw=2.5 if m == FULL else 1.2)
    ax.set(xlabel="round", ylabel="mean client test accuracy (%)", title=f"{setting.replace('_', ' ')} clients")
    ax.legend()
    return render(fig, name=name, caption=f"Mean client accuracy after each round ({setting.replace('_', ' ')}, "
                  "mean over seeds).")


def check_outperforms_baselines(cfg: CompareConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P09]: MFedPBA outperforms the baselines under model heterogeneity and modality imbalance
    (heterogeneous clients: local only, FedProto, uniform logit averaging; same-architecture clients: FedAvg)."""
    groups = [("heterogeneous", (FULL, *cfg.baselines)), ("same_architecture", (FULL, *cfg.same_arch_baselines))]
    tasks = [RunTask(cfg.fed, setting == "heterogeneous", cfg.unimodal_fraction, m, s)
             for setting, methods in groups if len(methods) > 1 for m in methods for s in ctx.seeds]
    rows = _run(tasks, cfg.fed, ctx)
    j = judge_outperforms(rows, bars=ctx.bars)
    means = j.measured.get("mean_accuracy_points", {})
    summary = "; ".join(f"{st.replace('_', ' ')}: " + ", ".join(f"{LABELS.get(m, m)} {v:.1f}" for m, v in ms.items())
                        for st, ms in means.items()) + " (mean client accuracy, %)"
    figs = [_accuracy_figure(rows, [g for g in groups if len(g[1]) > 1], f"{cfg.fed.n_clients} clients, "
                             f"{cfg.unimodal_fraction:.0%} unimodal, Dirichlet α = {cfg.fed.alpha:g}"),
            _curve_figure(rows, "heterogeneous", groups[0][1], "curves_heterogeneous")]
    return ClaimResult.judged(j, summary=summary, rows=_strip(rows), figures=figs, notes=(
        "FedAvg applies only where every client has the same architecture, so it is compared with MFedPBA on a "
        "same-architecture federation of the same data; every method is evaluated after its last local update."))


def check_advantage_grows_with_imbalance(cfg: ImbalanceConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P09]: robust under severe modality imbalance, where existing methods are ill-suited: the
    advantage over the strongest baseline grows with the fraction of unimodal clients."""
    methods = (FULL, *cfg.baselines)
    tasks = [RunTask(cfg.fed, True, f, m, s) for f in cfg.fractions for m in methods for s in ctx.seeds]
    rows = _run(tasks, cfg.fed, ctx)
    j = judge_imbalance(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, m in enumerate(methods):
        ax.plot(cfg.fractions, [_mean(rows, method=m, fraction=f) for f in cfg.fractions], marker="o",
                label=LABELS.get(m, m), color=f"C{i}", lw=2.5 if m == FULL else 1.2)
    ax.set(xlabel="fraction of unimodal clients", ylabel="mean client test accuracy (%)",
           title=f"heterogeneous clients, {len(ctx.seeds)} seeds")
    ax.legend()
    fig2, ax2 = new_figure()
    for s, adv in j.measured.get("advantage_points", {}).items():
        ax2.plot(cfg.fractions, adv, color="0.6", lw=0.8, marker=".")
    if "mean_advantage_points" in j.measured:
        ax2.plot(cfg.fractions, j.measured["mean_advantage_points"], color="C0", lw=2.5, marker="o", label="mean")
        ax2.legend()
    ax2.axhline(0.0, color="k", lw=0.8)
    ax2.set(xlabel="fraction of unimodal clients", ylabel="MFedPBA − best baseline (points)",
            title="advantage over the strongest baseline of each run")
    adv = j.measured.get("mean_advantage_points", [])
    summary = "MFedPBA − best baseline by unimodal fraction: " + ", ".join(
        f"{f:g}: {a:+.2f}" for f, a in zip(cfg.fractions, adv)) + " points" if adv else j.reason
    return ClaimResult.judged(j, summary=summary, rows=_strip(rows), figures=[
        render(fig, name="accuracy_vs_imbalance", caption="Mean client accuracy per method against the fraction of "
               "unimodal clients."),
        render(fig2, name="advantage_vs_imbalance", caption="MFedPBA minus the best baseline of the same seed, "
               "per seed (grey) and mean (blue), against the fraction of unimodal clients.")])


def check_both_alignments_contribute(cfg: AblationConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P09]: the dual (feature- and decision-level) alignment is what makes MFedPBA robust: removing
    the Gromov-Wasserstein term, or replacing the entropy weights by uniform ones, costs accuracy."""
    methods = (FULL, *cfg.ablations)
    tasks = [RunTask(cfg.fed, True, cfg.unimodal_fraction, m, s) for m in methods for s in ctx.seeds]
    rows = _run(tasks, cfg.fed, ctx)
    j = judge_ablations(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, m in enumerate(cfg.ablations):
        d = j.measured.get("paired", {}).get(m, {}).get("diff_points", [])
        ax.scatter(np.full(len(d), i), d, color="k", s=14, zorder=3)
        if d:
            ax.bar(i, float(np.mean(d)), color="C0", width=0.6)
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xticks(range(len(cfg.ablations)), [LABELS.get(m, m) for m in cfg.ablations])
    ax.set(ylabel="MFedPBA − ablation (points)", title="cost of removing a component (paired by seed)")
    summary = ", ".join(f"{LABELS.get(m, m)} {_mean(rows, method=m):.2f}" for m in methods) + " (mean accuracy, %)"
    return ClaimResult.judged(j, summary=summary, rows=_strip(rows), figures=[
        render(fig, name="ablation_cost", caption="Accuracy lost by each ablation, per seed (dots) and mean (bar).")])
