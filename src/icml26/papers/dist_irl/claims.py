"""Claim checks of [P18] "Distributional Inverse Reinforcement Learning" (claims' text in paper.toml).

All four claims are measured on the two-route benchmark (_tasks.py) with one shared run per seed: a CVaR_0.2 expert,
state/action demonstrations only, DistributionalIRL with its default hyper-parameters (fixed before any check) against
mean-matching MaxEnt IRL and behaviour cloning. Every verdict is judged on DIRL with every reward group learned (no
privileged information); the fit with the neutral cells known and the fits with a distortion other than the expert's
are extra rows. The bars below come from the issue / the paper notes and were fixed before the first measurement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from icml26.claims import Budget, Claim, ClaimResult, Context, Verdict
from icml26.common.stats import Estimate, bootstrap_ci, loglog_slope
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
# review 2: a bar holds only if its whole CI meets it (rule()), and never below MIN_SEEDS seeds.
RATE_UNSUPPORTED = ("[P18]'s O(eps^-2) statement is about its own algorithm and objective; what we can measure is our "
                    "mirror-prox solver's rate on this task's piecewise-linear game (reported in `measured` and the figure)")


MIN_SEEDS = 3  # DESIGN.md: a stochastic claim needs >= 3 seeds; below that every bar is inconclusive


def rule(value: float, lo: float, hi: float, bar: float, *, upper: bool, n: int) -> Verdict:
    """Verdict of one bar on an estimate ``value`` with CI [lo, hi] from ``n`` seeds (review: decided on the CI).

    holds iff the whole CI meets the bar (hi <= bar if ``upper`` else lo >= bar); fails iff the whole CI misses it
    (lo > bar, resp. hi < bar); inconclusive otherwise, and always when n < MIN_SEEDS or anything is non-finite."""
    if n < MIN_SEEDS or not (np.isfinite(value) and np.isfinite(lo) and np.isfinite(hi)):
        return Verdict.INCONCLUSIVE
    if (hi <= bar) if upper else (lo >= bar):
        return Verdict.HOLDS
    if (lo > bar) if upper else (hi < bar):
        return Verdict.FAILS
    return Verdict.INCONCLUSIVE


def _rule(est: Estimate, bar: float, *, upper: bool, n: int) -> Verdict:
    return rule(est.value, est.lo, est.hi, bar, upper=upper, n=n)


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


def _shape_verdict(w1_d: np.ndarray, w1_m: np.ndarray, sig: np.ndarray) -> tuple[Verdict, Estimate, Estimate]:
    """Both bars on (W1 ratio CI, median sigma-ratio CI): the verdict of the bars alone and the two estimates."""
    ratio = bootstrap_ci(w1_d / w1_m, seed=0)
    sig_ci = bootstrap_ci(sig, stat=np.median, seed=0)
    parts = combine(_rule(ratio, W1_RATIO_BAR, upper=True, n=sig.size),
                    _rule(sig_ci, SIGMA_RATIO_BAR, upper=False, n=sig.size))
    return parts, ratio, sig_ci


def check_reward_shape(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: the reward *distribution* is recovered (risky cells wide, safe cells narrow).

    Judged on DIRL with every group learned. Never `holds` on this task (see NOT_IDENTIFIABLE): fails if a bar is
    clearly missed (whole CI on the wrong side), inconclusive otherwise. The neutral-cells-known fit is reported only."""
    runs = _runs(cfg, ctx)
    w1_m = np.array([r["w1_maxent"] for r in runs])
    w1_d, sig = (np.array([r[k] for r in runs]) for k in ("w1_dirl", "sigma_ratio"))
    w1_k, sig_k = (np.array([r[k] for r in runs]) for k in ("w1_dirl_known", "sigma_ratio_known"))
    parts, ratio, sig_ci = _shape_verdict(w1_d, w1_m, sig)
    parts_k, ratio_k, sig_ci_k = _shape_verdict(w1_k, w1_m, sig_k)
    verdict = Verdict.FAILS if parts == Verdict.FAILS else Verdict.INCONCLUSIVE
    fig, ax = new_figure()
    ax.bar(["DIRL", "DIRL (neutral known)", "MaxEnt IRL"], [w1_d.mean(), w1_k.mean(), w1_m.mean()],
           yerr=[w1_d.std(), w1_k.std(), w1_m.std()])
    ax.set_ylabel("standardised W1 to the true reward distributions")
    return ClaimResult(
        verdict=verdict,
        reason=(f"{NOT_IDENTIFIABLE}. Every group learned: W1(DIRL)/W1(MaxEnt) = {ratio} (bar <= {W1_RATIO_BAR}; "
                f"MaxEnt's W1 is that of two point masses, {float(w1_m.mean()):.3f}); median sigma_risky/sigma_safe = "
                f"{sig_ci} (bar >= {SIGMA_RATIO_BAR}, truth 20); bars alone: {parts.value}. Neutral cells known "
                f"(privileged): W1 ratio {ratio_k}, sigma ratio {sig_ci_k}, bars alone {parts_k.value}"),
        summary=f"W1 ratio {ratio.value:.3g}, sigma ratio {sig_ci.value:.3g} (not identifiable)",
        measured={"w1_dirl": w1_d.tolist(), "w1_maxent": w1_m.tolist(), "w1_ratio": ratio.value,
                  "w1_ratio_ci": [ratio.lo, ratio.hi], "sigma_ratio": sig.tolist(),
                  "sigma_ratio_ci": [sig_ci.value, sig_ci.lo, sig_ci.hi],
                  "log_sigma_ratio_error": np.abs(np.log(sig / 20.0)).tolist(), "bars_alone": parts.value,
                  "reward_mean": [r["reward_mean"] for r in runs], "reward_std": [r["reward_std"] for r in runs],
                  "known_neutral": {"w1_dirl": w1_k.tolist(), "w1_ratio_ci": [ratio_k.value, ratio_k.lo, ratio_k.hi],
                                    "sigma_ratio": sig_k.tolist(), "bars_alone": parts_k.value}},
        figures=[render(fig, name="reward_w1", caption="Standardised W1 between learned and true reward laws")],
        notes="Groups compared: safe and risky cells; each side standardised by its own mixture mean/std. A planted "
              "reward with zero means and sigmas at the box corners also meets both bars (tests/).",
    )


def check_risk_averse_imitation(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: DRM-aware policies imitate a risk-averse expert where mean matching does not. Judged with
    every reward group learned and the learner's distortion = the expert's (the paper notes' protocol); reported
    alongside: the neutral-cells-known fit and learners with a mismatched distortion (CVaR 0.1 / 0.3, Wang 0.75)."""
    runs = _runs(cfg, ctx)
    n = len(runs)
    names = ("dirl_free", "dirl", "maxent", "bc")
    ag = {m: np.array([r["agree_safe"][m] for r in runs]) for m in names}
    cv = {m: np.array([r["cvar"][m] for r in runs]) for m in ("dirl_free", "dirl", "maxent", "expert")}
    mis = {k: np.array([r["mismatched"][k]["agree_safe"] for r in runs]) for k in runs[0]["mismatched"]}
    mis_cv = {k: np.array([r["mismatched"][k]["cvar"] for r in runs]) for k in mis}
    ci = {m: bootstrap_ci(v, seed=0) for m, v in {**ag, **mis}.items()}
    m_rule = _rule(ci["maxent"], MEAN_IRL_BAR, upper=True, n=n)
    free = combine(_rule(ci["dirl_free"], AGREE_BAR, upper=False, n=n), m_rule)
    known = combine(_rule(ci["dirl"], AGREE_BAR, upper=False, n=n), m_rule)
    mis_v = {k: combine(_rule(ci[k], AGREE_BAR, upper=False, n=n), m_rule).value for k in mis}
    fig, ax = new_figure()
    labels = ["DIRL", "DIRL (neutral known)", "MaxEnt IRL", "BC", *(f"DIRL {k}" for k in mis)]
    ax.bar(labels, [v.mean() for v in (*ag.values(), *mis.values())])
    ax.tick_params(axis="x", labelrotation=30)
    ax.axhline(AGREE_BAR, ls="--", c="k")
    ax.axhline(MEAN_IRL_BAR, ls=":", c="r")
    ax.set_ylabel("P(safe route) where the expert is safe")
    mis_txt = "; ".join(f"{k} {ci[k]} (CVaR {mis_cv[k].mean():.3f}) -> {mis_v[k]}" for k in mis)
    return ClaimResult(
        verdict=free,
        reason=(f"judged with every reward group learned (no known_rewards), learner's g = expert's CVaR_0.2: "
                f"P(safe | short context) DIRL {ci['dirl_free']} (bar >= {AGREE_BAR}: whole CI), MaxEnt IRL "
                f"{ci['maxent']} (bar <= {MEAN_IRL_BAR}: whole CI); neutral cells known (privileged): DIRL {ci['dirl']}"
                f" -> {known.value}; mismatched learner distortion: {mis_txt}; BC {ci['bc']}; true CVaR_0.2: DIRL "
                f"{cv['dirl_free'].mean():.3f}, DIRL(known) {cv['dirl'].mean():.3f}, MaxEnt {cv['maxent'].mean():.3f},"
                f" expert {cv['expert'].mean():.3f}"),
        summary=(f"P(safe): DIRL {ci['dirl_free'].value:.3f} (neutral known {ci['dirl'].value:.3f}), MaxEnt "
                 f"{ci['maxent'].value:.3f}, BC {ci['bc'].value:.3f}; mismatched g: "
                 + ", ".join(f"{k} {ci[k].value:.2f}" for k in mis)),
        measured={"agree_safe": {m: v.tolist() for m, v in ag.items()}, "cvar": {m: v.tolist() for m, v in cv.items()},
                  "agree_safe_ci": {m: [c.value, c.lo, c.hi] for m, c in ci.items()},
                  "verdict_known_neutral": known.value, "agree_all": [r["agree_all"] for r in runs],
                  "mismatched": {k: {"agree_safe": mis[k].tolist(), "cvar": mis_cv[k].tolist(), "verdict": mis_v[k]}
                                 for k in mis}},
        figures=[render(fig, name="imitation", caption="Probability of the expert's safe route in the short context")],
        notes="The demonstrator is the CVaR-optimal expert taking the other route with probability "
              f"{cfg.exp.expert_noise} per episode, so each seed's demonstrations differ. The abstract does not say "
              "whether the learner must know the expert's distortion; the headline row assumes it does.",
    )


def _fsd(runs: list[dict], ckpt: np.ndarray, early_i: int, key: str) -> tuple[Verdict, Estimate, Estimate, np.ndarray]:
    """(verdict, final/initial CI, (T/10)/initial CI, violations) of the curves ``runs[i][key]``."""
    v = np.array([r[key] for r in runs])
    base = np.maximum(v[:, 0], 1e-12)
    drop = bootstrap_ci(v[:, -1] / base, seed=0)
    early = bootstrap_ci(v[:, early_i] / base, seed=0)
    verdict = combine(_rule(drop, FSD_DROP_BAR, upper=True, n=len(runs)),
                      _rule(early, FSD_EARLY_BAR, upper=True, n=len(runs)))
    return verdict, drop, early, v


def check_fsd_decreases(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: training drives the FSD violation of the learner against the expert down; judged on DIRL
    with every group learned, on the end point (final / initial) and on the curve (violation at T // 10 / initial)."""
    runs = _runs(cfg, ctx)
    ckpt = np.array(runs[0]["checkpoints"])
    early_i = int(np.flatnonzero(ckpt == cfg.exp.n_iter // 10)[0])
    verdict, drop, early, v = _fsd(runs, ckpt, early_i, "true_violation")
    verdict_k, drop_k, early_k, _ = _fsd(runs, ckpt, early_i, "true_violation_known")
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
        reason=(f"every group learned: final/initial true FSD violation = {drop} (bar <= {FSD_DROP_BAR}: whole CI); "
                f"at T/10 = {cfg.exp.n_iter // 10}: {early} (bar <= {FSD_EARLY_BAR}: whole CI); non-increasing steps "
                f"{non_increasing:.2f}. Neutral cells known (privileged): final/initial {drop_k}, T/10 {early_k} -> "
                f"{verdict_k.value}"),
        summary=f"final/initial {drop.value:.3g}, T/10 / initial {early.value:.3g}",
        measured={"checkpoints": ckpt.tolist(), "true_violation": v.tolist(), "drop": drop.value,
                  "drop_ci": [drop.lo, drop.hi], "early_ratio": early.value, "early_ratio_ci": [early.lo, early.hi],
                  "non_increasing_fraction": non_increasing,
                  "train_violation_first_last": [[r["train_violation"][0], r["train_violation"][-1]] for r in runs],
                  "known_neutral": {"true_violation": [r["true_violation_known"] for r in runs], "drop": drop_k.value,
                                    "early_ratio": early_k.value, "verdict": verdict_k.value}},
        figures=[render(fig, name="fsd_violation", caption="Exact FSD violation of the learner during training")],
        notes="Violation against the noise-free CVaR-optimal expert policy (the demonstrator is its noisy version).",
    )


def _solver_slope(runs: list[dict], ckpt: np.ndarray, suffix: str = "") -> tuple[np.ndarray, float, float, float]:
    """Seed-mean best-so-far excess f(phi_bar_T) - f* and its log-log slope on T >= T_max / RATE_WINDOW (NaN if
    fewer than 3 points remain)."""
    exc = np.array([np.asarray(r["objective_avg" + suffix]) - r["f_star" + suffix] for r in runs])
    best = np.minimum.accumulate(exc, axis=1).mean(axis=0)
    keep = (ckpt >= max(1.0, ckpt.max() / RATE_WINDOW)) & (best > 1e-12)
    if keep.sum() < 3:
        return best, float("nan"), float("nan"), float("nan")
    slope = loglog_slope(ckpt[keep], best[keep])
    return best, slope.value, slope.lo, slope.hi


def check_iteration_complexity(cfg: DirlConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P18]: O(eps^-2) iterations. `unsupported`: we can only measure our solver's rate (the best-so-far
    excess f(phi_bar_t) - f* of the game objective of DIRL with every group learned), as a curve and a slope."""
    runs = _runs(cfg, ctx)
    ckpt = np.array(runs[0]["checkpoints"])
    best, s_val, s_lo, s_hi = _solver_slope(runs, ckpt)
    _, k_val, k_lo, k_hi = _solver_slope(runs, ckpt, "_known")
    solver_rule = rule(s_val, s_lo, s_hi, RATE_SLOPE, upper=True, n=len(runs))
    fig, ax = new_figure()
    pos = best > 1e-12
    ax.loglog(np.maximum(ckpt[pos], 1), best[pos], marker="o", label=f"measured, slope {s_val:.2f}")
    ax.set_xlabel("iterations T")
    ax.set_ylabel("best f(phi_bar_T) - f* so far (our solver)")
    ax.legend()
    return ClaimResult(
        verdict=Verdict.UNSUPPORTED,
        reason=(f"{RATE_UNSUPPORTED}. Our solver, every group learned: log-log slope {s_val:.3g} [{s_lo:.3g}, "
                f"{s_hi:.3g}] on T >= T_max/{RATE_WINDOW:g} (<= {RATE_SLOPE} would be {solver_rule.value}); neutral "
                f"cells known: {k_val:.3g} [{k_lo:.3g}, {k_hi:.3g}]"),
        summary=f"unsupported; solver slope {s_val:.3g}",
        measured={"solver_slope": s_val, "solver_slope_ci": [s_lo, s_hi], "solver_rate_rule": solver_rule.value,
                  "best_excess": best.tolist(), "checkpoints": ckpt.tolist(),
                  "f_star": [r["f_star"] for r in runs], "solver_slope_known": [k_val, k_lo, k_hi]},
        figures=[render(fig, name="iteration_complexity", caption="Best-so-far excess objective of our solver")],
        notes="f is the worst-case DRM gap over (start, deviating policy); f* is the LP value of its pieces linearised "
              "at the last iterate (exact when every piece is affine; with the noisy expert's mixture laws and a free "
              "neutral sigma it is a linearisation). The paper's bound is on its own objective; this is our game's.",
    )


def _budgets(smoke_s: float, small_s: float) -> dict[str, Budget]:
    return {
        "smoke": Budget(SMOKE, seeds=1, expected_s=smoke_s),
        "small": Budget(SMALL, seeds=5, expected_s=small_s),
        "full": Budget(FULL, seeds=10, expected_s=3600),
    }


# the shared run (5 seeds x 6 fits, ~200 s on a shared core) is paid by whichever claim runs first
CLAIMS = [
    Claim("reward_shape", check=check_reward_shape, budgets=_budgets(5, 240)),
    Claim("risk_averse_imitation", check=check_risk_averse_imitation, budgets=_budgets(5, 240)),
    Claim("fsd_decreases", check=check_fsd_decreases, budgets=_budgets(5, 240)),
    Claim("iteration_complexity", check=check_iteration_complexity, budgets=_budgets(5, 240)),
]
