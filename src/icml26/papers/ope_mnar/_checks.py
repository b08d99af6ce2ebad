"""What the [P36] claims measure: replicated datasets of :class:`MNARSimulator` (``reps`` per seed), each estimator's
value estimate against the Monte Carlo truth, and the figures. The verdicts come from :mod:`._rules`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.common.stats import bootstrap_ci
from icml26.figures import new_figure, render
from icml26.papers.ope_mnar._experiments import POLICY_NOTES, POLICY_STOP, replicate, truth
from icml26.papers.ope_mnar._rules import (
    MAR_METHODS,
    errors,
    judge_consistency,
    judge_identification,
    judge_mar_biased,
    judge_missingness_policy,
    rmse,
)
from icml26.papers.ope_mnar._simulator import MNARSimulator
from icml26.verdicts import describe

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.ope_mnar.claims import OPEConfig


def _run(sim: MNARSimulator, cfg: OPEConfig, ctx: Context, methods: tuple[str, ...], policies: dict[str, Any],
         ns: tuple[int, ...] | None = None) -> list[dict[str, Any]]:
    tasks = [(sim, s, cfg.reps, ns or cfg.ns, methods, policies) for s in ctx.seeds]
    return [r for rows in ctx.map(replicate, tasks) for r in rows]


def check_consistency(cfg: OPEConfig, ctx: Context) -> ClaimResult:
    """[P36] abstract (consistency, finite-sample error bounds): the bridge FQE's bias at the largest n against the
    complete-case bias, and its RMSE over n (oracle and complete case for reference)."""
    sim = MNARSimulator()
    v, v_se = truth(sim, POLICY_NOTES, n_mc=cfg.n_mc, seed=ctx.seeds[0])
    methods = ("oracle", "complete_case", "bridge")
    rows = _run(sim, cfg, ctx, methods, {"pi": POLICY_NOTES})
    j = judge_consistency(rows, bars=ctx.bars, truth=v)
    rm = {m: [rmse(errors(rows, {"pi": v}, method=m, n=n, policy="pi")) for n in cfg.ns] for m in methods}
    fig, ax = new_figure()
    for m, style in zip(methods, ("k--", "C1-o", "C0-s")):
        ax.loglog(cfg.ns, rm[m], style, label=m.replace("_", "-"))
    ref = rm["bridge"][0] * (np.array(cfg.ns) / cfg.ns[0]) ** -0.5
    ax.loglog(cfg.ns, ref, ":", color="grey", label="n^-1/2")
    ax.set(xlabel="n (trajectories)", ylabel="RMSE of V̂(π)")
    ax.legend(fontsize=8)
    b = j.measured["bias_ratio"]
    return ClaimResult.judged(
        j, summary=f"|bias| ratio {b[0]:.3f} [{b[1]:.3f}, {b[2]:.3f}]; RMSE " + " → ".join(f"{x:.3f}" for x in rm["bridge"]),
        rows=rows, measured={"truth": v, "truth_mc_se": v_se, "rmse": rm},
        figures=[render(fig, name="rmse_vs_n", caption="RMSE of V̂(π) vs n (log-log), truth by Monte Carlo.")])


def check_mar_biased(cfg: OPEConfig, ctx: Context) -> ClaimResult:
    """[P36] abstract: MNAR "induces selection bias even after conditioning on states and actions": methods valid
    under MAR keep their bias as n grows under MNAR; under MCAR (control) they are unbiased."""
    ns = (cfg.ns[0], cfg.ns[-1])
    methods = (*MAR_METHODS, "zero_impute", "bridge")
    rows, tv = {}, {}
    for design, sim in (("mnar", MNARSimulator()), ("mcar", MNARSimulator(missing_slope=0.0))):
        tv[design], _ = truth(sim, POLICY_NOTES, n_mc=cfg.n_mc, seed=ctx.seeds[0])
        rows[design] = _run(sim, cfg, ctx, methods, {"pi": POLICY_NOTES}, ns=ns)
    j = judge_mar_biased(rows["mnar"], rows["mcar"], bars=ctx.bars, truth_mnar=tv["mnar"], truth_mcar=tv["mcar"])
    bias = {d: {m: bootstrap_ci(errors(rows[d], {"pi": tv[d]}, method=m, n=ns[-1], policy="pi"), seed=0)
                for m in methods} for d in rows}
    findings = {f"{m} (not a MAR method)": f"MNAR {describe('bias', bias['mnar'][m])}, MCAR "
                f"{describe('bias', bias['mcar'][m])} at n={ns[-1]}" for m in ("zero_impute", "bridge")}
    fig, ax = new_figure()
    xs = np.arange(len(methods))
    for k, (design, off) in enumerate((("mnar", -0.2), ("mcar", 0.2))):
        b = [bias[design][m] for m in methods]
        ax.bar(xs + off, [e.value for e in b], width=0.4, label=f"{design.upper()} (n={ns[-1]})", color=f"C{k}",
               yerr=np.array([[e.value - e.lo for e in b], [e.hi - e.value for e in b]]))
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(xs, [m.replace("_", "-") for m in methods])
    ax.set_ylabel("bias of V̂(π)")
    ax.legend(fontsize=8)
    return ClaimResult.judged(
        j, summary=", ".join(f"{m} {bias['mnar'][m].value:+.2f}" for m in methods) + f" (MNAR, n={ns[-1]})",
        findings=findings,
        measured={"n": list(ns), "bias_nmax": {d: {m: [e.value, e.lo, e.hi] for m, e in b.items()}
                                               for d, b in bias.items()}},
        figures=[render(fig, name="bias_mnar_vs_mcar", caption="Bias at the largest n, MNAR vs MCAR.")])


def check_missingness_policy(cfg: OPEConfig, ctx: Context) -> ClaimResult:
    """[P36] abstract: target policies may depend on past missingness indicators. π_h stops treating after an
    unrecorded outcome; the bridge estimates it and its missingness-blind twin π_blind at the largest n."""
    sim = MNARSimulator()
    pols = {"pi_h": POLICY_STOP, "pi_blind": POLICY_STOP.blind()}
    tv = {k: truth(sim, p, n_mc=cfg.n_mc, seed=ctx.seeds[0])[0] for k, p in pols.items()}
    nmax = cfg.ns[-1]
    rows = _run(sim, cfg, ctx, ("complete_case", "bridge"), pols, ns=(nmax,))
    j = judge_missingness_policy(rows, bars=ctx.bars, truths=tv)
    e_h, e_b = (errors(rows, tv, method="bridge", n=nmax, policy=p) for p in ("pi_h", "pi_blind"))
    cc = bootstrap_ci(errors(rows, tv, method="complete_case", n=nmax, policy="pi_h"), seed=0)
    fig, ax = new_figure()
    ax.hist(e_h + tv["pi_h"], bins=20, alpha=0.6, label="bridge V̂(π_h)")
    ax.hist(e_b + tv["pi_blind"], bins=20, alpha=0.6, label="bridge V̂(π_blind)")
    for k, c in (("pi_h", "C0"), ("pi_blind", "C1")):
        ax.axvline(tv[k], color=c, ls="--")
    ax.axvline(cc.value + tv["pi_h"], color="k", ls=":", label="complete-case mean V̂(π_h)")
    ax.set_xlabel("estimated value (dashed: truth)")
    ax.legend(fontsize=8)
    return ClaimResult.judged(
        j, summary=f"bias {e_h.mean():+.3f} vs Δ {j.measured['delta']:+.3f}; Δ̂ {np.mean(e_h - e_b) + j.measured['delta']:+.3f}",
        findings={"complete case on π_h": describe("bias", cc)},
        measured={"truth": tv, "n": nmax, "replicates": int(e_h.size)},
        figures=[render(fig, name="missingness_policy", caption="Bridge estimates of π_h and π_blind.")])


def check_identification(cfg: OPEConfig, ctx: Context) -> ClaimResult:
    """[P36] abstract: future states as shadow variables identify the full-data mean reward. A relevant shadow
    (γ = 0.8) against an irrelevant one (γ = 0, identification fails) at the smallest and largest n."""
    ns = (cfg.ns[0], cfg.ns[-1])
    rows, tv = {}, {}
    for design, sim in (("relevant", MNARSimulator()), ("irrelevant", MNARSimulator(shadow_strength=0.0))):
        tv[design], _ = truth(sim, POLICY_NOTES, n_mc=cfg.n_mc, seed=ctx.seeds[0])
        methods = ("complete_case", "bridge") if design == "relevant" else ("bridge",)
        rows[design] = _run(sim, cfg, ctx, methods, {"pi": POLICY_NOTES}, ns=ns)
    j = judge_identification(rows["relevant"], rows["irrelevant"], bars=ctx.bars, truth_relevant=tv["relevant"],
                             truth_irrelevant=tv["irrelevant"])
    F = {d: {n: [r["min_shadow_F"] for r in rs if r["method"] == "bridge" and r["n"] == n] for n in ns}
         for d, rs in rows.items()}
    fig, ax = new_figure()
    for design, c in (("relevant", "C0"), ("irrelevant", "C3")):
        ax.hist(np.log10(np.maximum(np.concatenate([F[design][n] for n in ns]), 1e-3)), bins=20, alpha=0.6, color=c,
                label=f"shadow {design}")
    ax.axvline(1.0, color="k", ls="--", label="min_shadow_F = 10")
    ax.set_xlabel("log10 min shadow-relevance F over (t, a)")
    ax.legend(fontsize=8)
    med = {d: {str(n): float(np.median(F[d][n])) for n in ns} for d in F}
    est = {k: next(iter(j.measured[k].values()))["estimate"] for k in ("bias", "rmse_shrinks", "irrelevant_biased")}
    rates = {k: next(iter(v.values()))["estimate"] for k, v in j.measured.items() if "shadow" in k}
    summary = (f"accepted/refused ≥ {min(rates.values()):.0%} of datasets; |bias| ratio {est['bias']:.3f}, RMSE ratio "
               f"{est['rmse_shrinks']:.2f} (relevant); unguarded |bias| ratio {est['irrelevant_biased']:.2f} (irrelevant)")
    return ClaimResult.judged(
        j, summary=summary,
        measured={"median_min_F": med, "truth": tv},
        figures=[render(fig, name="shadow_relevance", caption="Shadow-relevance F: relevant vs irrelevant.")])
