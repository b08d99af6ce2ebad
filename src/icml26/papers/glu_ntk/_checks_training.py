"""What the [P21] claims on training measure: the loss crossing (linearised and trained) and the generalisation gap on
digits, with their figures. The digits runs (:func:`digits_runs`) are shared with ``faster_convergence`` (run group
``digits``). The verdicts come from :mod:`icml26.papers.glu_ntk._rules`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.glu_ntk._models import GLU_PAIRS, make_mlp
from icml26.papers.glu_ntk._ntk import (
    empirical_ntk,
    linearized_gd_losses,
    loss_crossing,
    ntk_spectrum_stats,
    steps_to_target,
)
from icml26.papers.glu_ntk._rules import judge_crossing, judge_gap
from icml26.papers.glu_ntk._train import (
    ClassifierHistory,
    digits_split,
    gaussian_regression_task,
    train_classifier,
    train_regression,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.glu_ntk.claims import CrossingConfig, GapConfig


def _linearized_run(cfg: CrossingConfig, task: Any, seed: int, width: int, act: str
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Linearised GD of one pair under the shared η = 1/max λ_max, until both reach ``rel_target``·loss_0."""
    Ks = {t: empirical_ntk(make_mlp(k, in_dim=cfg.d, width=width, seed=seed), task.X)
          for t, k in (("non", act), ("glu", GLU_PAIRS[act]))}
    eta = 1.0 / max(ntk_spectrum_stats(K).lambda_max for K in Ks.values())
    horizon = max(steps_to_target(K, -task.y, eta=eta, rel_target=cfg.rel_target, max_steps=cfg.max_horizon)
                  or cfg.max_horizon for K in Ks.values())
    horizon = max(horizon, 1)
    ls = {t: linearized_gd_losses(K, -task.y, eta=eta, steps=horizon) for t, K in Ks.items()}
    t_x = loss_crossing(ls["non"], ls["glu"])
    rel = None if t_x is None else float(ls["non"][t_x] / ls["non"][0])
    return ({"setting": "linearized", "seed": seed, "width": width, "activation": act, "horizon": horizon,
             "crossing_step": t_x, "rel_loss_at_crossing": rel}, ls)


def _trained_run(cfg: CrossingConfig, task: Any, seed: int, act: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """SGD of one pair at the shared learning rate on the Gaussian regression task."""
    ls = {t: train_regression(make_mlp(k, in_dim=cfg.d, width=cfg.train_width, seed=seed, dtype=torch.float32), task,
                              lr=cfg.lr, epochs=cfg.epochs, batch_size=cfg.batch_size, seed=seed)
          for t, k in (("non", act), ("glu", GLU_PAIRS[act]))}
    t_x = loss_crossing(ls["non"], ls["glu"], margin=cfg.margin)
    return ({"setting": "trained", "seed": seed, "activation": act, "crossing_epoch": t_x,
             "final_loss_non": float(ls["non"][-1]), "final_loss_glu": float(ls["glu"][-1]),
             "early_loss_non": float(ls["non"][len(ls["non"]) // 10]),
             "early_loss_glu": float(ls["glu"][len(ls["glu"]) // 10])}, ls)


def _crossing_runs(cfg: CrossingConfig, seeds: tuple[int, ...]
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, np.ndarray]]:
    lin: list[dict[str, Any]] = []
    tr: list[dict[str, Any]] = []
    curves: dict[str, np.ndarray] = {}
    for seed in seeds:
        task = gaussian_regression_task(cfg.n, cfg.d, seed=10_000 + seed)
        for width in cfg.widths:
            for act in cfg.activations:
                row, ls = _linearized_run(cfg, task, seed, width, act)
                lin.append(row)
                if seed == seeds[0] and width == max(cfg.widths) and act == cfg.activations[0]:
                    curves["lin_non"], curves["lin_glu"] = ls["non"], ls["glu"]
        big = gaussian_regression_task(cfg.train_n, cfg.d, seed=20_000 + seed)
        for act in cfg.train_activations:
            row, ls = _trained_run(cfg, big, seed, act)
            tr.append(row)
            if seed == seeds[0] and act == cfg.train_activations[0]:
                curves["tr_non"], curves["tr_glu"] = ls["non"], ls["glu"]
    return lin, tr, curves


def _crossing_figures(cfg: CrossingConfig, curves: dict[str, np.ndarray], seed: int) -> list[FigureData]:
    figs = []
    for key, name, xl in (("lin", "crossing_linearized", "GD step (shared η = 1/max λ_max)"),
                          ("tr", "crossing_trained", "SGD epoch (shared lr)")):
        fig, ax = new_figure()
        a = cfg.activations[0] if key == "lin" else cfg.train_activations[0]
        ax.semilogy(curves[f"{key}_non"], label=a)
        ax.semilogy(curves[f"{key}_glu"], label=GLU_PAIRS[a], ls="--")
        ax.set_xlabel(xl)
        ax.set_ylabel("train loss ½·mean r²")
        ax.legend()
        figs.append(render(fig, name=name, caption=f"Loss curves of seed {seed} ({key})."))
    return figs


def check_loss_crossing(cfg: CrossingConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P21] (loss crossing): under one shared step size non-GLU's loss is lower early, GLU's later.

    Two settings: linearised GD on the initial NTK of every (activation, width, seed) pair, and SGD on the authors'
    Gaussian regression task (scaled down); a crossing is the first point from which GLU stays ahead to the end,
    after non-GLU was ahead.
    """
    lin, tr, curves = _crossing_runs(cfg, ctx.seeds)
    j = judge_crossing([r["crossing_step"] for r in lin], [r["crossing_epoch"] for r in tr], bars=ctx.bars)
    final_ratio = float(np.median([r["final_loss_glu"] / r["final_loss_non"] for r in tr]))
    rels = [r["rel_loss_at_crossing"] for r in lin if r["rel_loss_at_crossing"] is not None]
    summary = (f"crossing in {j.measured['linearized_crossing_share']:.0%} of {len(lin)} linearised runs, "
               f"{j.measured['trained_crossing_share']:.0%} of {len(tr)} trained runs (median final loss GLU/non-GLU "
               f"{final_ratio:.2f})")
    measured = {"median_final_loss_ratio_glu_over_non": final_ratio,
                "trained_crossing_epochs": [r["crossing_epoch"] for r in tr],
                "median_linearized_crossing_rel_loss": float(np.median(rels)) if rels else None}
    return ClaimResult.judged(
        j, summary=summary, measured=measured, rows=lin + tr, figures=_crossing_figures(cfg, curves, ctx.seeds[0]),
        notes="Trained part scaled down (N=1000, hidden 500 vs the authors' 2000/1000) at the authors' number of SGD "
              "steps; a crossing after the last epoch is not seen.")


def _gap_row(cfg: GapConfig, data: Any, seed: int, act: str) -> tuple[dict[str, Any], dict[str, ClassifierHistory]]:
    row: dict[str, Any] = {"seed": seed, "activation": act}
    hists = {}
    for tag, kind in (("non", act), ("glu", GLU_PAIRS[act])):
        net = make_mlp(kind, in_dim=64, width=cfg.width, out_dim=10, seed=seed, dtype=torch.float32)
        h = train_classifier(net, data, epochs=cfg.epochs, batch_size=cfg.batch_size, seed=seed)
        e = h.first_epoch_below(cfg.train_loss_mark)
        row.update({f"epochs_{tag}": e, f"gap_{tag}": None if e is None else float(h.test_loss[e] - h.train_loss[e]),
                    f"test_acc_{tag}": float(h.test_acc[-1]),
                    f"final_gap_{tag}": float(h.test_loss[-1] - h.train_loss[-1])})
        hists[kind] = h
    return row, hists


def digits_figure(hists: dict[str, ClassifierHistory], mark: float, seed: int) -> FigureData:
    fig, ax = new_figure()
    for (kind, h), ls in zip(hists.items(), ("-", "--")):
        ax.plot(h.train_loss, ls=ls, color="C0", label=f"{kind} train")
        ax.plot(h.test_loss, ls=ls, color="C1", label=f"{kind} test")
    ax.axhline(mark, color="k", lw=0.8, ls=":")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("cross-entropy (nats)")
    ax.legend(fontsize=8)
    return render(fig, name="digits_curves", caption=f"Digits, seed {seed}: train/test loss.")


def digits_runs(cfg: GapConfig, seeds: tuple[int, ...]) -> tuple[list[dict[str, Any]], dict[str, ClassifierHistory]]:
    """One row per (seed, activation pair) of digits training (:func:`_gap_row`), and the first pair's histories; the
    run group ``digits`` (``gap_not_reduced``, ``faster_convergence``) computes it once through ``ctx.shared``."""
    rows: list[dict[str, Any]] = []
    first: dict[str, ClassifierHistory] = {}
    for seed in seeds:
        data = digits_split(seed=seed, n_max=cfg.n_max)
        for act in cfg.activations:
            row, hists = _gap_row(cfg, data, seed, act)
            rows.append(row)
            first = first or hists
    return rows, first


def check_gap_not_reduced(cfg: GapConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P21]: GLU speeds up optimisation but barely changes the generalisation gap.

    Gap = test − train cross-entropy at the first epoch where the train loss is <= ``train_loss_mark``; speed = epochs
    to that mark (a miss censored at ``epochs + 1``).
    """
    rows, first = ctx.shared(digits_runs, cfg, ctx.seeds)
    j = judge_gap(rows, bars=ctx.bars, epochs=cfg.epochs)
    m = j.measured
    g, s = m["gap_ratio_glu_over_non"], m["epochs_ratio"]
    gap_txt = "undefined" if g is None else f"{g[0]:.2f} [{g[1]:.2f}, {g[2]:.2f}]"
    means = "" if g is None else f"; mean gaps {m['mean_gap_glu']:.3f} vs {m['mean_gap_non']:.3f} nats"
    summary = (f"gap_GLU/gap_nonGLU = {gap_txt} at train loss {cfg.train_loss_mark:g} ({m['gap_runs']}/{m['runs']} "
               f"pairs{means}); epochs non-GLU/GLU = {s[0]:.2f} [{s[1]:.2f}, {s[2]:.2f}] (misses censored at "
               f"{cfg.epochs + 1}: non-GLU {m['censored_non']}, GLU {m['censored_glu']})")
    acc = {"mean_test_acc_non": float(np.mean([r["test_acc_non"] for r in rows])),
           "mean_test_acc_glu": float(np.mean([r["test_acc_glu"] for r in rows]))}
    return ClaimResult.judged(
        j, summary=summary, measured=acc, rows=rows, figures=[digits_figure(first, cfg.train_loss_mark, ctx.seeds[0])],
        notes="Digits and a two-layer MLP stand in for the paper's ViT / GPT-2 / Mixer runs.")
