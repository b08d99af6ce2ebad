"""Claim checks of [P14] (Dirac-Frenkel-Onsager dynamics). Bars fixed in advance from the issue and the notes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.claims import Budget, Claim, ClaimResult, Context, Verdict
from icml26.common.stats import ratio_ci
from icml26.figures import new_figure, render
from icml26.papers.dfo._experiments import PROBLEMS, REGIMES, make_setup, run_setup


@dataclass(frozen=True)
class Config:
    """Problems x regimes x tolerances evolved to ``t_end`` on ``n_points`` collocation points (RK2, dt = 1e-2)."""

    problems: tuple[str, ...] = PROBLEMS
    regimes: tuple[str, ...] = REGIMES
    tols: tuple[float, ...] = (1e-4,)
    t_end: float = 2.0
    n_points: int = 128


def _setups(cfg: Config, ctx: Context):
    return [(p, r, s, make_setup(p, r, seed=s, n_points=cfg.n_points, t_end=cfg.t_end))
            for p in cfg.problems for r in cfg.regimes for s in ctx.seeds]


# ----------------------------------------------------------------------------------------------- residual
# Bar (a)'s additive slack is 1e-10 * ||F|| (relative), not the notes' absolute 1e-10: residuals scale with F, so an
# absolute slack would make the bar depend on the units of u (and on ||F||, which differs ~10x between problems); in
# the exactly singular cells r_min itself is ~1e-15 ||F||, so 1e-10 ||F|| only absorbs round-off, never a bias.
_SLACK_A = 1e-10

def check_residual_minimisation(cfg: Config, ctx: Context) -> ClaimResult:
    """Abstract of [P14]: DFO keeps the instantaneous DF residual at its least-squares minimum; Tikhonov does not.

    Per cell (problem, regime, seed, tol), along each method's own trajectory: mean ``r = ||J theta_dot - F||``,
    mean ``r_min = min_eta ||J eta - F||`` (machine precision) and mean ``||F||``. Bars (notes, fixed in advance):
    (a) ``r_DFO <= 1.01 r_min + 1e-10 ||F||`` and (b) ``r_Tikhonov >= 10 r_DFO`` with ``lambda = (tol sigma_max)^2``.
    The slack in (a) is relative to ``||F||`` (the notes wrote an absolute 1e-10): see ``_SLACK_A``.
    """
    rows = []
    for prob, reg, seed, setup in _setups(cfg, ctx):
        for tol in cfg.tols:
            row = {"problem": prob, "regime": reg, "seed": seed, "tol": tol}
            for meth in ("dfo", "tikhonov", "tsvd"):
                tr, _ = run_setup(setup, method=meth, tol=tol)
                row[f"r_{meth}"] = float(tr.residual.mean()) if tr.residual.size else float("inf")
                if meth == "dfo":
                    row["r_min"] = float(tr.residual_min.mean())
                    row["f_norm"] = float(tr.rhs_norm.mean())
            row["a_ok"] = row["r_dfo"] <= 1.01 * row["r_min"] + _SLACK_A * row["f_norm"]
            row["b_ok"] = row["r_tikhonov"] >= 10.0 * row["r_dfo"]
            rows.append(row)
    n = len(rows)
    na, nb = sum(r["a_ok"] for r in rows), sum(r["b_ok"] for r in rows)
    by_regime = {reg: f"{sum(r['a_ok'] and r['b_ok'] for r in rows if r['regime'] == reg)}/"
                      f"{sum(1 for r in rows if r['regime'] == reg)}" for reg in cfg.regimes}
    med = lambda k: float(np.median([r[k] / r["f_norm"] for r in rows]))
    fig, ax = new_figure()
    labels = [f"{r['problem'][:3]}/{r['regime'][:8]}/s{r['seed']}" for r in rows]
    xs = np.arange(n)
    for key, mk in (("r_min", "k_"), ("r_dfo", "o"), ("r_tsvd", "s"), ("r_tikhonov", "^")):
        ax.semilogy(xs, [max(r[key] / r["f_norm"], 1e-17) for r in rows], mk, label=key[2:], ms=5)
    ax.set_xticks(xs, labels, rotation=90, fontsize=6)
    ax.set_ylabel("mean residual / ||F||")
    ax.legend(fontsize=7)
    ok = na == n and nb == n
    verdict = Verdict.HOLDS if ok else Verdict.FAILS
    reason = (f"(a) DFO at the LS minimum in {na}/{n} cells, (b) Tikhonov >= 10x DFO residual in {nb}/{n} cells "
              f"(bar: all); cells passing both by regime: {by_regime}")
    return ClaimResult(
        verdict=verdict, reason=reason,
        summary=f"median r/||F||: min {med('r_min'):.1e}, DFO {med('r_dfo'):.1e}, TSVD {med('r_tsvd'):.1e}, "
                f"Tikhonov {med('r_tikhonov'):.1e}; (a) {na}/{n}, (b) {nb}/{n}",
        measured={"cells": n, "a_pass": na, "b_pass": nb, "by_regime": by_regime, "median_rel_r_min": med("r_min"),
                  "median_rel_r_dfo": med("r_dfo"), "median_rel_r_tsvd": med("r_tsvd"),
                  "median_rel_r_tikhonov": med("r_tikhonov")},
        rows=rows, figures=[render(fig, name="residuals", caption="Mean DF residual per cell (tol as configured)")],
        notes="r_min is the machine-precision least-squares minimum; in near-singular cells it uses directions "
              "with sigma below tol*sigma_max, which every truncated method (TSVD, DFO) drops.")


# ----------------------------------------------------------------------------------------------- smoothness
def check_smooth_velocities(cfg: Config, ctx: Context) -> ClaimResult:
    """Abstract of [P14]: DFO parameter velocities are temporally smooth.

    Bar (issue): total variation ``sum_k ||theta_dot_{k+1} - theta_dot_k||`` of TSVD over DFO >= 10 at the same tol,
    per problem; ratio of means over seeds with a paired bootstrap CI (holds: CI low >= 10; fails: point < 10).
    """
    rows = []
    for prob, reg, seed, setup in _setups(cfg, ctx):
        for tol in cfg.tols:
            tv = {m: run_setup(setup, method=m, tol=tol)[0].total_variation for m in ("tsvd", "dfo", "tikhonov")}
            rows.append({"problem": prob, "regime": reg, "seed": seed, "tol": tol, **{f"tv_{m}": v for m, v in tv.items()}})
    measured, verdicts = {}, []
    fig, ax = new_figure()
    for i, prob in enumerate(cfg.problems):
        sel = [r for r in rows if r["problem"] == prob]
        num, den = [r["tv_tsvd"] for r in sel], [r["tv_dfo"] for r in sel]
        est = ratio_ci(num, den, seed=0)
        measured[f"tv_ratio_{prob}"] = est.value
        measured[f"tv_ratio_{prob}_ci"] = [est.lo, est.hi]
        measured[f"tv_ratio_tikhonov_{prob}"] = float(np.mean([r["tv_tikhonov"] for r in sel]) / np.mean(den))
        verdicts.append(Verdict.HOLDS if est.lo >= 10 else Verdict.FAILS if est.value < 10 else Verdict.INCONCLUSIVE)
        ax.semilogy([i - 0.1] * len(sel), num, "s", color="C1", label="TSVD" if i == 0 else None)
        ax.semilogy([i + 0.1] * len(sel), den, "o", color="C0", label="DFO" if i == 0 else None)
    ax.set_xticks(range(len(cfg.problems)), list(cfg.problems))
    ax.set_ylabel("total variation of theta_dot")
    ax.legend()
    verdict = (Verdict.HOLDS if all(v is Verdict.HOLDS for v in verdicts)
               else Verdict.FAILS if any(v is Verdict.FAILS for v in verdicts) else Verdict.INCONCLUSIVE)
    txt = ", ".join(f"{p}: {measured[f'tv_ratio_{p}']:.3g} [{measured[f'tv_ratio_{p}_ci'][0]:.3g}, "
                    f"{measured[f'tv_ratio_{p}_ci'][1]:.3g}]" for p in cfg.problems)
    return ClaimResult(verdict=verdict, reason=f"TV(TSVD)/TV(DFO) per problem {txt} (bar: >= 10)",
                       summary=f"TV ratio {txt}", measured=measured, rows=rows,
                       figures=[render(fig, name="total_variation", caption="TV of the parameter velocity per seed")])


# ----------------------------------------------------------------------------------------------- robustness
def check_singular_robustness(cfg: Config, ctx: Context) -> ClaimResult:
    """Abstract of [P14]: DFO is robust in singular and near-singular regimes.

    "More robust" is judged against both baselines; bars fixed in advance (the first from the notes, the second added
    in review before any run of it):
      (i) in every (problem, regime, seed, tol) cell DFO does not blow up (finite, max |theta| <= 1e3) and its final
          relative L2 error is <= 1.1 x TSVD's + 1e-12 (non-inferior to truncated SVD);
      (ii) plain least-squares DF (lstsq, machine-precision rank) blows up, or is worse than DFO
          (error > 1.1 x DFO's + 1e-12), in at least one cell, while DFO never blows up (part of (i)).
    ``holds`` needs both; otherwise ``fails``. Tikhonov is reported beside them.
    """
    rows = []
    for prob, reg, seed, setup in _setups(cfg, ctx):
        _, e_ls = run_setup(setup, method="lstsq", tol=0.0)
        for tol in cfg.tols:
            e = {m: run_setup(setup, method=m, tol=tol)[1] for m in ("dfo", "tsvd", "tikhonov")}
            rows.append({"problem": prob, "regime": reg, "seed": seed, "tol": tol, "err_lstsq": e_ls,
                         **{f"err_{m}": v for m, v in e.items()}, "ok": bool(np.isfinite(e["dfo"])
                                                                          and e["dfo"] <= 1.1 * e["tsvd"] + 1e-12)})
    for r in rows:  # (ii): plain DF blows up or is worse than DFO here
        r["lstsq_worse"] = bool(not np.isfinite(r["err_lstsq"])
                                or (np.isfinite(r["err_dfo"]) and r["err_lstsq"] > 1.1 * r["err_dfo"] + 1e-12))
    n, nok = len(rows), sum(r["ok"] for r in rows)
    n_worse = sum(r["lstsq_worse"] for r in rows)
    dfo_blowups = sum(not np.isfinite(r["err_dfo"]) for r in rows)
    worst = {m: float(max(r[f"err_{m}"] for r in rows)) for m in ("dfo", "tsvd", "tikhonov", "lstsq")}
    blow = {m: sum(not np.isfinite(r[f"err_{m}"]) for r in rows) for m in ("dfo", "tsvd", "tikhonov")}
    blow["lstsq"] = sum(not np.isfinite(r["err_lstsq"]) for r in rows) // max(len(cfg.tols), 1)
    fig, ax = new_figure()
    for m, mk in (("dfo", "o"), ("tsvd", "s"), ("tikhonov", "^"), ("lstsq", "x")):
        ax.semilogy(range(n), [min(r[f"err_{m}"], 1e2) for r in rows], mk, label=m, ms=4)
    ax.set_xlabel("cell (problem x regime x seed x tol)")
    ax.set_ylabel("final relative L2 error (1e2 = blow-up)")
    ax.legend(fontsize=7)
    verdict = Verdict.HOLDS if nok == n and n_worse >= 1 and dfo_blowups == 0 else Verdict.FAILS
    wtxt = ", ".join(f"{m} {v:.2g}" for m, v in worst.items())
    return ClaimResult(
        verdict=verdict,
        reason=f"(i) DFO finite and within 1.1x TSVD error in {nok}/{n} cells (bar: all); (ii) plain lstsq DF blows "
               f"up or is > 1.1x DFO's error in {n_worse}/{n} cells, DFO blows up in {dfo_blowups} (bar: >= 1 and 0); "
               f"worst errors: {wtxt}; blow-ups: {blow}",
        summary=f"(i) {nok}/{n} cells; (ii) lstsq worse in {n_worse}/{n}; worst rel. error {wtxt}; "
                f"lstsq blow-ups {blow['lstsq']}",
        measured={"cells": n, "cells_ok": nok, "cells_lstsq_worse": n_worse, "dfo_blowups": dfo_blowups,
                  "worst_error": worst, "blowups": blow}, rows=rows,
        figures=[render(fig, name="final_error", caption="Final relative error vs the exact / FFT reference")])


_SMOKE = Config(problems=PROBLEMS, regimes=("duplicated", "near_vanishing"), t_end=0.5, n_points=64)
CLAIMS = [
    Claim("residual_minimisation", check=check_residual_minimisation, budgets={
        "smoke": Budget(_SMOKE, seeds=1, expected_s=2),
        "small": Budget(Config(), seeds=3, expected_s=40),
    }),
    Claim("smooth_velocities", check=check_smooth_velocities, budgets={
        "smoke": Budget(Config(regimes=("near_duplicate",), t_end=0.5, n_points=64), seeds=1, expected_s=2),
        "small": Budget(Config(regimes=("duplicated", "near_duplicate")), seeds=5, expected_s=60),
    }),
    Claim("singular_robustness", check=check_singular_robustness, budgets={
        "smoke": Budget(_SMOKE, seeds=1, expected_s=3),
        "small": Budget(Config(tols=(1e-6, 1e-4, 1e-2)), seeds=3, expected_s=120),
    }),
]
