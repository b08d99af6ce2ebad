"""Claim checks of [P26] (affine_smooth). Bars fixed in advance from the notes/issue:

* linear rate: least-squares slope of log f_k over the last ``window`` steps ≤ −5e-3, and the rate persists
  (slope over the last window / slope over the window before it ≥ 0.8; a C/k curve gives ≈ 0.6 or less);
* sublinear baseline (GD): log-log slope of f_k on k over the second half of the run in [−1.5, −0.5];
* "faster": at the same iteration count, log10(f_GD / f_sign) ≥ 3;
* lower bound: log-log slope of iterations-to-ε on 1/ε ≥ 0.75 for GD, heavy-ball, AdaGrad, AMSGrad and ≤ 0.25
  for RMSProp and Adam (pinned β2 = 0.9); the β2 = 0.999 runs are reported, never asserted;
* assumption: along a trajectory on which f spans ≥ 10 decades, log-log slope of ‖∇²f‖ on f ≥ 0.9 (curvature
  falls at least like f, so H0 ≈ 0 and a finite H1 covers it); for logistic regression also ‖∇²f‖ ≤ max‖x_i‖² f.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.claims import Budget, Claim, ClaimResult, Context, Verdict
from icml26.common.stats import bootstrap_ci, loglog_slope
from icml26.figures import new_figure, render
from icml26.papers.affine_smooth._analysis import (
    AffineSmoothnessFit,
    estimate_affine_smoothness,
    iterations_to_eps,
    linear_rate,
    run_method,
)
from icml26.papers.affine_smooth._optim import (
    adagrad,
    adam,
    amsgrad,
    gd,
    heavy_ball,
    rmsprop,
    sign_gd,
)
from icml26.papers.affine_smooth._problems import (
    LogisticRegression,
    SoftmaxBandit,
    TwoLayerNet,
    lower_bound_instance,
    make_separable_data,
)

RATE_BAR, PERSIST_BAR, SPEEDUP_DECADES = -5e-3, 0.8, 3.0
GD_SLOPE_RANGE, SLOW_BAR, FAST_BAR, AFFINE_BAR = (-1.5, -0.5), 0.75, 0.25, 0.9
LN10 = np.log(10.0)


def _rates(log_f: np.ndarray, window: int) -> tuple[float, float]:
    """(slope over the last window, persistence = that slope / slope over the window before)."""
    late = linear_rate(log_f, window=window)
    early = linear_rate(log_f[:-window], window=window) if log_f.size > 2 * window else float("nan")
    return late, (late / early if early < 0 else float("nan"))


def _tail_loglog(log_f: np.ndarray) -> float:
    """Slope of log f_k on log k for k in [K/2, K]."""
    K = log_f.size - 1
    ks = np.unique(np.geomspace(K // 2, K, 40).astype(int))
    return float(np.polyfit(np.log(ks), log_f[ks], 1)[0])


def _plot_curves(curves: dict[str, np.ndarray], *, title: str, name: str, caption: str):
    fig, ax = new_figure()
    for label, lf in curves.items():
        ax.plot(np.arange(lf.size), lf / LN10, label=label)
    ax.set(xlabel="iteration k", ylabel="log10 f(θ_k)", title=title)
    ax.legend(fontsize=7)
    return render(fig, name=name, caption=caption)


# ---------------------------------------------------------------- sign GD vs GD (logistic regression, softmax PG)
@dataclass(frozen=True)
class LogisticConfig:
    n: int = 200
    d: int = 20
    margin: float = 0.1
    iters: int = 3000
    window: int = 1000
    sign_lr: float = 0.05
    gd_lr_times_h1: float = 8.0  # GD step η = 8/H1 = 2/L with L = H1/4 the curvature bound at θ = 0
    sign_lr_large: float = 1.0  # reported only: a step too large for the theory (can stall in oscillation)


@dataclass(frozen=True)
class BanditConfig:
    arms: int = 10
    iters: int = 3000
    window: int = 1000
    sign_lr: float = 0.05
    gd_lr: float = 0.4  # 2/5: the 1/L step of Mei et al. (2020) for softmax PG


def _compare_curves(s_log_f: np.ndarray, g_log_f: np.ndarray, window: int) -> dict:
    """The numbers the sign-vs-GD rule reads, from the log f curves of sign GD (``s_log_f``) and GD (``g_log_f``)."""
    rate, persist = _rates(s_log_f, window)
    kk = min(s_log_f.size, g_log_f.size) - 1  # sign GD may stop early at the floor (f < 1e-260): compare there
    return {"sign_rate": rate, "sign_persistence": persist, "gd_rate": _rates(g_log_f, window)[0],
            "gd_loglog_slope": _tail_loglog(g_log_f), "log10_f_sign": s_log_f[-1] / LN10,
            "log10_f_gd": g_log_f[-1] / LN10, "speedup_decades": (g_log_f[kk] - s_log_f[kk]) / LN10,
            "_curves": {"sign GD": s_log_f, "GD": g_log_f}}


def _sign_vs_gd(problem, sign_lr: float, gd_lr: float, iters: int, window: int) -> dict:
    s = run_method(problem, sign_gd(lr=sign_lr), iters=iters)
    g = run_method(problem, gd(lr=gd_lr), iters=iters)
    return _compare_curves(s.log_f, g.log_f, window)


def _sign_fails(rows: list[dict]) -> list[str]:
    """The sign-vs-GD rule: every seed's failed bars (empty list = holds)."""
    fails = []
    for r in rows:
        if not r["sign_rate"] <= RATE_BAR:
            fails.append(f"seed {r['seed']}: sign-GD rate {r['sign_rate']:.2e} > {RATE_BAR:g}")
        if not r["sign_persistence"] >= PERSIST_BAR:
            fails.append(f"seed {r['seed']}: sign-GD rate persistence {r['sign_persistence']:.2f} < {PERSIST_BAR}")
        if not GD_SLOPE_RANGE[0] <= r["gd_loglog_slope"] <= GD_SLOPE_RANGE[1]:
            fails.append(f"seed {r['seed']}: GD log-log slope {r['gd_loglog_slope']:.2f} outside {GD_SLOPE_RANGE}")
        if not r["speedup_decades"] >= SPEEDUP_DECADES:
            fails.append(f"seed {r['seed']}: sign GD only {r['speedup_decades']:.1f} decades below GD")
    return fails


def _verdict_sign(rows: list[dict], what: str, figure) -> ClaimResult:
    fails = _sign_fails(rows)
    rates = [r["sign_rate"] for r in rows]
    ci = bootstrap_ci(rates)
    measured = {k: [r[k] for r in rows] for k in rows[0] if not k.startswith("_")}
    measured["sign_rate_ci"] = [ci.value, ci.lo, ci.hi]
    summary = (f"sign-GD rate {ci} /iter; GD log-log slope {np.mean(measured['gd_loglog_slope']):.2f}; "
               f"sign GD {np.min(measured['speedup_decades']):.0f}+ decades below GD")
    verdict = Verdict.FAILS if fails else Verdict.HOLDS
    reason = ("; ".join(fails) if fails else
              f"on {what}, every seed: sign GD linear (rate ≤ {RATE_BAR:g}, persistence ≥ {PERSIST_BAR}), GD sublinear "
              f"(log-log slope in {GD_SLOPE_RANGE}), sign GD ≥ {SPEEDUP_DECADES:g} decades lower at the same k")
    rows_out = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]
    return ClaimResult(verdict=verdict, reason=reason, summary=summary, measured=measured, rows=rows_out, figures=[figure])


def check_sign_gd_logistic(cfg: LogisticConfig, ctx: Context) -> ClaimResult:
    """[P26] abstract/Cor. (logistic): sign GD converges linearly on separable data and faster than GD."""

    def one(seed: int) -> dict:
        X, y = make_separable_data(cfg.n, cfg.d, margin=cfg.margin, seed=seed)
        p = LogisticRegression(X, y)
        row = {"seed": seed, **_sign_vs_gd(p, cfg.sign_lr, cfg.gd_lr_times_h1 / p.smoothness_bound(), cfg.iters, cfg.window)}
        big = run_method(p, sign_gd(lr=cfg.sign_lr_large), iters=cfg.iters).log_f
        row["large_lr_rate"], row["large_lr_log10_f"] = _rates(big, cfg.window)[0], big[-1] / LN10
        row["_curves"][f"sign GD η={cfg.sign_lr_large:g} (reported only)"] = big
        return row

    rows = ctx.map(one, ctx.seeds)
    fig = _plot_curves(rows[0]["_curves"], title="separable logistic regression", name="logistic_sign_vs_gd",
                       caption=f"log10 f_k, seed {rows[0]['seed']}: sign GD (η={cfg.sign_lr}) vs GD (η=8/H1)")
    res = _verdict_sign(rows, "separable logistic regression", fig)
    stalled = sum(r["large_lr_rate"] > RATE_BAR for r in rows)
    finals = ", ".join(f"{r['large_lr_log10_f']:.0f}" for r in rows)
    res.notes = (f"reported only: sign GD with η={cfg.sign_lr_large:g} misses the linear-rate bar on {stalled}/{len(rows)} "
                 f"seeds (final log10 f: {finals})")
    return res


def check_sign_gd_softmax_pg(cfg: BanditConfig, ctx: Context) -> ClaimResult:
    """[P26] abstract/Cor. (softmax PG): sign GD converges linearly on softmax policy gradient and faster than GD."""

    def one(seed: int) -> dict:
        r = np.random.default_rng(seed).uniform(0.0, 1.0, cfg.arms)
        return {"seed": seed, **_sign_vs_gd(SoftmaxBandit(r), cfg.sign_lr, cfg.gd_lr, cfg.iters, cfg.window)}

    rows = ctx.map(one, ctx.seeds)
    fig = _plot_curves(rows[0]["_curves"], title=f"softmax PG, {cfg.arms}-armed bandit", name="softmax_sign_vs_gd",
                       caption=f"log10 (r* − π_θᵀr), seed {rows[0]['seed']}: sign GD (η={cfg.sign_lr}) vs GD (η={cfg.gd_lr})")
    return _verdict_sign(rows, "softmax policy gradient", fig)


# ---------------------------------------------------------------- RMSProp / Adam on a two-layer net
@dataclass(frozen=True)
class NetConfig:
    n: int = 100
    d: int = 10
    width: int = 20
    margin: float = 0.1
    iters: int = 3000
    window: int = 1000
    lr: float = 0.05
    beta1: float = 0.9
    beta2: float = 0.9  # pinned (notes: linear rates need β2 ≲ 0.9); 0.999 is reported alongside


def check_adaptive_two_layer(cfg: NetConfig, ctx: Context) -> ClaimResult:
    """[P26] abstract: RMSProp and Adam converge linearly with constant η, β1, β2 on a two-layer net (separable data)."""

    def one(seed: int) -> dict:
        X, y = make_separable_data(cfg.n, cfg.d, margin=cfg.margin, seed=seed)
        net = TwoLayerNet(X, y, width=cfg.width, seed=seed)
        out: dict = {"seed": seed, "_curves": {}}
        for b2 in (cfg.beta2, 0.999):
            for name, m in (("rmsprop", rmsprop(lr=cfg.lr, beta2=b2)), ("adam", adam(lr=cfg.lr, beta1=cfg.beta1, beta2=b2))):
                lf = run_method(net, m, iters=cfg.iters).log_f
                tag = f"{name}_b2_{b2:g}"
                out[f"{tag}_rate"], out[f"{tag}_persistence"] = _rates(lf, cfg.window)
                out[f"{tag}_log10_f"] = lf[-1] / LN10
                out["_curves"][f"{name} β2={b2:g}"] = lf
        return out

    rows = ctx.map(one, ctx.seeds)
    pinned = [f"rmsprop_b2_{cfg.beta2:g}", f"adam_b2_{cfg.beta2:g}"]
    fails = [f"seed {r['seed']}: {t} rate {r[t + '_rate']:.2e}, persistence {r[t + '_persistence']:.2f}"
             for r in rows for t in pinned
             if not (r[t + "_rate"] <= RATE_BAR and r[t + "_persistence"] >= PERSIST_BAR)]
    measured = {k: [r[k] for r in rows] for k in rows[0] if not k.startswith("_")}
    cis = {t: bootstrap_ci(measured[t + "_rate"]) for t in pinned}
    for t, ci in cis.items():
        measured[t + "_rate_ci"] = [ci.value, ci.lo, ci.hi]
    d999 = {t: float(np.mean(measured[f"{t}_b2_0.999_rate"])) for t in ("rmsprop", "adam")}
    summary = (f"β2={cfg.beta2:g}: RMSProp rate {cis[pinned[0]]}, Adam rate {cis[pinned[1]]} /iter; β2=0.999 (defaults): "
               f"RMSProp {d999['rmsprop']:.1e}, Adam {d999['adam']:.1e}")
    reason = ("; ".join(fails) if fails else
              f"every seed, RMSProp and Adam (η={cfg.lr}, β1={cfg.beta1}, β2={cfg.beta2}) rate ≤ {RATE_BAR:g} with "
              f"persistence ≥ {PERSIST_BAR}; with β2=0.999 (reported only) mean rates are RMSProp {d999['rmsprop']:.1e}, "
              f"Adam {d999['adam']:.1e} over the last {cfg.window} of {cfg.iters} steps")
    fig = _plot_curves(rows[0]["_curves"], title="two-layer leaky-ReLU net, logistic loss", name="two_layer_adaptive",
                       caption=f"log10 f_k, seed {rows[0]['seed']}, η={cfg.lr}: β2={cfg.beta2:g} (pinned) vs 0.999 (default)")
    return ClaimResult(verdict=Verdict.FAILS if fails else Verdict.HOLDS, reason=reason, summary=summary, measured=measured,
                       rows=[{k: v for k, v in r.items() if not k.startswith("_")} for r in rows], figures=[fig])


# ---------------------------------------------------------------- lower bound: 1/ε vs log(1/ε)
@dataclass(frozen=True)
class LowerBoundConfig:
    eps: tuple[float, ...] = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5)
    max_iters: int = 400_000
    gd_lr: float = 4.0  # GD-type steps: η ≤ 2/L = 8 with L = sup f'' = 1/4 (heavy-ball: η/(1−β) = 4)
    hb_lr: float = 2.0
    hb_momentum: float = 0.5
    adagrad_lr: float = 4.0
    amsgrad_lr: float = 1.0
    adaptive_lr: float = 0.1  # RMSProp, Adam, sign GD
    beta1: float = 0.9
    beta2: float = 0.9  # pinned; 0.999 reported alongside


def _lower_bound_methods(c: LowerBoundConfig) -> dict[str, object]:
    return {
        "gd": gd(lr=c.gd_lr), "heavy_ball": heavy_ball(lr=c.hb_lr, momentum=c.hb_momentum),
        "adagrad": adagrad(lr=c.adagrad_lr), "amsgrad": amsgrad(lr=c.amsgrad_lr, beta1=c.beta1, beta2=c.beta2),
        "rmsprop": rmsprop(lr=c.adaptive_lr, beta2=c.beta2), "adam": adam(lr=c.adaptive_lr, beta1=c.beta1, beta2=c.beta2),
        "sign_gd": sign_gd(lr=c.adaptive_lr),
        "rmsprop_b2_0.999": rmsprop(lr=c.adaptive_lr, beta2=0.999),
        "adam_b2_0.999": adam(lr=c.adaptive_lr, beta1=c.beta1, beta2=0.999),
    }


SLOW, FAST = ("gd", "heavy_ball", "adagrad", "amsgrad"), ("rmsprop", "adam")


def _lower_bound_row(name: str, log_f: np.ndarray, eps: np.ndarray) -> dict:
    """Iterations to reach each ε on the curve ``log_f`` and the log-log slope of those counts on 1/ε."""
    its = iterations_to_eps(log_f, eps)
    ok = its > 0
    slope = loglog_slope(1.0 / eps[ok], its[ok]).value if ok.sum() >= 3 else float("nan")
    return {"method": name, "iterations": its.tolist(), "slope": slope, "reached_all": bool(ok.all())}


def _lower_bound_fails(by: dict[str, dict]) -> list[str]:
    """The lower-bound rule on rows keyed by method (``slope``, ``reached_all``): failed bars (empty = holds)."""
    fails = [f"{m}: slope {by[m]['slope']:.2f} < {SLOW_BAR}" for m in SLOW if not by[m]["slope"] >= SLOW_BAR]
    fails += [f"{m}: slope {by[m]['slope']:.2f} > {FAST_BAR} or ε not reached" for m in FAST
              if not (by[m]["slope"] <= FAST_BAR and by[m]["reached_all"])]
    return fails


def check_lower_bound(cfg: LowerBoundConfig, ctx: Context) -> ClaimResult:
    """[P26] lower bound: on f(θ) = log(1 + e^{−θ}) GD, heavy-ball, AdaGrad, AMSGrad need Ω(1/ε) steps,
    RMSProp and Adam O(log 1/ε)."""
    eps = np.asarray(cfg.eps, dtype=float)
    p = lower_bound_instance()

    def one(item: tuple[str, object]) -> dict:
        name, m = item
        tr = run_method(p, m, iters=cfg.max_iters, log_f_floor=float(np.log(eps.min())) - 1e-9)
        return _lower_bound_row(name, tr.log_f, eps)

    rows = ctx.map(one, list(_lower_bound_methods(cfg).items()))
    by = {r["method"]: r for r in rows}
    fails = _lower_bound_fails(by)
    measured = {f"slope_{r['method']}": r["slope"] for r in rows}
    measured.update({f"iters_{r['method']}": r["iterations"] for r in rows})
    measured["eps"] = eps.tolist()
    summary = ("slope of iters vs 1/ε: " + ", ".join(f"{m} {by[m]['slope']:.2f}" for m in (*SLOW, *FAST, "sign_gd"))
               + f"; β2=0.999: RMSProp {by['rmsprop_b2_0.999']['slope']:.2f}, Adam {by['adam_b2_0.999']['slope']:.2f}")
    reason = ("; ".join(fails) if fails else
              f"GD/heavy-ball/AdaGrad/AMSGrad slopes ≥ {SLOW_BAR} (≈ 1/ε), RMSProp/Adam (β2=0.9) ≤ {FAST_BAR} (≈ log 1/ε) "
              f"for ε in [{eps.min():g}, {eps.max():g}]")
    fig, ax = new_figure()
    for r in rows:
        its = np.asarray(r["iterations"], dtype=float)
        ax.loglog(1.0 / eps[its > 0], its[its > 0], "o-", label=f"{r['method']} ({r['slope']:.2f})", ms=3)
    ax.set(xlabel="1/ε", ylabel="iterations to f ≤ ε", title="f(θ) = log(1 + e^{−θ})")
    ax.legend(fontsize=6)
    figd = render(fig, name="lower_bound_iterations", caption="iterations to ε; legend: log-log slope")
    return ClaimResult(verdict=Verdict.FAILS if fails else Verdict.HOLDS, reason=reason, summary=summary,
                       measured=measured, rows=rows, figures=[figd])


# ---------------------------------------------------------------- the assumption itself
@dataclass(frozen=True)
class AffineConfig:
    n: int = 100
    d: int = 10
    width: int = 20
    arms: int = 10
    iters: int = 3000
    points: int = 40
    min_decades: float = 10.0  # f must span this many decades for the slope bar, else inconclusive


def _affine_row(seed: int, name: str, fit: AffineSmoothnessFit, bound_h1: float | None) -> dict:
    """One trajectory's row; ``bound_h1`` (logistic only) is the closed-form H1 to test ‖∇²f‖ ≤ H1 f against."""
    row = {"seed": seed, "problem": name, "L0": fit.L0, "L1": fit.L1, "loglog_slope": fit.loglog_slope,
           "log10_f_range": [float(np.log10(fit.f.min())), float(np.log10(fit.f.max()))], "mu": fit.mu, "_fit": fit}
    if bound_h1 is not None:
        row["bound_H1"] = bound_h1
        row["bound_holds"] = bool(np.all(fit.hess_norm <= bound_h1 * fit.f * (1 + 1e-9)))
    return row


def _affine_fails(rows: list[dict], min_decades: float) -> tuple[list[str], list[str]]:
    """The assumption rule: (failed bars, trajectories too short to judge). Fails if the first is non-empty, else
    inconclusive if the second is, else holds.

    The slope bar is judged only on trajectories whose f spans ``min_decades``: near f ~ 1 the constant H0 dominates
    any Hessian bound, so a low slope over a short range is no evidence against ‖∇²f‖ ≤ H0 + H1 f. A violated
    closed-form bound (logistic) fails at any length."""
    span = {id(r): r["log10_f_range"][1] - r["log10_f_range"][0] for r in rows}
    fails = [f"seed {r['seed']} {r['problem']}: slope {r['loglog_slope']:.3f} < {AFFINE_BAR}"
             for r in rows if span[id(r)] >= min_decades and not r["loglog_slope"] >= AFFINE_BAR]
    short = [f"seed {r['seed']} {r['problem']}: f spans only {span[id(r)]:.1f} decades"
             for r in rows if span[id(r)] < min_decades]
    fails += [f"seed {r['seed']} {r['problem']}: ‖∇²f‖ > H1 f somewhere" for r in rows if r.get("bound_holds") is False]
    return fails, short


def _affine_verdict(fails: list[str], short: list[str]) -> Verdict:
    """Any failed bar -> fails; else any trajectory too short -> inconclusive; else holds."""
    return Verdict.FAILS if fails else Verdict.INCONCLUSIVE if short else Verdict.HOLDS


def check_affine_smoothness(cfg: AffineConfig, ctx: Context) -> ClaimResult:
    """[P26] abstract: logistic regression, softmax PG and a class of two-layer nets satisfy ‖∇²f‖ ≤ H0 + H1 f."""

    def one(seed: int) -> list[dict]:
        X, y = make_separable_data(cfg.n, cfg.d, margin=0.1, seed=seed)
        r = np.random.default_rng(seed).uniform(0.0, 1.0, cfg.arms)
        probs = {"logistic": (LogisticRegression(X, y), sign_gd(lr=0.1)), "softmax_pg": (SoftmaxBandit(r), sign_gd(lr=0.05)),
                 "two_layer": (TwoLayerNet(X, y, width=cfg.width, seed=seed), rmsprop(lr=0.1, beta2=0.9))}
        out = []
        for name, (p, m) in probs.items():
            tr = run_method(p, m, iters=cfg.iters, keep=cfg.points)
            fit = estimate_affine_smoothness(p.loss, p.grad, p.hess_vec, tr.thetas, seed=seed)
            out.append(_affine_row(seed, name, fit, p.smoothness_bound() if name == "logistic" else None))
        return out

    rows = [r for rs in ctx.map(one, ctx.seeds) for r in rs]
    fails, short = _affine_fails(rows, cfg.min_decades)
    measured = {f"{p}_{k}": [r[k] for r in rows if r["problem"] == p] for p in ("logistic", "softmax_pg", "two_layer")
                for k in ("L0", "L1", "loglog_slope", "mu")}
    summary = "log-log slope ‖∇²f‖ vs f: " + ", ".join(
        f"{p} {np.mean(measured[p + '_loglog_slope']):.3f}" for p in ("logistic", "softmax_pg", "two_layer"))
    reason = ("; ".join(fails) if fails else "; ".join(short) + " (too short to judge)" if short else
              f"along every trajectory (f over ≥ {cfg.min_decades:g} decades) ‖∇²f‖ falls like f (log-log slope ≥ "
              f"{AFFINE_BAR}), and the logistic closed-form bound ‖∇²f‖ ≤ max‖x_i‖² f holds at every point")
    verdict = _affine_verdict(fails, short)
    fig, ax = new_figure()
    for r in rows[:3]:
        ax.loglog(r["_fit"].f, r["_fit"].hess_norm, "o", ms=3, label=f"{r['problem']} (L1={r['L1']:.2g})")
    ax.set(xlabel="f(θ)", ylabel="‖∇²f(θ)‖₂", title="curvature vs objective along trajectories")
    ax.legend(fontsize=7)
    figd = render(fig, name="affine_smoothness", caption="power-iteration Hessian norms vs f (seed 0)")
    return ClaimResult(verdict=verdict, reason=reason, summary=summary, measured=measured,
                       rows=[{k: v for k, v in r.items() if not k.startswith("_")} for r in rows], figures=[figd])


CLAIMS = [
    Claim("sign_gd_logistic", check=check_sign_gd_logistic, budgets={
        "smoke": Budget(LogisticConfig(n=100, d=10, iters=1200, window=400), seeds=1, expected_s=2),
        "small": Budget(LogisticConfig(), seeds=5, expected_s=10),
    }),
    Claim("sign_gd_softmax_pg", check=check_sign_gd_softmax_pg, budgets={
        "smoke": Budget(BanditConfig(iters=1200, window=400), seeds=1, expected_s=1.5),
        "small": Budget(BanditConfig(), seeds=5, expected_s=10),
    }),
    Claim("adaptive_two_layer", check=check_adaptive_two_layer, budgets={
        "smoke": Budget(NetConfig(n=50, d=5, width=10, iters=1200, window=400), seeds=1, expected_s=2),
        "small": Budget(NetConfig(), seeds=3, expected_s=30),
    }),
    Claim("lower_bound", check=check_lower_bound, budgets={
        "smoke": Budget(LowerBoundConfig(eps=(1e-2, 3e-3, 1e-3, 3e-4, 1e-4), max_iters=20_000), seeds=1, expected_s=3),
        "small": Budget(LowerBoundConfig(), seeds=1, expected_s=40),
    }),
    Claim("affine_smoothness", check=check_affine_smoothness, budgets={
        "smoke": Budget(AffineConfig(n=50, d=5, width=10, iters=3000, points=12), seeds=1, expected_s=2.5),
        "small": Budget(AffineConfig(), seeds=3, expected_s=30),
    }),
]
