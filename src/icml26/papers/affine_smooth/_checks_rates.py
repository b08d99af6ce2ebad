"""What the [P26] rate claims measure: RMSProp / Adam on a two-layer net, and the lower-bound separation
(iterations to ε on f(θ) = log(1 + e^{−θ})). The verdicts come from :mod:`._rules`."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.common.stats import bootstrap_ci, loglog_slope
from icml26.figures import new_figure, render
from icml26.papers.affine_smooth._analysis import iterations_to_eps, run_method
from icml26.papers.affine_smooth._checks import LN10, data, plot_curves, public, rates
from icml26.papers.affine_smooth._optim import GradientMethod, adagrad, adam, amsgrad, gd, heavy_ball, rmsprop, sign_gd
from icml26.papers.affine_smooth._problems import TwoLayerNet, lower_bound_instance
from icml26.papers.affine_smooth._rules import judge_adaptive, judge_lower_bound

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.affine_smooth.claims import LowerBoundConfig, NetConfig

#: the lower bound's Ω(1/ε) methods and its O(log 1/ε) ones (RMSProp, Adam at the pinned β2)
SLOW, FAST = ("gd", "heavy_ball", "adagrad", "amsgrad"), ("rmsprop", "adam")
#: torch's default β2, reported beside the pinned one and never judged
DEFAULT_BETA2 = 0.999


def net_seed(cfg: NetConfig, seed: int) -> dict[str, Any]:
    """One seed of ``adaptive_two_layer``: RMSProp and Adam at the pinned β2 and at torch's default."""
    net = TwoLayerNet(*data(cfg.data, seed), width=cfg.width, seed=seed)
    out: dict[str, Any] = {"seed": seed, "_curves": {}}
    for b2 in (cfg.beta2, DEFAULT_BETA2):
        for m in (rmsprop(lr=cfg.lr, beta2=b2), adam(lr=cfg.lr, beta1=cfg.beta1, beta2=b2)):
            lf = run_method(net, m, iters=cfg.horizon.iters).log_f
            tag = f"{m.name}_b2_{b2:g}"
            out[f"{tag}_rate"], out[f"{tag}_persistence"] = rates(lf, cfg.horizon.window)
            out[f"{tag}_log10_f"] = lf[-1] / LN10
            out["_curves"][f"{m.name} β2={b2:g}"] = lf
    return out


def check_adaptive_two_layer(cfg: NetConfig, ctx: Context) -> ClaimResult:
    """[P26] abstract: RMSProp and Adam converge linearly with constant η, β1, β2 on a two-layer net (separable data)."""
    rows = ctx.map(partial(net_seed, cfg), ctx.seeds)
    pinned = [f"rmsprop_b2_{cfg.beta2:g}", f"adam_b2_{cfg.beta2:g}"]
    j = judge_adaptive(rows, bars=ctx.bars, methods=pinned)
    cis = {t: bootstrap_ci([r[f"{t}_rate"] for r in rows], seed=0) for t in pinned}
    default = {m: float(np.mean([r[f"{m}_b2_{DEFAULT_BETA2:g}_rate"] for r in rows])) for m in ("rmsprop", "adam")}
    summary = (f"β2={cfg.beta2:g}: RMSProp rate {cis[pinned[0]]}, Adam rate {cis[pinned[1]]} /iter; "
               f"β2={DEFAULT_BETA2:g}: RMSProp {default['rmsprop']:.1e}, Adam {default['adam']:.1e}")
    fig = plot_curves(rows[0]["_curves"], title="two-layer leaky-ReLU net, logistic loss", name="two_layer_adaptive",
                      caption=f"log10 f_k, seed {rows[0]['seed']}, η={cfg.lr}: β2={cfg.beta2:g} (pinned) vs "
                      f"{DEFAULT_BETA2:g} (default)")
    measured = {k: [r[k] for r in rows] for k in public(rows)[0] if k != "seed"}
    measured.update({f"{t}_rate_ci": [ci.value, ci.lo, ci.hi] for t, ci in cis.items()})
    finding = (f"mean rate over the last {cfg.horizon.window} of {cfg.horizon.iters} steps: RMSProp "
               f"{default['rmsprop']:.1e}, Adam {default['adam']:.1e} per step (sublinear-looking)")
    return ClaimResult.judged(j, summary=summary, rows=public(rows), figures=[fig], measured=measured,
                              findings={f"β2 = {DEFAULT_BETA2:g}, torch's default (ours, reported only)": finding})


def lower_bound_methods(c: LowerBoundConfig) -> dict[str, GradientMethod]:
    """The methods of ``lower_bound``, by name: the judged ones, sign GD and the β2 = 0.999 runs (reported only)."""
    return {
        "gd": gd(lr=c.gd_lr), "heavy_ball": heavy_ball(lr=c.hb_lr, momentum=c.hb_momentum),
        "adagrad": adagrad(lr=c.adagrad_lr), "amsgrad": amsgrad(lr=c.amsgrad_lr, beta1=c.beta1, beta2=c.beta2),
        "rmsprop": rmsprop(lr=c.adaptive_lr, beta2=c.beta2), "adam": adam(lr=c.adaptive_lr, beta1=c.beta1, beta2=c.beta2),
        "sign_gd": sign_gd(lr=c.adaptive_lr),
        f"rmsprop_b2_{DEFAULT_BETA2:g}": rmsprop(lr=c.adaptive_lr, beta2=DEFAULT_BETA2),
        f"adam_b2_{DEFAULT_BETA2:g}": adam(lr=c.adaptive_lr, beta1=c.beta1, beta2=DEFAULT_BETA2),
    }


def lower_bound_row(name: str, log_f: np.ndarray, eps: np.ndarray) -> dict[str, Any]:
    """Iterations to reach each ε on the curve ``log_f`` and the log-log slope of those counts on 1/ε (NaN with
    fewer than 3 ε reached)."""
    its = iterations_to_eps(log_f, eps)
    ok = its > 0
    slope = loglog_slope(1.0 / eps[ok], its[ok]).value if ok.sum() >= 3 else float("nan")
    return {"method": name, "iterations": its.tolist(), "slope": slope, "reached_all": bool(ok.all())}


def lower_bound_run(cfg: LowerBoundConfig, name: str) -> dict[str, Any]:
    """One method of ``lower_bound``, run until f ≤ min ε or ``max_iters``."""
    eps = np.asarray(cfg.eps, dtype=float)
    tr = run_method(lower_bound_instance(), lower_bound_methods(cfg)[name], iters=cfg.max_iters,
                    log_f_floor=float(np.log(eps.min())) - 1e-9)
    return lower_bound_row(name, tr.log_f, eps)


def check_lower_bound(cfg: LowerBoundConfig, ctx: Context) -> ClaimResult:
    """[P26] lower bound: on f(θ) = log(1 + e^{−θ}) GD, heavy-ball, AdaGrad, AMSGrad need Ω(1/ε) steps,
    RMSProp and Adam O(log 1/ε)."""
    eps = np.asarray(cfg.eps, dtype=float)
    rows = ctx.map(partial(lower_bound_run, cfg), list(lower_bound_methods(cfg)))
    by = {r["method"]: r for r in rows}
    j = judge_lower_bound(rows, bars=ctx.bars, slow=SLOW, fast=FAST)
    measured: dict[str, Any] = {f"slope_{r['method']}": r["slope"] for r in rows}
    measured.update({f"iters_{r['method']}": r["iterations"] for r in rows})
    measured["eps"] = eps.tolist()
    d = f"{DEFAULT_BETA2:g}"
    summary = ("slope of iters vs 1/ε: " + ", ".join(f"{m} {by[m]['slope']:.2f}" for m in (*SLOW, *FAST, "sign_gd"))
               + f"; β2={d}: RMSProp {by[f'rmsprop_b2_{d}']['slope']:.2f}, Adam {by[f'adam_b2_{d}']['slope']:.2f}")
    fig, ax = new_figure()
    for r in rows:
        its = np.asarray(r["iterations"], dtype=float)
        ax.loglog(1.0 / eps[its > 0], its[its > 0], "o-", label=f"{r['method']} ({r['slope']:.2f})", ms=3)
    ax.set(xlabel="1/ε", ylabel="iterations to f ≤ ε", title="f(θ) = log(1 + e^{−θ})")
    ax.legend(fontsize=6)
    figd = render(fig, name="lower_bound_iterations", caption="iterations to ε; legend: log-log slope")
    findings = {"sign GD and β2 = 0.999 (ours, reported only)": (
        f"slopes: sign GD {by['sign_gd']['slope']:.2f}, RMSProp β2={d} {by[f'rmsprop_b2_{d}']['slope']:.2f}, "
        f"Adam β2={d} {by[f'adam_b2_{d}']['slope']:.2f}")}
    return ClaimResult.judged(j, summary=summary, measured=measured, rows=rows, figures=[figd], findings=findings)
