"""What the [P01] claims measure: capacity sweeps on random tokens and on a Markov chain, and their figures.

The verdicts come from :mod:`icml26.papers.capacity._rules`; this module trains, measures and draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.capacity._rules import judge_bits_per_param, judge_mia, judge_rise_then_fall, seed_table
from icml26.papers.capacity._sweep import CapacitySweep, capacity_sweep
from icml26.papers.capacity._train import make_model

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.capacity.claims import SweepConfig

#: [P01] Abstract: 3.6 bits/param. Used only to place the dataset sizes around the paper's capacity, before any run.
PAPER_ALPHA = 3.6
FULL_REASON = ("the paper's scale (500K-1.5B-parameter GPT-2 models trained to saturation, ~1e6 steps, hundreds of "
               "models) needs GPU-weeks; this CPU package trains 0.3K-4K-parameter models")
Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


def n_params(n_layer: int, d_model: int, vocab_size: int, seq_len: int) -> int:
    """Every parameter of the :func:`make_model` GPT of this size (embeddings included)."""
    return make_model(n_layer, d_model, vocab_size=vocab_size, seq_len=seq_len, seed=0).n_params()


def _unsupported() -> ClaimResult:
    return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")


def uniform_dataset_sizes(cfg: SweepConfig) -> dict[tuple[int, int], list[int]]:
    """Per model size, the dataset sizes at ``cfg.multiples`` × the paper's capacity 3.6·P bits (nothing tuned on ours)."""
    bits_per_seq = cfg.seq_len * math.log2(cfg.vocab_size)
    sizes = {}
    for L, d in cfg.model_sizes:
        cap = PAPER_ALPHA * n_params(L, d, cfg.vocab_size, cfg.seq_len)
        sizes[(L, d)] = sorted({max(2, round(m * cap / bits_per_seq)) for m in cfg.multiples})
    return sizes


def _capacity_figure(sweep: CapacitySweep, plateaus: list[dict[str, Any]], alpha: float) -> FigureData:
    fig, _ = new_figure(width=10, height=4)
    fig.clear()
    ax1, ax2 = fig.subplots(1, 2)
    for L, d in sorted({(r["n_layer"], r["d_model"]) for r in sweep.rows}):
        rs = [r for r in sweep.rows if (r["n_layer"], r["d_model"]) == (L, d)]
        ax1.plot([r["dataset_bits"] for r in rs], [r["mem_bits"] for r in rs], "o", alpha=0.6,
                 label=f"L{L} d{d} ({rs[0]['n_params']} params)")
        ax1.axhline(alpha * rs[0]["n_params"], ls=":", color="gray")
    ax1.set(xlabel="dataset bits N·S·log2 V", ylabel="memorised bits mem(D)", xscale="log")
    ax1.legend(fontsize=7)
    P = np.array([p["n_params"] for p in plateaus])
    C = np.array([p["capacity_bits"] for p in plateaus])
    ax2.plot(P, C, "o", label="plateau (size, seed)")
    grid = np.linspace(0, P.max() * 1.1, 10)
    ax2.plot(grid, alpha * grid, "-", label=f"α = {alpha:.2f} bits/param")
    ax2.plot(grid, PAPER_ALPHA * grid, "--", label=f"paper {PAPER_ALPHA}")
    ax2.set(xlabel="parameters", ylabel="capacity (bits)")
    ax2.legend(fontsize=7)
    return render(fig, name="capacity_vs_params", caption="mem(D) vs dataset size (left); plateau vs parameters")


def check_bits_per_param(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Abstract / Sec. 5 of [P01]: on uniform random sequences mem(D) plateaus as N grows, at a capacity proportional
    to the parameter count, α ≈ 3.6 bits/param. Models of every size are trained to saturation on N at fixed
    multiples of the paper's capacity; the plateau per (size, seed) is the largest mem(D) over N."""
    if cfg.full_scale:
        return _unsupported()
    sweep = capacity_sweep(cfg.model_sizes, uniform_dataset_sizes(cfg), seeds=ctx.seeds, vocab_size=cfg.vocab_size,
                           seq_len=cfg.seq_len, data="uniform", train=cfg.train, mapper=ctx.map)
    plateaus = sweep.plateaus()
    fit = sweep.fit(seed=ctx.seeds[0])
    rule_rows = [{"size": f"L{p['n_layer']}d{p['d_model']}", "seed": p["seed"], "last_ratio": p["last_ratio"],
                  "on_plateau": p["all_trained_to_plateau"]} for p in plateaus]
    j = judge_bits_per_param(rule_rows, alpha=fit.alpha, r2=fit.r2, slope=fit.slope, bars=ctx.bars)
    a = fit.alpha
    return ClaimResult.judged(
        j, summary=(f"α = {a.value:.2f} [{a.lo:.2f}, {a.hi:.2f}] bits/param vs the paper's {PAPER_ALPHA}; "
                    f"proportionality: R² = {fit.r2:.3f}, log-log slope {fit.slope:.2f}; mem(N_max)/mem(N_prev) "
                    + ", ".join(f"{k} {v:.2f}" for k, v in j.measured["saturation_ratios"].items())),
        measured={"capacity_bits": {f"L{p['n_layer']}d{p['d_model']}s{p['seed']}": p["capacity_bits"]
                                    for p in plateaus}},
        rows=sweep.rows, figures=[_capacity_figure(sweep, plateaus, a.value)],
        notes="dataset sizes placed at fixed multiples of the paper's 3.6·P bits; every parameter counted "
              "(embeddings included)")


def markov_sweep(cfg: SweepConfig, seeds: tuple[int, ...], mapper: Mapper | None) -> list[dict[str, Any]]:
    """The rows of the Markov sweep shared by ``rise_then_fall`` and ``mia_to_chance`` (one run group)."""
    L, d = cfg.model_sizes[0]
    return capacity_sweep([(L, d)], list(cfg.n_sequences), seeds=seeds, vocab_size=cfg.vocab_size,
                          seq_len=cfg.seq_len, data="markov", concentration=cfg.concentration, train=cfg.train,
                          mapper=mapper).rows


def _markov_rows(cfg: SweepConfig, ctx: Context) -> list[dict[str, Any]] | None:
    """The Markov sweep shared by the group's two claims (``None`` at the paper's scale: not runnable here)."""
    return None if cfg.full_scale else ctx.shared(markov_sweep, cfg, ctx.seeds, ctx.mapper)


def check_rise_then_fall(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Sec. 6 of [P01]: on a generalisable distribution, unintended memorisation (against the exact chain) rises with
    N while the data fits in the capacity, then falls as the model generalises."""
    rows = _markov_rows(cfg, ctx)
    if rows is None:
        return _unsupported()
    j = judge_rise_then_fall(rows, bars=ctx.bars)
    ns, _, mem = seed_table(rows, "mem_bits")
    held = seed_table(rows, "mem_bits_heldout")[2].mean(0)
    gap = (seed_table(rows, "test_bits_per_token")[2] - seed_table(rows, "ref_bits_per_token")[2]).mean(0)
    fig, ax = new_figure()
    ax.errorbar(ns, mem.mean(0), yerr=mem.std(0), fmt="o-", label="mem_U(train) (seed mean ± sd)")
    ax.plot(ns, held, "s--", label="same statistic on held-out sequences")
    ax.set(xscale="log", xlabel="training sequences N", ylabel="unintended memorisation (bits)")
    ax.legend(fontsize=8)
    return ClaimResult.judged(
        j, summary=(f"mem_U by N {ns}: {np.round(mem.mean(0)).astype(int).tolist()} bits; held-out control "
                    f"{np.round(held).astype(int).tolist()} bits; test−H gap {np.round(gap, 2).tolist()} bits/tok"),
        measured={"mem_heldout_mean": held.tolist(), "test_minus_entropy_bits_per_token": gap.tolist(),
                  "dataset_bits_mean": seed_table(rows, "dataset_bits")[2].mean(0).tolist()},
        rows=rows, figures=[render(fig, name="markov_memorisation", caption="unintended memorisation vs N")],
        notes="reference = the exact generating Markov chain (the paper uses a larger model trained on more data)")


def check_mia_to_chance(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Sec. 6 of [P01]: loss-threshold membership inference weakens as data/capacity grows, toward chance (AUC 0.5)."""
    rows = _markov_rows(cfg, ctx)
    if rows is None:
        return _unsupported()
    j = judge_mia(rows, bars=ctx.bars)
    ns, _, auc = seed_table(rows, "mia_auc")
    f1 = seed_table(rows, "mia_f1")[2].mean(0)
    bits = seed_table(rows, "dataset_bits")[2].mean(0)
    fig, ax = new_figure()
    ax.plot(bits, auc.mean(0), "o-", label="AUC")
    ax.plot(bits, f1, "s--", label="F1 (median threshold)")
    ax.axhline(0.5, color="gray", ls=":")
    ax.set(xscale="log", xlabel="dataset bits (exact)", ylabel="membership inference")
    ax.legend(fontsize=8)
    return ClaimResult.judged(
        j, summary=f"MIA AUC by N {ns}: {np.round(auc.mean(0), 3).tolist()}; F1 {np.round(f1, 3).tolist()}",
        measured={"f1_mean": f1.tolist()}, rows=rows,
        figures=[render(fig, name="mia_auc", caption="loss-threshold MIA vs dataset size")])
