"""What the [P18] claims measure, all on one set of two-route runs per seed (``_experiments.run_seed``).

The claims form the run group ``two_route`` (paper.toml): each seed's run goes through ``ctx.shared``, so that the
claims of one group run compute it once; a claim run alone computes it itself. The verdicts come from
:mod:`._rules`; this module only builds the rows, the side results (``findings``) and the figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.stats import bootstrap_ci, loglog_slope
from icml26.figures import new_figure, render
from icml26.papers.dist_irl._experiments import run_seed
from icml26.papers.dist_irl._rules import UNJUDGED, judge_fsd, judge_imitation, judge_reward_shape
from icml26.papers.dist_irl._tasks import RISKY, SAFE
from icml26.verdicts import describe

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.dist_irl.claims import DirlConfig

#: the solver's slope is fitted on checkpoints T >= T_max / RATE_WINDOW (its asymptotic regime); a measurement only
RATE_WINDOW = 100.0
TRUE_SIGMA_RATIO = 20.0  # sigma_risky / sigma_safe of the task's true rewards (2.0 / 0.1)


def _runs(cfg: DirlConfig, ctx: Context) -> list[dict[str, Any]]:
    """One run per seed, shared by the claims of the group (``ctx.shared``)."""
    return [ctx.shared(run_seed, cfg.exp, s) for s in ctx.seeds]


def _ci(values: list[float] | np.ndarray, name: str) -> str:
    v = np.asarray(values, dtype=float)
    return describe(name, bootstrap_ci(v, seed=0), n=v.size)


def _shape_rows(runs: list[dict[str, Any]], suffix: str) -> list[dict[str, Any]]:
    return [{"seed": r["seed"], "mu_safe": r["reward_mean" + suffix][SAFE], "mu_risky": r["reward_mean" + suffix][RISKY],
             "sigma_safe": r["reward_std" + suffix][SAFE], "sigma_risky": r["reward_std" + suffix][RISKY]} for r in runs]


def check_reward_shape(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: the reward distribution is recovered. Judged on the fit with every reward group learned
    (as a user would run it), on what the two-route choices can identify: the ordering of the safe and risky laws
    (``_rules.py``). The fit given the start/goal rewards is a privileged finding."""
    runs = _runs(cfg, ctx)
    rows = _shape_rows(runs, "")
    j = judge_reward_shape(rows, bars=ctx.bars)
    known = judge_reward_shape(_shape_rows(runs, "_known"), bars=ctx.bars)
    sig_known, gap_known = known.measured["sigma_ratio"], known.measured["mean_gap"]
    w1 = {k: [r[k] for r in runs] for k in ("w1_dirl_known", "w1_dirl", "w1_maxent")}
    findings = {
        "start/goal cells known to pay 0 (privileged)": (
            f"{_ci(sig_known, 'σ_risky/σ_safe')}, {_ci(gap_known, 'μ_risky − μ_safe')}; against the same bars: "
            f"{known.verdict.value} ({known.reason}). A user does not know these rewards; on this task they are what "
            "identifies the ordering (without them a wide neutral reward explains the choices either way)"),
        "size of the spread (not identifiable on this task)": (
            f"σ_risky/σ_safe: median {np.median(j.measured['sigma_ratio']):.3g} every group learned, "
            f"{np.median(sig_known):.3g} start/goal known (truth {TRUE_SIGMA_RATIO:g}); standardised W1 to the true "
            f"laws: DIRL {np.mean(w1['w1_dirl']):.3f}, start/goal known {np.mean(w1['w1_dirl_known']):.3f}, MaxEnt "
            f"IRL (point masses) {np.mean(w1['w1_maxent']):.3f}"),
    }
    fig, ax = new_figure()
    x = np.arange(len(runs))
    ax.semilogy(x, np.maximum(j.measured["sigma_ratio"], 1e-3), "o", label="every group learned (judged)")
    ax.semilogy(x, np.maximum(sig_known, 1e-3), "s", label="start/goal known (privileged)")
    ax.axhline(1.0, ls="--", c="k", lw=0.8)
    ax.axhline(TRUE_SIGMA_RATIO, ls=":", c="g", label="truth")
    ax.set(xlabel="seed", ylabel="learned σ_risky / σ_safe")
    ax.legend()
    return ClaimResult.judged(
        j, summary=(f"median σ_risky/σ_safe {np.median(j.measured['sigma_ratio']):.3g}, mean μ_risky − μ_safe "
                    f"{np.mean(j.measured['mean_gap']):.3g} (every group learned); start/goal known: "
                    f"{np.median(sig_known):.3g}, {np.mean(gap_known):.3g}"),
        rows=rows, findings=findings,
        measured={"known": {"sigma_ratio": sig_known, "mean_gap": gap_known, "verdict": known.verdict.value}, **w1,
                  "reward_mean": [r["reward_mean"] for r in runs], "reward_std": [r["reward_std"] for r in runs],
                  "reward_mean_known": [r["reward_mean_known"] for r in runs],
                  "reward_std_known": [r["reward_std_known"] for r in runs]},
        figures=[render(fig, name="spread_ratio", caption="Learned σ_risky/σ_safe per seed (above 1: risky wider)")],
        notes="Groups: 0 start/goal cells, 1 safe cells, 2 risky cells. Pinning the start/goal cells to 0 (the "
              "terminal-state convention) is side information the learner is not given in the judged fit.")


def check_risk_averse_imitation(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: DRM-aware policies imitate a risk-averse expert. Judged on DIRL with every reward group
    learned and the expert's own distortion: its agreement with the expert over every decision state, and its margin
    over behaviour cloning and MaxEnt IRL; other settings are findings."""
    runs = _runs(cfg, ctx)

    def agree(m: str, key: str = "agree_all") -> list[float]:
        return [r[key][m] for r in runs]

    rows = [{"seed": r["seed"], "dirl": r["agree_all"]["dirl_free"], "bc": r["agree_all"]["bc"],
             "maxent": r["agree_all"]["maxent"]} for r in runs]
    j = judge_imitation(rows, bars=ctx.bars)
    cvar = {m: float(np.mean([r["cvar"][m] for r in runs])) for m in ("dirl_free", "dirl", "maxent", "expert")}
    mis = {k: [r["mismatched"][k]["agree_all"] for r in runs] for k in runs[0]["mismatched"]}
    mis_safe = {k: [r["mismatched"][k]["agree_safe"] for r in runs] for k in runs[0]["mismatched"]}
    findings = {
        "DIRL with another distortion than the expert's": "; ".join(
            f"{k}: {_ci(v, 'agreement')}, {_ci(mis_safe[k], 'P(safe route) where the expert is safe')}"
            for k, v in mis.items()),
        "DIRL, start/goal cells known (privileged)": _ci(agree("dirl"), "agreement"),
        "P(safe route) where the expert is safe (a narrower metric; an always-safe policy scores 1)": ", ".join(
            f"{m} {np.mean(agree(m, 'agree_safe')):.3f}" for m in ("dirl_free", "dirl", "maxent", "bc")),
        "true CVaR_0.2 of the policies (mean over seeds)": ", ".join(f"{k} {v:.3f}" for k, v in cvar.items()),
    }
    fig, ax = new_figure()
    labels = ["DIRL", "DIRL (start/goal known)", "MaxEnt IRL", "BC", *(f"DIRL {k}" for k in mis)]
    vals = [agree("dirl_free"), agree("dirl"), agree("maxent"), agree("bc"), *mis.values()]
    ax.bar(labels, [float(np.mean(v)) for v in vals])
    ax.tick_params(axis="x", labelrotation=30)
    level = ctx.bar("agreement").value
    ax.axhline(level[0] if isinstance(level, tuple) else float(level), ls="--", c="k")
    ax.set_ylabel("agreement with the expert over every decision state")
    return ClaimResult.judged(
        j, summary=f"agreement over all decision states: DIRL {np.mean(agree('dirl_free')):.3f}, BC "
                   f"{np.mean(agree('bc')):.3f}, MaxEnt {np.mean(agree('maxent')):.3f}",
        rows=rows, findings=findings,
        measured={"agree_all_by_method": {m: agree(m) for m in ("dirl_free", "dirl", "maxent", "bc")},
                  "agree_safe": {m: agree(m, "agree_safe") for m in ("dirl_free", "dirl", "maxent", "bc")},
                  "mismatched": {"agree_all": mis, "agree_safe": mis_safe}, "cvar": cvar},
        figures=[render(fig, name="imitation", caption="Agreement with the expert over both contexts (short: safe, "
                        "long: risky)")],
        notes="The demonstrator is the CVaR_0.2-optimal expert taking the other route with probability "
              f"{cfg.exp.expert_noise} per episode, so each seed's demonstrations differ; agreement is measured against "
              "the noise-free expert. The abstract does not say whether the learner must know the expert's distortion; "
              "the judged fit uses it.")


def check_fsd_decreases(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """[P18] (method: minimise FSD violations): the true FSD violation of DIRL's policy against the expert, read at
    a fixed reward step (every group learned); the end of the run and the privileged fit are findings."""
    runs = _runs(cfg, ctx)
    at = cfg.exp.fsd_step
    rows = [{"seed": r["seed"], "checkpoints": r["checkpoints"], "violation": r["true_violation"]} for r in runs]
    j = judge_fsd(rows, bars=ctx.bars, at=at)
    known = judge_fsd([{**row, "violation": r["true_violation_known"]} for row, r in zip(rows, runs)],
                      bars=ctx.bars, at=at)
    v = np.array([r["true_violation"] for r in runs])
    end = v[:, -1] / np.maximum(v[:, 0], 1e-12)
    findings = {
        f"end of the run (step {cfg.exp.n_iter})": _ci(end, "violation / at step 0"),
        "start/goal cells known (privileged)": f"{known.verdict.value}: {known.reason}",
    }
    ckpt = np.array(runs[0]["checkpoints"])
    fig, ax = new_figure()
    for r in runs:
        ax.plot(ckpt + 1, r["true_violation"], marker="o", alpha=0.7)
    ax.axvline(at + 1, ls=":", c="k")
    ax.set_xscale("log")
    ax.set(xlabel="reward step + 1", ylabel="FSD violation vs expert (true rewards, scaled)")
    return ClaimResult.judged(
        j, summary=(f"violation at step {at} / at step 0: {np.mean(j.measured['ratio_at_step']):.3g}"
                    if "ratio_at_step" in j.measured else j.reason) + f"; at the end {np.mean(end):.3g}",
        rows=rows, findings=findings,
        measured={"checkpoints": ckpt.tolist(), "true_violation": v.tolist(),
                  "known_neutral": {"true_violation": [r["true_violation_known"] for r in runs],
                                    "verdict": known.verdict.value},
                  "train_violation_first_last": [[r["train_violation"][0], r["train_violation"][-1]] for r in runs]},
        figures=[render(fig, name="fsd_violation", caption="Exact FSD violation of the learner during training")],
        notes="Violation against the noise-free CVaR-optimal expert policy (the demonstrator is its noisy version).")


def _solver_slope(runs: list[dict[str, Any]], ckpt: np.ndarray, suffix: str = "") -> tuple[np.ndarray, list[float]]:
    """Seed-mean best-so-far excess f(phi_bar_T) - f* and its log-log slope [value, lo, hi] on T >= T_max /
    RATE_WINDOW (NaN when fewer than 3 points remain)."""
    exc = np.array([np.asarray(r["objective_avg" + suffix]) - r["f_star" + suffix] for r in runs])
    best = np.minimum.accumulate(exc, axis=1).mean(axis=0)
    keep = (ckpt >= max(1.0, ckpt.max() / RATE_WINDOW)) & (best > 1e-12)
    if keep.sum() < 3:
        return best, [float("nan")] * 3
    s = loglog_slope(ckpt[keep], best[keep])
    return best, [s.value, s.lo, s.hi]


def check_iteration_complexity(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: O(eps^-2) iterations. Not judged (``UNJUDGED``): our solver's best-so-far excess objective
    (DIRL with every group learned) is reported as a curve and a log-log slope."""
    runs = _runs(cfg, ctx)
    ckpt = np.array(runs[0]["checkpoints"])
    best, slope = _solver_slope(runs, ckpt)
    _, slope_k = _solver_slope(runs, ckpt, "_known")
    bar = ctx.bar("rate_slope")
    fig, ax = new_figure()
    pos = best > 1e-12
    ax.loglog(np.maximum(ckpt[pos], 1), best[pos], marker="o", label=f"our solver, slope {slope[0]:.2f}")
    ax.set(xlabel="iterations T", ylabel="best f(phi_bar_T) - f* so far (our solver)")
    ax.legend()
    return ClaimResult(
        verdict=Verdict.UNSUPPORTED,
        reason=(f"{UNJUDGED['iteration_complexity']}. Our solver, every group learned: log-log slope {slope[0]:.3g} "
                f"[{slope[1]:.3g}, {slope[2]:.3g}] on T >= T_max/{RATE_WINDOW:g} (the paper's rate: slope "
                f"{bar.threshold}); start/goal cells known: {slope_k[0]:.3g} [{slope_k[1]:.3g}, {slope_k[2]:.3g}]"),
        summary=f"not judged; our solver's slope {slope[0]:.3g}",
        measured={"solver_slope": slope, "solver_slope_known": slope_k, "best_excess": best.tolist(),
                  "checkpoints": ckpt.tolist(), "f_star": [r["f_star"] for r in runs]},
        figures=[render(fig, name="iteration_complexity", caption="Best-so-far excess objective of our solver")],
        notes="f is the worst-case DRM gap over (start, deviating policy); f* is the LP value of its pieces linearised "
              "at the last iterate (exact when every piece is affine; with the noisy expert's mixture laws and a free "
              "neutral sigma it is a linearisation). The paper's bound is on its own objective; this is our game's.")
