"""What the [P26] assumption claim measures: ‖∇²f‖ against f along trajectories of logistic regression, softmax PG
and the two-layer net. The verdict comes from :mod:`._rules`."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.affine_smooth._analysis import AffineSmoothnessFit, estimate_affine_smoothness, run_method
from icml26.papers.affine_smooth._checks import data, public
from icml26.papers.affine_smooth._optim import rmsprop, sign_gd
from icml26.papers.affine_smooth._problems import LogisticRegression, SoftmaxBandit, TwoLayerNet
from icml26.papers.affine_smooth._rules import judge_affine

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.affine_smooth.claims import AffineConfig

PROBLEMS = ("logistic", "softmax_pg", "two_layer")
#: relative slack of the closed-form bound ‖∇²f‖ ≤ H1 f (rounding in the power iteration)
BOUND_SLACK = 1e-9


def affine_row(seed: int, name: str, fit: AffineSmoothnessFit, bound_h1: float | None) -> dict[str, Any]:
    """One trajectory's row; ``bound_h1`` (logistic only) is the closed-form H1 to test ‖∇²f‖ ≤ H1 f against."""
    violations = None if bound_h1 is None else int(np.sum(fit.hess_norm > bound_h1 * fit.f * (1 + BOUND_SLACK)))
    return {"seed": seed, "problem": name, "L0": fit.L0, "L1": fit.L1, "loglog_slope": fit.loglog_slope,
            "log10_f_range": [float(np.log10(fit.f.min())), float(np.log10(fit.f.max()))], "mu": fit.mu,
            "bound_H1": bound_h1, "bound_violations": violations, "_fit": fit}


def affine_seed(cfg: AffineConfig, seed: int) -> list[dict[str, Any]]:
    """The three trajectories of one seed (sign GD on logistic and softmax PG, RMSProp on the two-layer net)."""
    X, y = data(cfg.data, seed)
    r = np.random.default_rng(seed).uniform(0.0, 1.0, cfg.arms)
    probs = {"logistic": (LogisticRegression(X, y), sign_gd(lr=0.1)),
             "softmax_pg": (SoftmaxBandit(r), sign_gd(lr=0.05)),
             "two_layer": (TwoLayerNet(X, y, width=cfg.width, seed=seed), rmsprop(lr=0.1, beta2=0.9))}
    out = []
    for name, (p, m) in probs.items():
        tr = run_method(p, m, iters=cfg.iters, keep=cfg.points)
        fit = estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, tr.thetas, seed=seed)
        bound = p.smoothness_bound() if isinstance(p, LogisticRegression) else None
        out.append(affine_row(seed, name, fit, bound))
    return out


def check_affine_smoothness(cfg: AffineConfig, ctx: Context) -> ClaimResult:
    """[P26] abstract: logistic regression, softmax PG and a class of two-layer nets satisfy ‖∇²f‖ ≤ H0 + H1 f."""
    rows = [r for rs in ctx.map(partial(affine_seed, cfg), ctx.seeds) for r in rs]
    j = judge_affine(rows, bars=ctx.bars)
    measured = {f"{p}_{k}": [r[k] for r in rows if r["problem"] == p] for p in PROBLEMS
                for k in ("L0", "L1", "loglog_slope", "mu")}
    summary = "log-log slope ‖∇²f‖ vs f: " + ", ".join(
        f"{p} {np.mean(measured[p + '_loglog_slope']):.3f}" for p in PROBLEMS)
    fig, ax = new_figure()
    for r in rows[:3]:
        ax.loglog(r["_fit"].f, r["_fit"].hess_norm, "o", ms=3, label=f"{r['problem']} (L1={r['L1']:.2g})")
    ax.set(xlabel="f(θ)", ylabel="‖∇²f(θ)‖₂", title="curvature vs objective along trajectories")
    ax.legend(fontsize=7)
    figd = render(fig, name="affine_smoothness", caption=f"power-iteration Hessian norms vs f (seed {rows[0]['seed']})")
    return ClaimResult.judged(j, summary=summary, measured=measured, rows=public(rows), figures=[figd])
