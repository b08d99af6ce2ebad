"""Claim checks of [P18] "Distributional Inverse Reinforcement Learning" (claims' text in paper.toml).

All four claims are measured on the two-route benchmark (_tasks.py) with one shared run per seed: a CVaR_0.2 expert,
state/action demonstrations only, DistributionalIRL with its default hyper-parameters (fixed before any check) against
mean-matching MaxEnt IRL and behaviour cloning. The bars below come from the issue / the paper notes and were fixed
before the first measurement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from icml26.claims import Budget, Claim, ClaimResult, Context, Verdict
from icml26.common.stats import bootstrap_ci, loglog_slope
from icml26.figures import new_figure, render

from ._experiments import ExperimentConfig, run_seed

# Bars. The first set came from the issue and was fixed before the first measurement; the review round (issue 8) fixed
# the changes marked "review" BEFORE the re-measurement, and whatever came out of it is reported as is.
W1_RATIO_BAR = 0.5  # DIRL's standardised W1 to the truth at most half of mean-matching IRL's
SIGMA_RATIO_BAR = 5.0  # learned sigma_risky / sigma_safe at least 5 (truth: 20)
# review: on this task the spread is not identifiable (the learned ratio follows the box and the iteration count, and
# the same reward is learned for sigma_risky = 1 and 2), so reward_shape is never `holds`: it fails if a bar is
# clearly missed and is `inconclusive` otherwise.
NOT_IDENTIFIABLE = "the reward's spread is not identifiable on this task: learned ratio follows the box, not the truth"
AGREE_BAR = 0.9  # DIRL takes the expert's safe route with probability >= 0.9 ...
# review: ... where mean-matching IRL takes it with probability <= 0.25 (was 0.5, which a uniform policy meets); the
# verdict is judged WITHOUT privileged information (no known_rewards); the neutral-cells-known row is reported only.
MEAN_IRL_BAR = 0.25
FSD_DROP_BAR = 0.05  # final true FSD violation <= 5% of the initial one
# review: and the curve must fall early: the violation at T // 10 at most half the initial one (not a late jump).
FSD_EARLY_BAR = 0.5
RATE_SLOPE = -0.5  # O(eps^-2) iterations <=> best violation after T iterations decays like T^-1/2 or faster
RATE_WINDOW = 100.0  # the slope is fitted on the asymptotic regime: checkpoints T >= T_max / RATE_WINDOW
# review: what we measure is our solver's rate on a 2-piece LP, not [P18]'s theorem: iteration_complexity is
# `unsupported`; the solver's slope is reported (with the rule's outcome) as a curve and a number only.
RATE_UNSUPPORTED = ("[P18]'s O(eps^-2) statement is about its own algorithm and objective; what we can measure is our "
                    "mirror-prox solver's rate on this task's piecewise-linear game (reported in `measured` and the figure)")


def rule(value: float, lo: float, hi: float, bar: float, *, upper: bool) -> Verdict:
    """Verdict of one bar: holds if ``value`` meets it (value <= bar if ``upper`` else >= bar); fails if it misses and
    the CI [lo, hi] is non-finite (no CI to hope with) or lies entirely on the wrong side; inconclusive otherwise.
    A non-finite ``value`` is inconclusive (nothing was measured)."""
    if not np.isfinite(value):
        return Verdict.INCONCLUSIVE
    if (value <= bar) if upper else (value >= bar):
        return Verdict.HOLDS
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return Verdict.FAILS
    return Verdict.FAILS if ((lo > bar) if upper else (hi < bar)) else Verdict.INCONCLUSIVE


def combine(*verdicts: Verdict) -> Verdict:
    """All parts hold -> holds; any part fails -> fails; otherwise inconclusive."""
    if any(v == Verdict.FAILS for v in verdicts):
        return Verdict.FAILS
    return Verdict.HOLDS if all(v == Verdict.HOLDS for v in verdicts) else Verdict.INCONCLUSIVE


@dataclass(frozen=True)
class DirlConfig:
    """Sizes of the shared run (see ExperimentConfig)."""

    exp: ExperimentConfig = field(default_factory=ExperimentConfig)


SMOKE = DirlConfig(ExperimentConfig(n_demos=60, n_iter=200, n_quantiles=12, n_checkpoints=6))
SMALL = DirlConfig(ExperimentConfig(n_iter=2000, n_checkpoints=16))  # review: 2000 (noisy expert laws cost ~10x)
FULL = DirlConfig(ExperimentConfig(n_demos=500, n_iter=20000, n_quantiles=51, n_checkpoints=16))


@lru_cache(maxsize=64)
def _run(exp: ExperimentConfig, seed: int) -> dict:
    return run_seed(exp, seed)


def _runs(cfg: DirlConfig, ctx: Context) -> list[dict]:
    return ctx.map(lambda s: _run(cfg.exp, s), list(ctx.seeds))


def check_reward_shape(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: the reward *distribution* is recovered (risky cells wide, safe cells narrow).

    Never `holds` on this task (see NOT_IDENTIFIABLE): fails if a bar is clearly missed, inconclusive otherwise."""
    runs = _runs(cfg, ctx)
    w1_d = np.array([r["w1_dirl"] for r in runs])
    w1_m = np.array([r["w1_maxent"] for r in runs])
    sig = np.array([r["sigma_ratio"] for r in runs])
    ratio = bootstrap_ci(w1_d / w1_m, seed=0)
    sig_ci = bootstrap_ci(sig, stat=np.median, seed=0)
    parts = combine(rule(ratio.value, ratio.lo, ratio.hi, W1_RATIO_BAR, upper=True),
                    rule(sig_ci.value, sig_ci.lo, sig_ci.hi, SIGMA_RATIO_BAR, upper=False))
    verdict = Verdict.FAILS if parts == Verdict.FAILS else Verdict.INCONCLUSIVE
    fig, ax = new_figure()
    ax.bar(["DIRL", "MaxEnt IRL"], [w1_d.mean(), w1_m.mean()], yerr=[w1_d.std(), w1_m.std()])
    ax.set_ylabel("standardised W1 to the true reward distributions")
    return ClaimResult(
        verdict=verdict,
        reason=(f"{NOT_IDENTIFIABLE}. W1(DIRL)/W1(MaxEnt) = {ratio} (bar <= {W1_RATIO_BAR}; MaxEnt's W1 is that of two "
                f"point masses, so the bar is W1 <= {W1_RATIO_BAR * float(w1_m.mean()):.3f}); median "
                f"sigma_risky/sigma_safe = {sig_ci} (bar >= {SIGMA_RATIO_BAR}, truth 20); bars alone: {parts.value}"),
        summary=f"W1 ratio {ratio.value:.3g}, sigma ratio {sig_ci.value:.3g} (not identifiable)",
        measured={"w1_dirl": w1_d.tolist(), "w1_maxent": w1_m.tolist(), "w1_ratio": ratio.value,
                  "w1_ratio_ci": [ratio.lo, ratio.hi], "sigma_ratio": sig.tolist(),
                  "log_sigma_ratio_error": np.abs(np.log(sig / 20.0)).tolist(), "bars_alone": parts.value,
                  "reward_mean": [r["reward_mean"] for r in runs], "reward_std": [r["reward_std"] for r in runs]},
        figures=[render(fig, name="reward_w1", caption="Standardised W1 between learned and true reward laws")],
        notes="Groups compared: safe and risky cells; each side standardised by its own mixture mean/std. A planted "
              "reward with zero means and sigmas at the box corners also meets both bars (tests/).",
    )


def check_risk_averse_imitation(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: DRM-aware policies imitate a risk-averse expert where mean matching does not. Judged with
    every reward group learned (no privileged information); the neutral-cells-known row is reported alongside."""
    runs = _runs(cfg, ctx)
    names = ("dirl_free", "dirl", "maxent", "bc")
    ag = {m: np.array([r["agree_safe"][m] for r in runs]) for m in names}
    cv = {m: np.array([r["cvar"][m] for r in runs]) for m in ("dirl_free", "dirl", "maxent", "expert")}
    ci = {m: bootstrap_ci(ag[m], seed=0) for m in names}
    m_rule = rule(ci["maxent"].value, ci["maxent"].lo, ci["maxent"].hi, MEAN_IRL_BAR, upper=True)
    free = combine(rule(ci["dirl_free"].value, ci["dirl_free"].lo, ci["dirl_free"].hi, AGREE_BAR, upper=False), m_rule)
    known = combine(rule(ci["dirl"].value, ci["dirl"].lo, ci["dirl"].hi, AGREE_BAR, upper=False), m_rule)
    fig, ax = new_figure()
    labels = ["DIRL", "DIRL (neutral known)", "MaxEnt IRL", "BC"]
    ax.bar(labels, [ag[m].mean() for m in names])
    ax.axhline(AGREE_BAR, ls="--", c="k")
    ax.axhline(MEAN_IRL_BAR, ls=":", c="r")
    ax.set_ylabel("P(safe route) where the expert is safe")
    return ClaimResult(
        verdict=free,
        reason=(f"judged with every reward group learned (no known_rewards): P(safe | short context) DIRL "
                f"{ci['dirl_free']} (bar >= {AGREE_BAR}), MaxEnt IRL {ci['maxent']} (bar <= {MEAN_IRL_BAR}); "
                f"neutral cells known (privileged): DIRL {ci['dirl']} -> {known.value}; BC {ci['bc']}; true CVaR_0.2: "
                f"DIRL {cv['dirl_free'].mean():.3f}, DIRL(known) {cv['dirl'].mean():.3f}, MaxEnt "
                f"{cv['maxent'].mean():.3f}, expert {cv['expert'].mean():.3f}"),
        summary=(f"P(safe): DIRL {ci['dirl_free'].value:.3f} (neutral known {ci['dirl'].value:.3f}), MaxEnt "
                 f"{ci['maxent'].value:.3f}, BC {ci['bc'].value:.3f}"),
        measured={"agree_safe": {m: v.tolist() for m, v in ag.items()}, "cvar": {m: v.tolist() for m, v in cv.items()},
                  "agree_safe_ci": {m: [c.value, c.lo, c.hi] for m, c in ci.items()},
                  "verdict_known_neutral": known.value, "agree_all": [r["agree_all"] for r in runs]},
        figures=[render(fig, name="imitation", caption="Probability of the expert's safe route in the short context")],
        notes="The demonstrator is the CVaR-optimal expert taking the other route with probability "
              f"{cfg.exp.expert_noise} per episode, so each seed's demonstrations differ.",
    )


def check_fsd_decreases(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: training drives the FSD violation of the learner against the expert down; judged on the end
    point (final / initial) and on the curve (violation at T // 10 / initial)."""
    runs = _runs(cfg, ctx)
    ckpt = np.array(runs[0]["checkpoints"])
    v = np.array([r["true_violation"] for r in runs])
    early_i = int(np.flatnonzero(ckpt == cfg.exp.n_iter // 10)[0])
    base = np.maximum(v[:, 0], 1e-12)
    drop = bootstrap_ci(v[:, -1] / base, seed=0)
    early = bootstrap_ci(v[:, early_i] / base, seed=0)
    verdict = combine(rule(drop.value, drop.lo, drop.hi, FSD_DROP_BAR, upper=True),
                      rule(early.value, early.lo, early.hi, FSD_EARLY_BAR, upper=True))
    non_increasing = float(np.mean(np.diff(v, axis=1) <= 1e-12))
    fig, ax = new_figure()
    for r in runs:
        ax.plot(ckpt + 1, r["true_violation"], marker="o", alpha=0.7)
    ax.axvline(cfg.exp.n_iter // 10 + 1, ls=":", c="k")
    ax.set_xscale("log")
    ax.set_xlabel("iteration + 1")
    ax.set_ylabel("FSD violation vs expert (true rewards, scaled)")
    return ClaimResult(
        verdict=verdict,
        reason=(f"final/initial true FSD violation = {drop} (bar <= {FSD_DROP_BAR}); at T/10 = "
                f"{cfg.exp.n_iter // 10}: {early} (bar <= {FSD_EARLY_BAR}); non-increasing steps {non_increasing:.2f}"),
        summary=f"final/initial {drop.value:.3g}, T/10 / initial {early.value:.3g}",
        measured={"checkpoints": ckpt.tolist(), "true_violation": v.tolist(), "drop": drop.value,
                  "early_ratio": early.value, "non_increasing_fraction": non_increasing,
                  "train_violation_first_last": [[r["train_violation"][0], r["train_violation"][-1]] for r in runs]},
        figures=[render(fig, name="fsd_violation", caption="Exact FSD violation of the learner during training")],
        notes="Violation against the noise-free CVaR-optimal expert policy (the demonstrator is its noisy version).",
    )


def check_iteration_complexity(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: O(eps^-2) iterations. `unsupported`: we can only measure our solver's rate (the best-so-far
    excess f(phi_bar_t) - f* of the game objective, f* exact by LP), reported as a curve and a slope."""
    runs = _runs(cfg, ctx)
    ckpt = np.array(runs[0]["checkpoints"])
    exc = np.array([np.asarray(r["objective_avg"]) - r["f_star"] for r in runs])
    best = np.minimum.accumulate(exc, axis=1).mean(axis=0)
    keep = (ckpt >= max(1.0, ckpt.max() / RATE_WINDOW)) & (best > 1e-12)
    if keep.sum() >= 3:
        slope = loglog_slope(ckpt[keep], best[keep])
        s_val, s_lo, s_hi = slope.value, slope.lo, slope.hi
    else:
        s_val = s_lo = s_hi = float("nan")
    solver_rule = rule(s_val, s_lo, s_hi, RATE_SLOPE, upper=True)
    fig, ax = new_figure()
    pos = best > 1e-12
    ax.loglog(np.maximum(ckpt[pos], 1), best[pos], marker="o", label=f"measured, slope {s_val:.2f}")
    ax.set_xlabel("iterations T")
    ax.set_ylabel("best f(phi_bar_T) - f* so far (our solver)")
    ax.legend()
    return ClaimResult(
        verdict=Verdict.UNSUPPORTED,
        reason=(f"{RATE_UNSUPPORTED}. Our solver: log-log slope {s_val:.3g} [{s_lo:.3g}, {s_hi:.3g}] on "
                f"T >= T_max/{RATE_WINDOW:g} (<= {RATE_SLOPE} would be {solver_rule.value})"),
        summary=f"unsupported; solver slope {s_val:.3g}",
        measured={"solver_slope": s_val, "solver_slope_ci": [s_lo, s_hi], "solver_rate_rule": solver_rule.value,
                  "best_excess": best.tolist(), "checkpoints": ckpt.tolist(),
                  "f_star": [r["f_star"] for r in runs]},
        figures=[render(fig, name="iteration_complexity", caption="Best-so-far excess objective of our solver")],
        notes="f is the worst-case DRM gap over (start, deviating policy); on this task it is convex piecewise "
              "linear, so f* is exact (LP). The paper's bound is on its own objective; this is our game's.",
    )


def _budgets(smoke_s: float, small_s: float) -> dict[str, Budget]:
    return {
        "smoke": Budget(SMOKE, seeds=1, expected_s=smoke_s),
        "small": Budget(SMALL, seeds=5, expected_s=small_s),
        "full": Budget(FULL, seeds=10, expected_s=3600),
    }


CLAIMS = [
    Claim("reward_shape", check=check_reward_shape, budgets=_budgets(3, 60)),
    Claim("risk_averse_imitation", check=check_risk_averse_imitation, budgets=_budgets(3, 60)),
    Claim("fsd_decreases", check=check_fsd_decreases, budgets=_budgets(3, 60)),
    Claim("iteration_complexity", check=check_iteration_complexity, budgets=_budgets(3, 60)),
]
