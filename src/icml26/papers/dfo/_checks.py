"""What the [P14] claims measure: each method evolved on our singular test problems, per cell, and the figures.

A cell is one (problem, regime, seed, tol). :func:`run_cell` evolves one seeded problem with several (method, tol)
pairs and summarises each trajectory; the verdicts come from :mod:`._rules`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.dfo._experiments import filter_gap, make_setup, run_setup
from icml26.papers.dfo._rules import in_band, judge_residual, judge_robustness, judge_smoothness

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.dfo.claims import Config


def _mean(a: np.ndarray) -> float:
    return float(a.mean()) if a.size else float("inf")


def run_cell(task: tuple[str, str, int, int, float, tuple[tuple[str, float], ...]]) -> dict[str, dict[str, Any]]:
    """Evolve one seeded problem, ``task = (problem, regime, seed, n_points, t_end, ((method, tol), ...))``.

    Returns ``{"<method>@<tol>": summary}`` with the means along the trajectory of the residual, the truncated and
    the least-squares minima and ||F||, the total variation of the velocity, the final relative error (inf on a
    blow-up) and, for Tikhonov, the largest filter gap to the truncation along its run (:func:`filter_gap`).
    """
    problem, regime, seed, n_points, t_end, runs = task
    setup = make_setup(problem, regime, seed=seed, n_points=n_points, t_end=t_end)
    out = {}
    for method, tol in runs:
        tr, err = run_setup(setup, method=method, tol=tol)
        s = {"residual": _mean(tr.residual), "residual_trunc": _mean(tr.residual_trunc),
             "residual_min": _mean(tr.residual_min), "rhs_norm": _mean(tr.rhs_norm), "tv": tr.total_variation,
             "error": err, "blew_up": tr.blew_up}
        if method == "tikhonov":
            s["filter_gap"] = filter_gap(setup, tr.theta[: tr.velocity.shape[0]], tol=tol)
        out[f"{method}@{tol:g}"] = s
    return out


def _cells(cfg: Config, ctx: Context, runs: tuple[tuple[str, float], ...]) -> list[tuple[tuple[str, str, int], dict]]:
    keys = [(p, r, s) for p in cfg.problems for r in cfg.regimes for s in ctx.seeds]
    done = ctx.map(run_cell, [(*k, cfg.n_points, cfg.t_end, runs) for k in keys])
    return list(zip(keys, done))


def _key(cell: tuple[str, str, int]) -> dict[str, Any]:
    return {"problem": cell[0], "regime": cell[1], "seed": cell[2]}


def check_residual_minimisation(cfg: Config, ctx: Context) -> ClaimResult:
    """Abstract of [P14]: DFO keeps the instantaneous DF residual at its minimum; Tikhonov regularisation biases it.

    Per cell, along DFO's trajectory: mean residual, truncated minimum (same states and tol), least-squares minimum
    and ||F||; along Tikhonov's own trajectory (lambda = (tol sigma_max)^2): the same, and how far its filter is from
    the truncation's (whether the regularisation is active at all).
    """
    runs = tuple((m, t) for t in cfg.tols for m in ("dfo", "tikhonov", "tsvd"))
    rows = []
    for cell, out in _cells(cfg, ctx, runs):
        for tol in cfg.tols:
            d, k = out[f"dfo@{tol:g}"], out[f"tikhonov@{tol:g}"]
            rows.append({**_key(cell), "tol": tol, "r_dfo": d["residual"], "r_trunc": d["residual_trunc"],
                         "r_min": d["residual_min"], "f_norm": d["rhs_norm"], "r_tikhonov": k["residual"],
                         "r_trunc_tik": k["residual_trunc"], "r_min_tik": k["residual_min"], "f_norm_tik": k["rhs_norm"],
                         "tik_gap": k["filter_gap"], "r_tsvd": out[f"tsvd@{tol:g}"]["residual"]})
    j = judge_residual(rows, bars=ctx.bars)

    def med(key: str, norm: str = "f_norm") -> float:
        return float(np.median([r[key] / r[norm] for r in rows]))

    fig, ax = new_figure()
    xs = np.arange(len(rows))
    for key, norm, mk in (("r_min", "f_norm", "k_"), ("r_trunc", "f_norm", "g_"), ("r_dfo", "f_norm", "o"),
                          ("r_tsvd", "f_norm", "s"), ("r_tikhonov", "f_norm_tik", "^")):
        ax.semilogy(xs, [max(r[key] / r[norm], 1e-17) for r in rows], mk, label=key[2:], ms=5)
    ax.set_xticks(xs, [f"{r['problem'][:3]}/{r['regime'][:8]}/s{r['seed']}/{r['tol']:.0e}" for r in rows],
                  rotation=90, fontsize=5)
    ax.set_ylabel("mean residual / ||F||")
    ax.legend(fontsize=7)
    m = j.measured
    return ClaimResult.judged(
        j, summary=f"median r/||F||: LS min {med('r_min'):.1e}, truncated min {med('r_trunc'):.1e}, DFO "
                   f"{med('r_dfo'):.1e}, TSVD {med('r_tsvd'):.1e}, Tikhonov {med('r_tikhonov', 'f_norm_tik'):.1e}; "
                   f"(a) {m['dfo_at_minimum']}/{m['cells']}, (b) {m['tikhonov_biased']}/{m['active_cells']} active "
                   "cells",
        measured={"tikhonov_above_dfo": sum(r["r_tikhonov"] > r["r_dfo"] for r in rows),
                  "dfo_at_ls_minimum": sum(in_band(r["r_dfo"], r["r_min"], r["f_norm"], ctx.bars) for r in rows)},
        rows=rows, figures=[render(fig, name="residuals", caption="Mean DF residual per cell and tol")],
        notes="r_trunc is the best residual with singular values <= tol*sigma_max dropped (what TSVD reaches); "
              "r_min is the machine-precision least-squares minimum, which uses the directions every truncated "
              "method drops. dfo_at_ls_minimum counts the cells where DFO is also within the band around r_min (not judged).")


def check_smooth_velocities(cfg: Config, ctx: Context) -> ClaimResult:
    """Abstract of [P14]: DFO parameter velocities are temporally smooth (total variation against TSVD's)."""
    runs = tuple((m, t) for t in cfg.tols for m in ("tsvd", "dfo", "tikhonov"))
    rows = [{**_key(cell), "tol": tol, **{f"tv_{m}": out[f"{m}@{tol:g}"]["tv"] for m in ("tsvd", "dfo", "tikhonov")}}
            for cell, out in _cells(cfg, ctx, runs) for tol in cfg.tols]
    j = judge_smoothness(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, prob in enumerate(cfg.problems):
        sel = [r for r in rows if r["problem"] == prob]
        ax.semilogy([i - 0.1] * len(sel), [r["tv_tsvd"] for r in sel], "s", color="C1", label="TSVD" if i == 0 else None)
        ax.semilogy([i + 0.1] * len(sel), [r["tv_dfo"] for r in sel], "o", color="C0", label="DFO" if i == 0 else None)
    ax.set_xticks(range(len(cfg.problems)), list(cfg.problems))
    ax.set_ylabel("total variation of theta_dot")
    ax.legend()
    txt = ", ".join(f"{p}: {j.measured[f'tv_ratio_{p}']:.3g} [{j.measured[f'tv_ratio_{p}_ci'][0]:.3g}, "
                    f"{j.measured[f'tv_ratio_{p}_ci'][1]:.3g}]" for p in cfg.problems)
    smoother = [p for p in cfg.problems if j.measured[f"tv_ratio_{p}_ci"][0] > 1.0]
    return ClaimResult.judged(
        j, summary=f"TV(TSVD)/TV(DFO) {txt}", rows=rows,
        figures=[render(fig, name="total_variation", caption="TV of the parameter velocity per seed")],
        findings={"smoother than TSVD (CI above 1)": f"{len(smoother)} of {len(cfg.problems)} problems ({txt})"})


def check_singular_robustness(cfg: Config, ctx: Context) -> ClaimResult:
    """Abstract of [P14]: DFO is robust in singular and near-singular regimes (final error against the reference,
    against TSVD and plain least-squares DF; Tikhonov reported beside them)."""
    runs = (("lstsq", 0.0), *((m, t) for t in cfg.tols for m in ("dfo", "tsvd", "tikhonov")))
    rows = [{**_key(cell), "tol": tol, "err_lstsq": out["lstsq@0"]["error"],
             **{f"err_{m}": out[f"{m}@{tol:g}"]["error"] for m in ("dfo", "tsvd", "tikhonov")}}
            for cell, out in _cells(cfg, ctx, runs) for tol in cfg.tols]
    j = judge_robustness(rows, bars=ctx.bars)
    n = len(rows)
    worst = {m: float(max(r[f"err_{m}"] for r in rows)) for m in ("dfo", "tsvd", "tikhonov", "lstsq")}
    blow = {m: sum(not np.isfinite(r[f"err_{m}"]) for r in rows) for m in ("dfo", "tsvd", "tikhonov")}
    blow["lstsq"] = sum(not np.isfinite(r["err_lstsq"]) for r in rows) // max(len(cfg.tols), 1)
    fig, ax = new_figure()
    for m, mk in (("dfo", "o"), ("tsvd", "s"), ("tikhonov", "^"), ("lstsq", "x")):
        ax.semilogy(range(n), [min(r[f"err_{m}"], 1e2) for r in rows], mk, label=m, ms=4)
    ax.set_xlabel("cell (problem x regime x seed x tol)")
    ax.set_ylabel("final relative L2 error (1e2 = blow-up)")
    ax.legend(fontsize=7)
    wtxt = ", ".join(f"{m} {v:.2g}" for m, v in worst.items())
    return ClaimResult.judged(
        j, summary=f"(i) {j.measured['cells_ok']}/{n} cells; (ii) lstsq worse in {j.measured['cells_lstsq_worse']}/{n}; "
                   f"worst rel. error {wtxt}; lstsq blow-ups {blow['lstsq']}",
        measured={"worst_error": worst, "blowups": blow}, rows=rows,
        figures=[render(fig, name="final_error", caption="Final relative error vs the exact / FFT reference")])
