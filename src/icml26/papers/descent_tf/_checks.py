"""What the [P07] claims measure: one table of runs (task × method × seed, shared by the group ``runs``), and its
figures. The verdicts come from :mod:`._rules`; this module only runs the experiments and draws."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import STYLE, FigureData, new_figure, render
from icml26.papers.descent_tf._experiments import all_rows
from icml26.papers.descent_tf._rules import (
    gains,
    judge_in_distribution,
    judge_monotone,
    judge_ood,
    judge_perturbation,
    monotone_count,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.descent_tf.claims import DescentConfig

COLORS = {"erm": "C0", "constrained": "C3", "deep_supervision": "C2"}
LABELS = {"erm": "ERM", "constrained": "constrained", "deep_supervision": "deep supervision"}
METRIC = {"nmse": "test NMSE (lower is better)", "accuracy": "test accuracy (higher is better)"}


def _runs(cfg: DescentConfig, ctx: Context) -> list[dict[str, Any]]:
    return ctx.shared(all_rows, cfg, tuple(ctx.seeds))


def _strip(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "history"} for r in rows]


def _panels(n: int, *, height: float = 3.4) -> tuple[Any, list[Any]]:
    import matplotlib

    fig, ax = new_figure(width=3.7 * n, height=height)
    fig.delaxes(ax)
    with matplotlib.rc_context(dict(STYLE)):  # type: ignore[arg-type]
        axes = [fig.add_subplot(1, n, i + 1) for i in range(n)]
    return fig, axes


def _log_y(ax: Any) -> None:
    """A log y axis with plain tick labels (no mathtext: it is slow to lay out)."""
    from matplotlib.ticker import FormatStrFormatter, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _tasks(rows: Sequence[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(str(r["task"]) for r in rows))


def _layer_figure(rows: Sequence[dict[str, Any]], field: str, name: str, caption: str) -> FigureData:
    tasks = _tasks(rows)
    fig, axes = _panels(len(tasks))
    for ax, t in zip(axes, tasks):
        for m in dict.fromkeys(r["method"] for r in rows):
            curves = np.array([r[field] for r in rows if r["task"] == t and r["method"] == m])
            layers = np.arange(curves.shape[1])
            ax.plot(layers, curves.mean(0), marker="o", ms=3, color=COLORS.get(m), label=LABELS.get(m, m))
            ax.fill_between(layers, curves.min(0), curves.max(0), color=COLORS.get(m), alpha=0.15, lw=0)
        _log_y(ax)
        ax.set(xlabel="layer l", ylabel="test loss ℓ_l of D(z_l)", title=t)
    axes[0].legend()
    return render(fig, name=name, caption=caption)


def _history_figure(rows: Sequence[dict[str, Any]], *, duals: bool) -> FigureData:
    tasks = _tasks(rows)
    first = min(int(r["seed"]) for r in rows)
    fig, axes = _panels(len(tasks))
    for ax, t in zip(axes, tasks):
        for r in rows:
            if r["task"] != t or int(r["seed"]) != first:
                continue
            if duals and r["method"] == "constrained":
                lam = np.array(r["history"]["lambdas"])
                for i in range(lam.shape[1]):
                    ax.plot(np.arange(1, len(lam) + 1), lam[:, i], label=f"λ_{i + 1}", color=f"C{i % 10}")
            elif not duals:
                curve = [v[-1] for v in r["history"]["layer_losses"]]
                ax.plot(np.arange(1, len(curve) + 1), curve, color=COLORS.get(r["method"]),
                        label=LABELS.get(r["method"], r["method"]))
        if not duals:
            _log_y(ax)
        ax.set(xlabel="epoch", ylabel="λ_l at the epoch's end" if duals else "train loss of the last layer", title=t)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(ncol=2 if duals else 1)
    kind = "dual_variables" if duals else "training_curves"
    caption = (f"Dual variables λ_l of the constrained run per epoch (seed {first}); λ_l > 0 marks an active "
               "constraint ℓ_l ≤ (1 − ε) ℓ_{l−1}." if duals else
               f"Mean train loss of the last layer per epoch, each method (seed {first}).")
    return render(fig, name=kind, caption=caption)


def _dual_activity(rows: Sequence[dict[str, Any]]) -> str:
    """Per task: the largest λ_l at an epoch's end over the constrained runs, the share of epochs with some λ_l > 0,
    and the largest final λ_l (0: every constraint slack when training stopped)."""
    out = []
    for t in _tasks(rows):
        lams = [np.array(r["history"]["lambdas"]) for r in rows if r["task"] == t and r["method"] == "constrained"]
        if not lams:
            continue
        peak = max(float(x.max()) for x in lams)
        active = sum(int((x.max(1) > 0).sum()) for x in lams) / sum(len(x) for x in lams)
        final = max(float(x[-1].max()) for x in lams)
        out.append(f"{t}: max λ {peak:.3g}, some λ_l > 0 in {active:.0%} of epochs, max final λ {final:.3g}")
    return "; ".join(out)


def check_monotone_descent(cfg: DescentConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P07]: constrained models' per-layer test losses descend across layers (ERM's need not)."""
    rows = _runs(cfg, ctx)
    j = judge_monotone(rows, bars=ctx.bars)
    kc, nc = j.measured["constrained_pairs"]
    ke, ne = j.measured["erm_pairs"]
    ds = [monotone_count(r["layer_loss"]) for r in rows if r["method"] == "deep_supervision"]
    by = "; ".join(f"{t}: constrained {a}/{b}, ERM {c}/{d}" for t, (a, b), (c, d) in zip(
        j.measured["constrained_by_task"], j.measured["constrained_by_task"].values(),
        j.measured["erm_by_task"].values()))
    findings = {}
    if ds:
        findings["deep supervision (ours)"] = (f"{sum(a for a, _ in ds)}/{sum(b for _, b in ds)} non-increasing "
                                               "adjacent pairs")
    findings["dual activity (ours)"] = _dual_activity(rows)
    figures = [_layer_figure(rows, "layer_loss", "layer_losses", "Test loss of the shared readout at every layer "
                             "(mean over seeds, band: min to max), per task and method."),
               _history_figure(rows, duals=False), _history_figure(rows, duals=True)]
    return ClaimResult.judged(
        j, summary=(f"non-increasing adjacent pairs: constrained {kc}/{nc} ({kc / nc:.0%}), ERM {ke}/{ne} "
                    f"({ke / ne:.0%}); {by}"),
        rows=_strip(rows), figures=figures, findings=findings,
        notes=f"ε = {cfg.epsilon:g}, η_λ = {cfg.dual_lr:g} on every task; hard constraints (no slack); "
        "a shared readout D for all layers; losses on held-out data.")


def _gain_figure(rows: Sequence[dict[str, Any]], field: str, name: str, what: str) -> FigureData:
    tasks = _tasks(rows)
    fig, ax = new_figure(width=6.5, height=3.8)
    for i, t in enumerate(tasks):
        g = np.array(gains(rows, t, field))
        ax.scatter(np.full(len(g), i) + np.linspace(-0.08, 0.08, len(g)), g, color="C3", s=18,
                   label="constrained − ERM, per seed" if i == 0 else None)
        ax.scatter([i], [g.mean()], marker="_", s=400, color="k", label="mean" if i == 0 else None)
    ax.axhline(0.0, color="gray", lw=0.8, ls="--")
    ax.set_xticks(range(len(tasks)), [f"{t}\n({next(r['kind'] for r in rows if r['task'] == t)})" for t in tasks])
    ax.set(ylabel=f"gain over ERM, {what}\n(relative for NMSE, points for accuracy)")
    ax.legend()
    return render(fig, name=name, caption=f"Gain of the constrained model over ERM {what}, per seed and task "
                  "(> 0: constrained better).")


def _ds_finding(rows: Sequence[dict[str, Any]], field: str) -> dict[str, str]:
    if not any(r["method"] == "deep_supervision" for r in rows):
        return {}
    swapped = [{**r, "method": "constrained"} if r["method"] == "deep_supervision" else r
               for r in rows if r["method"] != "constrained"]
    text = ", ".join(f"{t} {np.mean(gains(swapped, t, field)):+.3f}" for t in _tasks(rows))
    return {"deep supervision − ERM (ours)": f"mean gain on {field}: {text}"}


def _means(rows: Sequence[dict[str, Any]], field: str) -> str:
    out = []
    for t in _tasks(rows):
        vals = {m: np.mean([r[field] for r in rows if r["task"] == t and r["method"] == m])
                for m in dict.fromkeys(r["method"] for r in rows)}
        out.append(f"{t}: " + ", ".join(f"{LABELS.get(m, m)} {v:.4f}" for m, v in vals.items()))
    return "; ".join(out)


def _gain_check(cfg: DescentConfig, ctx: Context, field: str, what: str, judge: Any) -> ClaimResult:
    rows = _runs(cfg, ctx)
    j = judge(rows, bars=ctx.bars)
    per = j.measured.get("gains_by_seed", {})
    summary = "mean gain over ERM: " + ", ".join(f"{t} {np.mean(g):+.4f} (seeds {', '.join(f'{x:+.3f}' for x in g)})"
                                                  for t, g in per.items())
    findings = _ds_finding(rows, field)
    if field == "perturbed":
        drop = ", ".join(f"{t} {LABELS[m]} {np.mean([r['perturbed'] - r['id'] for r in rows if r['task'] == t and r['method'] == m]):+.4f}"
                         for t in _tasks(rows) for m in ("erm", "constrained"))
        findings["metric change under the perturbation (ours)"] = drop
    return ClaimResult.judged(j, summary=summary, rows=_strip(rows),
                              figures=[_gain_figure(rows, field, f"{field}_gain", what)], findings=findings,
                              notes=f"metric means per task and method {what}: {_means(rows, field)}")


def check_in_distribution(cfg: DescentConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P07]: in-distribution performance of the constrained model stays competitive with ERM's."""
    return _gain_check(cfg, ctx, "id", "in distribution", judge_in_distribution)


def check_perturbation_robustness(cfg: DescentConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P07]: the constrained model degrades less than ERM under a perturbation of a middle state."""
    return _gain_check(cfg, ctx, "perturbed", f"with the layer-L/2 state perturbed ({cfg.perturb_scale:g} × RMS)",
                       judge_perturbation)


def check_ood_generalization(cfg: DescentConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P07]: the constrained model generalises better than ERM out of distribution."""
    return _gain_check(cfg, ctx, "ood", "out of distribution", judge_ood)
