"""What the data-saturation claim of [P37] measures: tiny models trained with SET at several densities on fresh and on
repeated Markov data over 1-16 epochs, R_D*(s) fitted per seed, and the figure.

The verdict comes from :mod:`._rules`; this module trains, fits and draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.sparse_scaling._markov import markov_corpus
from icml26.papers.sparse_scaling._repetition import fit_repetition
from icml26.papers.sparse_scaling._rules import judge_delayed_saturation
from icml26.papers.sparse_scaling._train import RunConfig, saturation_run

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.sparse_scaling.claims import SaturationConfig

FULL_REASON = ("the paper's scale (LLaMA models of 20M-1.92B parameters on up to 2.6B unique C4 tokens for 16 "
               "epochs) needs a GPU cluster")
KINDS = ("fresh", "repeated")


def run_task(task: tuple[Any, ...]) -> list[dict[str, Any]]:
    """One (density, kind, seed) run on the claim's chain; the validation set is shared by every run."""
    vocab, order, concentration, corpus_seed, run, density, kind, seed = task
    chain = markov_corpus(vocab=vocab, order=order, concentration=concentration, seed=corpus_seed)
    rows = saturation_run(chain, run, density=density, kind=kind, seed=seed, val_seed=corpus_seed + 1_000_003)
    return [{**r, "seed": seed, "floor": chain.entropy_floor} for r in rows]


def fit_seeds(curves: list[dict[str, Any]], *, betas: tuple[float, ...] = (0.1, 0.3, 0.6),
              half_lives: tuple[float, ...] = (1.0, 4.0, 16.0)) -> list[dict[str, Any]]:
    """Per seed, :func:`fit_repetition` on that seed's fresh and repeated runs: one row per (seed, density)."""
    out = []
    for seed in sorted({r["seed"] for r in curves}):
        mine = [r for r in curves if r["seed"] == seed]
        fit = fit_repetition({"s": [r["density"] for r in mine], "U": [r["U"] for r in mine],
                              "D": [r["D"] for r in mine], "loss": [r["val_loss"] for r in mine]},
                             betas=betas, half_lives=half_lives)
        out += [{"seed": seed, "density": d, "R_D_star": fit.R_D_star[d], "at_bound": fit.at_bound[d],
                 "K": fit.K[d], "B": fit.B[d], "beta": fit.beta, "r2": fit.r2} for d in fit.densities]
    return out


def _mean_curve(curves: list[dict[str, Any]], density: float, kind: str) -> tuple[np.ndarray, np.ndarray]:
    sel = [r for r in curves if r["density"] == density and r["kind"] == kind]
    epochs = np.array(sorted({r["epochs"] for r in sel}))
    return epochs, np.array([np.mean([r["val_loss"] for r in sel if r["epochs"] == e]) for e in epochs])


def gain_kept(curves: list[dict[str, Any]], density: float) -> float:
    """Model-free: (L_rep(1) − L_rep(E)) / (L_fresh(1) − L_fresh(E)) at the last epoch count E, seed means: the share
    of what fresh data gains over the run that repeating the unique data still gains."""
    _, fresh = _mean_curve(curves, density, "fresh")
    _, rep = _mean_curve(curves, density, "repeated")
    return float((rep[0] - rep[-1]) / (fresh[0] - fresh[-1]))


def gaps(curves: list[dict[str, Any]], density: float) -> dict[int, list[float]]:
    """Model-free: repeated − fresh validation loss per epoch count, one value per seed (0 at one epoch)."""
    by = {(r["seed"], r["kind"], r["epochs"]): r["val_loss"] for r in curves if r["density"] == density}
    seeds = sorted({k[0] for k in by})
    epochs = sorted({k[2] for k in by})
    return {e: [by[s, "repeated", e] - by[s, "fresh", e] for s in seeds] for e in epochs}


def _figure(curves: list[dict[str, Any]], densities: tuple[float, ...], fits: list[dict[str, Any]]) -> FigureData:
    fig, _ = new_figure(width=10, height=4)
    fig.clear()
    ax1, ax2 = fig.subplots(1, 2)
    for i, d in enumerate(densities):
        r_mean = np.mean([f["R_D_star"] for f in fits if f["density"] == d])
        for kind, ls in zip(KINDS, ("--", "-")):
            ep, loss = _mean_curve(curves, d, kind)
            ax1.plot(ep, loss, ls, marker="o", color=f"C{i}",
                     label=f"s={d:g} {kind}" + (f" (R_D* {r_mean:.1f})" if kind == "repeated" else ""))
        g = gaps(curves, d)
        ep = np.array(list(g))
        for k in range(len(next(iter(g.values())))):
            ax2.plot(ep, [g[e][k] for e in ep], "o", color=f"C{i}", alpha=0.4)
        ax2.plot(ep, [np.mean(g[e]) for e in ep], "-", color=f"C{i}", label=f"s={d:g} (seed mean; dots: seeds)")
    ax1.axhline(curves[0]["floor"], color="gray", lw=0.8, ls=":", label="entropy floor")
    ax1.set(xscale="log", xlabel="epochs over U (fresh: as many new tokens)", ylabel="validation loss (nats/token)",
            title="repeated vs fresh data by density (seed means)")
    ax1.legend(fontsize=7)
    ax2.axhline(0.0, color="gray", lw=0.8)
    ax2.set(xscale="log", xlabel="epochs", ylabel="repeated − fresh loss (nats/token)",
            title="what repetition costs against fresh data")
    ax2.legend(fontsize=7)
    epochs = sorted({r["epochs"] for r in curves})
    for ax in (ax1, ax2):
        ax.set_xticks(epochs, [str(e) for e in epochs])
        ax.minorticks_off()
    return render(fig, name="saturation_curves", caption="Left: validation loss after 1-16 epochs on repeated unique "
                  "data (solid) and on as many fresh tokens (dashed), per density, with the mean R_D* of the per-seed "
                  "fits. Right: the repeated − fresh gap per seed; a smaller gap is later saturation.")


def check_delayed_saturation(cfg: SaturationConfig, ctx: Context) -> ClaimResult:
    """[P37] sparse training delays data saturation: R_D*(0.5) > R_D*(1) fitted from tiny-model SET runs on
    repeated and fresh Markov data over 1-16 epochs, per seed."""
    if cfg.full_scale:
        return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")
    run: RunConfig = cfg.run
    tasks = [(cfg.vocab, cfg.order, cfg.concentration, cfg.corpus_seed, run, d, kind, s)
             for s in ctx.seeds for d in cfg.densities for kind in KINDS]
    curves = [r for rs in ctx.map(run_task, tasks) for r in rs]
    fits = fit_seeds(curves, betas=cfg.fit_betas, half_lives=cfg.fit_half_lives)
    j = judge_delayed_saturation(fits, bars=ctx.bars, sparse_density=cfg.sparse_density)
    kept = {f"s={d:g}": gain_kept(curves, d) for d in cfg.densities}
    floor = curves[0]["floor"]
    last = {d: gaps(curves, d)[run.epochs[-1]] for d in cfg.densities}
    findings = {
        f"repeated − fresh loss at {run.epochs[-1]} epochs (model-free, per seed)": "; ".join(
            f"s={d:g}: " + ", ".join(f"{v:.4f}" for v in g) for d, g in last.items()),
        "share of the fresh-data gain that repetition keeps (model-free, seed means)": ", ".join(
            f"{k}: {v:.2f}" for k, v in kept.items()),
        "fitted offsets K_s vs the entropy floor": ", ".join(
            f"s={d:g}: {np.mean([f['K'] for f in fits if f['density'] == d]):.3f}" for d in cfg.densities)
        + f" (floor {floor:.3f}); β = {np.mean([f['beta'] for f in fits]):.2f}"}
    per_density = {f"{d:g}": float(np.mean([f["R_D_star"] for f in fits if f["density"] == d])) for d in cfg.densities}
    summary = ("R_D* (seed means): " + ", ".join(f"s={k}: {v:.2f}" for k, v in per_density.items())
               + (f"; ratio {j.measured['ratio']:.2f} [{j.measured['ratio_ci'][0]:.2f}, "
                  f"{j.measured['ratio_ci'][1]:.2f}]" if "ratio" in j.measured else ""))
    return ClaimResult.judged(
        j, summary=summary, measured={"R_D_star_mean": per_density, "gain_kept": kept,
                                      "gap_last_epoch": {f"{d:g}": g for d, g in last.items()}}, rows=curves + fits,
        figures=[_figure(curves, cfg.densities, fits)], findings=findings,
        notes=(f"order-{cfg.order} Markov chain, vocabulary {cfg.vocab}, Dirichlet({cfg.concentration:g}) rows; "
               f"TinyGPT d={run.d_model}, {run.n_layer} layers, context {run.seq_len}; U = {run.unique_tokens} "
               f"unique tokens; Adam lr {run.lr:g}, batch {run.batch_size}, cool-down {run.cooldown:.0%} per epoch "
               f"count; SET every {run.update_every} steps, prune rate {run.prune_rate:g} (cosine); embeddings dense."))
