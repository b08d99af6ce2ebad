"""Figures of the [P23] claims, drawn from the run rows of :mod:`._runs` (nothing is computed here but means)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from icml26.figures import FigureData, new_figure, render

__all__ = ["LABELS", "compute_figure", "extrapolation_figure", "profile_figure", "timing_figure"]

LABELS = {"anira_e": "ANIRA-E", "anira_o_act": "ANIRA-O (ACT)", "anira_o_ponder": "ANIRA-O (PonderNet)",
          "fixed": "fixed depth T", "fixed_matched": "fixed depth (matched)", "mod": "Mixture-of-Depths (matched)"}


def _methods(rows: Sequence[dict[str, Any]], task: str) -> list[str]:
    seen = [r["method"] for r in rows if r["task"] == task]
    return [m for m in LABELS if m in seen]


def _profile(rows: Sequence[dict[str, Any]], task: str, method: str, key: str, col: int) -> tuple[list[int], list[float]]:
    """Mean over seeds of column ``col`` of the per-difficulty profile ``key`` (levels present in every seed)."""
    profs = [r[key] for r in rows if r["task"] == task and r["method"] == method]
    levels = sorted(set.intersection(*(set(p) for p in profs)), key=int)
    return [int(k) for k in levels], [float(np.mean([p[k][col] for p in profs])) for k in levels]


def profile_figure(rows: Sequence[dict[str, Any]], task: str, *, col: int, ylabel: str, name: str,
                   caption: str) -> FigureData:
    """Depth (``col=0``) or accuracy (``col=1``) against difficulty, in distribution (solid) and beyond (dashed)."""
    fig, ax = new_figure(width=7.0, height=4.2)
    for i, m in enumerate(_methods(rows, task)):
        x, y = _profile(rows, task, m, "id_profile", col)
        ax.plot(x, y, marker="o", color=f"C{i}", label=LABELS[m])
        xo, yo = _profile(rows, task, m, "ood_profile", col)
        ax.plot(xo, yo, ls="--", marker=".", color=f"C{i}", alpha=0.7)
    ax.set(xlabel="ground-truth difficulty (never shown to the model)", ylabel=ylabel,
           title=f"{task}: solid = training lengths, dashed = longer inputs")
    ax.legend(fontsize=9)
    return render(fig, name=name, caption=caption)


def extrapolation_figure(rows: Sequence[dict[str, Any]], task: str) -> FigureData:
    """Accuracy against mean depth per method, in distribution and on the longer inputs (one point per seed)."""
    fig, ax = new_figure(width=7.0, height=4.2)
    for i, m in enumerate(_methods(rows, task)):
        sel = [r for r in rows if r["task"] == task and r["method"] == m]
        ax.scatter([r["id_depth"] for r in sel], [100 * r["id_accuracy"] for r in sel], color=f"C{i}", marker="o",
                   label=f"{LABELS[m]} (ID)")
        ax.scatter([r["ood_depth"] for r in sel], [100 * r["ood_accuracy"] for r in sel], color=f"C{i}", marker="x",
                   label=f"{LABELS[m]} (OOD)")
    ax.set(xlabel="mean iterations per token", ylabel="accuracy (%)", ylim=(-2, 102),
           title=f"{task}: o = training lengths, x = longer inputs")
    ax.legend(fontsize=9, ncol=2)
    return render(fig, name=f"{task}_accuracy_vs_depth_id_ood",
                  caption=f"{task}: accuracy against mean depth per seed, in distribution (o) and on longer "
                          "inputs (x), for each method.")


def compute_figure(rows: Sequence[dict[str, Any]], task: str) -> FigureData:
    """In-distribution accuracy against mean iterations per token, one small point per seed and a large one for the
    mean over seeds, for every method (the adaptive ones and the baselines at matched compute)."""
    fig, ax = new_figure(width=7.0, height=4.2)
    for i, m in enumerate(_methods(rows, task)):
        sel = [r for r in rows if r["task"] == task and r["method"] == m]
        x, y = [r["id_depth"] for r in sel], [100 * r["id_accuracy"] for r in sel]
        ax.scatter(x, y, color=f"C{i}", s=12, alpha=0.6)
        ax.scatter([np.mean(x)], [np.mean(y)], color=f"C{i}", s=70, marker="D", label=LABELS[m], edgecolor="k")
    ax.set(xlabel="mean iterations per token (in distribution)", ylabel="accuracy (%)",
           title=f"{task}: accuracy against compute")
    ax.legend(fontsize=9)
    return render(fig, name=f"{task}_accuracy_vs_compute",
                  caption=f"{task}: in-distribution accuracy against mean iterations per token, per method (small "
                          "points: seeds; diamonds: means). The matched baselines run the adaptive methods' mean "
                          "depth: fixed at that depth (rounded), Mixture-of-Depths at capacity mean depth / T.")


def timing_figure(rows: Sequence[dict[str, Any]], task: str) -> FigureData:
    """R^2 of depth on static and on execution-state features, per method (mean over seeds, dots per seed)."""
    fig, ax = new_figure(width=6.5, height=4.0)
    methods = _methods(rows, task)
    for j, (key, label) in enumerate((("r2_static", "static features"), ("r2_state", "execution-state features"))):
        xs = np.arange(len(methods)) + 0.2 * (2 * j - 1)
        vals = [[r[key] for r in rows if r["task"] == task and r["method"] == m] for m in methods]
        ax.bar(xs, [np.mean(v) for v in vals], width=0.4, color=f"C{j}", alpha=0.6, label=label)
        for x, v in zip(xs, vals):
            ax.scatter([x] * len(v), v, color="k", s=10)
    ax.set_xticks(np.arange(len(methods)), [LABELS[m] for m in methods])
    ax.set(ylabel="R² of per-token depth", ylim=(0, 1), title=f"{task}: what explains the depth decisions")
    ax.legend()
    return render(fig, name=f"{task}_r2_static_vs_state",
                  caption=f"{task}: R² of per-token depth regressed on static features (in/out-degree, graph size) "
                          "and on execution-state features (Kahn round, frontier size, enabled children, remaining "
                          "nodes), per method; bars are means over seeds, dots single seeds.")
