"""Claim checks of [P10] "Chebyshev Policies and the Mountain Car Problem" (see paper.toml for the claims' text)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from icml26.claims import Budget, Claim, ClaimResult, Context, Verdict
from icml26.common.stats import Estimate, bootstrap_ci, ratio_ci
from icml26.figures import new_figure, render

from ._envs import pendulum_rollout
from ._experiments import (
    eval_starts,
    global_schedule_search,
    pendulum_grid,
    richer_search,
    run_mc,
    run_pendulum,
)
from ._optimal import optimal_gains, optimal_params
from ._optimal_a3 import A3_NAMES


@dataclass(frozen=True)
class P10Config:
    """Step budgets and evaluation sizes (paper: 100 starts, ARS 80K steps, PPO 70K steps, 50x50 Pendulum grid).

    A budget is checked between updates, the same rule for CH and MLP: ARS / REINFORCE finish the update in progress
    (< 2 n_delta x 999, resp. 8 x 999, steps over on Mountain Car), PPO rounds up to whole 2048-step rollouts."""

    n_starts: int = 100  # of the 100 equidistant x0 in [-0.6, -0.4] (evenly picked) for evaluation and regret
    fine: bool = True  # fine grid for the Eq. (A2) comparison (the Eq. (A3) reference is tabulated)
    ars_steps: int = 80_000
    ppo_steps: int = 70_000  # 0: PPO skipped at this budget
    reinforce_steps: int = 200_000
    pendulum_steps: int = 100_000  # ARS on Pendulum-v1
    pendulum_ppo_steps: int = 200_000  # PPO on Pendulum-v1 (0: skipped)
    pendulum_grid: int = 50
    rich_starts: int = 10  # starts (evenly picked) for the dense richer-class search
    rich_grid: tuple[int, int, int, int, int] = (7, 7, 7, 7, 7)  # points per axis (k1, e_th, k2, c, b)
    cem_pop: int = 300  # cross-entropy search over energy-dependent gain schedules (global richer-class check)
    cem_iters: int = 15
    zoo_steps: int = 20_000  # MLP-PPO with rl-zoo's own settings (0: skipped); rl-zoo trains 20K steps
    zoo_seeds: int = 3


RICH_TOL = 0.02  # a richer class beating the reference by more than this return (0.02 %) falsifies "optimal"
GAP_BAR = 0.5  # "large gap": mean MLP regret above 0.5 return (the best NN on the leaderboard, 98.74, is 0.6 short)
RATIO_BAR = 2.0  # regret ratio MLP / Chebyshev at least 2 (paper: 4.18)
PARAM_BAR = 250.0  # parameter ratio at least 250 (paper: 277)
LEARN_REGRET = 50.0  # a Mountain Car arm counts if CH or MLP has mean regret below 50 (reaches the goal on most starts)
LEARN_MARGIN = 300.0  # a Pendulum arm counts if CH or MLP beats the zero-torque policy's mean return by 300
MIN_ARMS = 2  # consistent gains need at least two counted arms


def _optimum(cfg: P10Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts, Eq. (A3) parameters and the reference optimal returns R* (the claim `optimum` tests this reference)."""
    x = eval_starts(cfg.n_starts)
    P, r = optimal_params(x)
    return x, P, r


@functools.lru_cache(maxsize=8)
def _best_known_cached(n_starts: int, pop: int, iters: int) -> tuple[float, ...]:
    x = eval_starts(n_starts)
    cem = global_schedule_search(x, pop=pop, iters=iters, n_elite=max(2, pop // 10), seed=0)
    return tuple(np.maximum(optimal_params(x)[1], cem).tolist())


def _best_known(cfg: P10Config) -> np.ndarray:
    """The regret baseline: per start the best known return, ``max(R*_A3(x0), global schedule search(x0))``.

    Eq. (A3) is beaten by the seeded global search (claim `optimum`), so regrets against it alone would be too small;
    computed once per process (cached on the starts and the search budget, seed 0: deterministic)."""
    return np.array(_best_known_cached(cfg.n_starts, cfg.cem_pop, cfg.cem_iters))


def _runs(cfg: P10Config, ctx: Context, algo: str, kind: str, seeds: list[int] | None = None) -> list[np.ndarray]:
    steps = {"ars": cfg.ars_steps, "ppo": cfg.ppo_steps, "reinforce": cfg.reinforce_steps, "ppo_zoo": cfg.zoo_steps}[algo]
    return [np.array(run_mc(algo, kind, s, steps, cfg.n_starts)[0]) for s in (ctx.seeds if seeds is None else seeds)]


def check_optimum(cfg: P10Config, ctx: Context) -> ClaimResult:
    """Claim 1: the reference optimum reaches the goal from every start, no richer policy and no trained agent beats it."""
    x, P, r_star = _optimum(cfg)
    idx = np.unique(np.linspace(0, x.size - 1, min(cfg.rich_starts, x.size)).round().astype(int))
    r_a2 = optimal_gains(x[idx], fine=cfg.fine)[2]  # the one-gain law, for comparison
    local = richer_search(x[idx], P[idx], grid=cfg.rich_grid)
    cem = global_schedule_search(x[idx], pop=cfg.cem_pop, iters=cfg.cem_iters, n_elite=max(2, cfg.cem_pop // 10),
                                 seed=0)
    rich = np.maximum(local, cem)
    local_gain, cem_gain = float(np.max(local - r_star[idx])), float(np.max(cem - r_star[idx]))
    rich_gain = float(np.max(rich - r_star[idx]))
    agents: dict[str, np.ndarray] = {}
    for algo in ["ars", "reinforce"] + (["ppo"] if cfg.ppo_steps > 0 else []):  # runs cached per process
        for kind, tag in (("chebyshev", "CH"), ("mlp", "MLP")):
            agents.update({f"{tag}-{algo.upper()} s{s}": r for s, r in zip(ctx.seeds, _runs(cfg, ctx, algo, kind))})
    beat = {name: int(np.sum(r > r_star + 1e-9)) for name, r in agents.items()}
    best_agent = max(agents, key=lambda n: agents[n].mean())
    reaches = bool(np.all(r_star > 0.0))  # +100 at the goal, the control cost is far below 100
    measured = {"mean_optimal_return": float(r_star.mean()), "min_optimal_return": float(r_star.min()),
                "mean_eq_a2_return_subset": float(r_a2.mean()),
                "mean_eq_a3_return_subset": float(r_star[idx].mean()),
                "max_gain_over_eq_a2": float(np.max(r_star[idx] - r_a2)),
                "reaches_goal_every_start": reaches, "richer_class_max_gain": rich_gain,
                "local_search_max_gain": local_gain, "global_schedule_search_max_gain": cem_gain,
                "global_schedule_search_starts_beaten": int(np.sum(cem > r_star[idx] + 1e-9)),
                "richer_class_gain_per_start": {f"{x[i]:.4f}": float(g) for i, g in zip(idx, rich - r_star[idx])},
                "starts_beaten_by_agents": beat, "best_agent": best_agent,
                "best_agent_mean_return": float(agents[best_agent].mean())}
    fig, ax = new_figure()
    ax.plot(x, r_star, "k-", lw=2, label="reference optimum (Eq. A3)")
    ax.plot(x[idx], r_a2, "ko", ms=3, label="one-gain law (Eq. A2)")
    for name, r in agents.items():
        ax.plot(x, r, lw=0.8, alpha=0.7, label=name)
    ax.set_ylim(min(95.0, float(r_star.min()) - 1), 100)
    ax.set_xlabel("x0"), ax.set_ylabel("return"), ax.legend(fontsize=6)
    n_beat = sum(beat.values())
    verdict = Verdict.FAILS if (not reaches or n_beat > 0 or rich_gain > RICH_TOL) else Verdict.HOLDS
    reason = (f"reference optimum (Eq. A3): mean {r_star.mean():.3f} over {x.size} starts (notes' a = k v: 99.35), "
              f"beats Eq. (A2) by up to {np.max(r_star[idx] - r_a2):.3f} on {idx.size} starts; goal reached from every "
              f"start: {reaches}; a dense 5-parameter search around it beats it by at most {local_gain:.4f}, a "
              f"cross-entropy search over energy-dependent gain schedules a = k(eps) v by up to {cem_gain:.4f} "
              f"(on {int(np.sum(cem > r_star[idx] + 1e-9))} of {idx.size} starts; bar {RICH_TOL}); trained agents beating it on some start: {n_beat} start-agent pairs (bar 0)")
    return ClaimResult(verdict=verdict, reason=reason, summary=f"mean R* = {r_star.mean():.3f}, richer gain "
                       f"{rich_gain:.4f}, beaten {n_beat}", measured=measured,
                       rows=[{"x0": float(a), **{n: float(v) for n, v in zip(A3_NAMES, p)}, "R*": float(e)}
                             for a, p, e in zip(x, P, r_star)],
                       figures=[render(fig, name="optimal_returns", caption="R*(x0) and trained agents' returns")])


def _regrets(cfg: P10Config, ctx: Context, algo: str, kind: str, r_star: np.ndarray) -> np.ndarray:
    return np.array([float(np.mean(r_star - r)) for r in _runs(cfg, ctx, algo, kind)])


def _regret_guard(regrets: dict[str, np.ndarray]) -> str | None:
    """A reason when some agent's mean regret is <= 0 (it matches or beats R*, so R* is not optimal), else None."""
    bad = {k: float(np.min(v)) for k, v in regrets.items() if np.any(np.asarray(v) <= 0.0)}
    if not bad:
        return None
    txt = ", ".join(f"{k} (min {v:.4g})" for k, v in bad.items())
    return f"regret <= 0 for {txt}: an agent matches or beats R*, so R* is not optimal and the ratio is undefined"


def _gap_verdict(est: dict, learned: dict[str, bool], n_seeds: int, complete: bool) -> Verdict:
    """Verdict of `mlp_gap` from the MLP regret CIs per algorithm (rule fixed before the runs).

    An algorithm counts only if CH or MLP learns with it (mean regret < LEARN_REGRET): an MLP that never reaches the
    goal because the step budget is too short for either class says nothing about the MLP class. Fails: some counted
    CI entirely below GAP_BAR. Holds: every algorithm of the claim (ARS and PPO: ``complete``) counted and every CI
    above GAP_BAR. Otherwise (or < 3 seeds) inconclusive."""
    if n_seeds < 3:
        return Verdict.INCONCLUSIVE
    counted = [k for k in est if learned[k]]
    if any(est[k].hi < GAP_BAR for k in counted):
        return Verdict.FAILS
    if complete and len(counted) == len(est) and all(est[k].lo > GAP_BAR for k in counted):
        return Verdict.HOLDS
    return Verdict.INCONCLUSIVE


def check_mlp_gap(cfg: P10Config, ctx: Context) -> ClaimResult:
    """Claim 2: MLP policies trained with ARS and PPO stay far from the optimum (mean regret CI above GAP_BAR)."""
    r_star = _best_known(cfg)
    algos = ["ars"] + (["ppo"] if cfg.ppo_steps > 0 else [])
    reg = {a: _regrets(cfg, ctx, a, "mlp", r_star) for a in algos}
    reg_ch = {a: _regrets(cfg, ctx, a, "chebyshev", r_star) for a in algos}
    est = {a: bootstrap_ci(reg[a], seed=0) for a in algos}
    learned = {a: bool(min(reg[a].mean(), reg_ch[a].mean()) < LEARN_REGRET) for a in algos}
    verdict = _gap_verdict(est, learned, len(ctx.seeds), complete=cfg.ppo_steps > 0)
    fig, ax = new_figure()
    ax.bar(range(len(algos)), [e.value for e in est.values()],
           yerr=[[e.value - e.lo for e in est.values()], [e.hi - e.value for e in est.values()]])
    ax.set_xticks(range(len(algos)), [f"MLP-{a.upper()}" for a in algos]), ax.set_ylabel("regret")
    ax.axhline(GAP_BAR, color="r", ls="--")
    txt = ", ".join(f"MLP-{a.upper()} regret {e}" for a, e in est.items())
    ch_txt = ", ".join(f"CH-{a.upper()} {reg_ch[a].mean():.3g}" for a in algos)
    note = "" if cfg.ppo_steps > 0 else " (PPO skipped at this budget, so at most inconclusive)"
    off = [f"MLP-{a.upper()}" for a in algos if not learned[a]]
    arms = (f"; an algorithm counts only if CH or MLP has mean regret < {LEARN_REGRET:g} (CH: {ch_txt}); "
            f"not counted: {', '.join(off) if off else 'none'}")
    measured = {**{f"regret_mlp_{a}": [e.value, e.lo, e.hi] for a, e in est.items()},
                **{f"regret_ch_{a}_mean": float(reg_ch[a].mean()) for a in algos}, "arm_counts": learned,
                "mean_best_known_return": float(r_star.mean())}
    return ClaimResult(verdict=verdict, reason=f"{txt}; bar: 95% CI above {GAP_BAR} for every algorithm{note}{arms}"
                       f"; regret vs max(Eq. A3, global schedule search)",
                       summary=txt, measured=measured,
                       figures=[render(fig, name="mlp_regret", caption="regret of MLP policies (95% CI over seeds)")])


def _ratio_verdict(ratio: Estimate, p_ratio: float, n_seeds: int) -> Verdict:
    """Verdict of `regret_ratio`: fails if the parameter ratio is below PARAM_BAR or the regret-ratio CI lies
    entirely below RATIO_BAR; holds if the CI lies at or above RATIO_BAR; otherwise (or < 3 seeds) inconclusive."""
    if p_ratio < PARAM_BAR or (ratio.hi < RATIO_BAR and n_seeds >= 3):
        return Verdict.FAILS
    if ratio.lo >= RATIO_BAR and n_seeds >= 3:
        return Verdict.HOLDS
    return Verdict.INCONCLUSIVE


def check_regret_ratio(cfg: P10Config, ctx: Context) -> ClaimResult:
    """Claim 3: regret(MLP-ARS) / regret(CH-ARS) with a paired bootstrap CI over seeds, and the parameter ratio;
    regret against the best known return per start (:func:`_best_known`)."""
    r_star = _best_known(cfg)
    reg_mlp = _regrets(cfg, ctx, "ars", "mlp", r_star)
    reg_ch = _regrets(cfg, ctx, "ars", "chebyshev", r_star)
    n_mlp = run_mc("ars", "mlp", ctx.seeds[0], cfg.ars_steps, cfg.n_starts)[1]
    n_ch = run_mc("ars", "chebyshev", ctx.seeds[0], cfg.ars_steps, cfg.n_starts)[1]
    p_ratio = n_mlp / n_ch
    guard = _regret_guard({"MLP-ARS": reg_mlp, "CH-ARS": reg_ch})
    if guard is not None:
        return ClaimResult(verdict=Verdict.INCONCLUSIVE, reason=guard, summary=guard,
                           measured={"regret_mlp": reg_mlp.tolist(), "regret_ch": reg_ch.tolist(),
                                     "params_mlp": n_mlp, "params_ch": n_ch, "param_ratio": p_ratio})
    ratio = ratio_ci(reg_mlp, reg_ch, paired=True, seed=0)
    verdict = _ratio_verdict(ratio, p_ratio, len(ctx.seeds))
    measured = {"regret_ratio": [ratio.value, ratio.lo, ratio.hi], "regret_mlp": reg_mlp.tolist(),
                "regret_ch": reg_ch.tolist(), "params_mlp": n_mlp, "params_ch": n_ch, "param_ratio": p_ratio,
                "mean_best_known_return": float(r_star.mean())}
    fig, ax = new_figure()
    ax.scatter(np.zeros(reg_mlp.size), reg_mlp, label=f"MLP 2-64-64-1 ({n_mlp} params)")
    ax.scatter(np.ones(reg_ch.size), reg_ch, label=f"Chebyshev d=3 ({n_ch} params)")
    ticks = ["MLP-ARS", "CH-ARS"]
    alt = ""
    if cfg.zoo_steps > 0:  # where the paper and we differ: the MLP with its own (rl-zoo) PPO settings; no verdict
        reg_zoo = np.array([float(np.mean(r_star - r)) for r in
                            _runs(cfg, ctx, "ppo_zoo", "mlp", seeds=list(ctx.seeds[: cfg.zoo_seeds]))])
        alt_ratio = ratio_ci(reg_zoo, reg_ch, paired=False, seed=0)
        measured.update({"regret_mlp_ppo_zoo": reg_zoo.tolist(),
                         "regret_ratio_zoo_mlp_vs_ch_ars": [alt_ratio.value, alt_ratio.lo, alt_ratio.hi]})
        ax.scatter(np.full(reg_zoo.size, 2.0), reg_zoo, label="MLP-PPO, rl-zoo settings")
        ticks.append("MLP-PPO zoo")
        alt = (f"; reported, no verdict: MLP-PPO with rl-zoo's settings ({cfg.zoo_steps} steps, "
               f"{reg_zoo.size} seeds) regret {reg_zoo.mean():.3f}, ratio to CH-ARS {alt_ratio}")
    ax.set_yscale("log"), ax.set_xticks(range(len(ticks)), ticks), ax.set_ylabel("regret"), ax.legend(fontsize=7)
    reason = (f"regret ratio MLP/CH = {ratio} over {len(ctx.seeds)} seeds (bar: CI >= {RATIO_BAR}; paper 4.18); "
              f"parameters {n_mlp} / {n_ch} = {p_ratio:.2f} (bar >= {PARAM_BAR}; paper 277); regret vs the best known "
              f"return per start, max(Eq. A3, global schedule search), mean {r_star.mean():.3f}{alt}")
    return ClaimResult(verdict=verdict, reason=reason, summary=f"ratio {ratio}, params {n_mlp}/{n_ch}={p_ratio:.1f}",
                       measured=measured,
                       figures=[render(fig, name="regret_ratio", caption="regret per seed, ARS, 100 starts")])


def _gains_verdict(est: dict, learned: dict[str, bool], ctx: Context, complete: bool) -> Verdict:
    """Only arms where at least one class learns count. A counted CI of CH - MLP entirely below 0: fails; every
    counted CI above 0 and at least two counted arms: holds; otherwise (or < 3 seeds) inconclusive."""
    if len(ctx.seeds) < 3:  # a single seed gives no spread: no verdict either way
        return Verdict.INCONCLUSIVE
    counted = [k for k in est if learned[k]]
    if any(est[k].hi < 0 for k in counted):
        return Verdict.FAILS
    if len(counted) >= MIN_ARMS and all(est[k].lo > 0 for k in counted) and complete:
        return Verdict.HOLDS
    return Verdict.INCONCLUSIVE


def _arms_note(learned: dict[str, bool], bar: str) -> str:
    off = [k for k, v in learned.items() if not v]
    return (f"; arms where neither class learns ({bar}) are inconclusive and do not count: "
            f"{', '.join(off) if off else 'none'}; counted {len(learned) - len(off)} (need >= {MIN_ARMS})")


def _gains_figure(est: dict, name: str, caption: str):
    fig, ax = new_figure()
    names = list(est)
    ax.bar(range(len(names)), [est[n].value for n in names],
           yerr=[[est[n].value - est[n].lo for n in names], [est[n].hi - est[n].value for n in names]])
    ax.set_xticks(range(len(names)), names), ax.axhline(0, color="k"), ax.set_ylabel("return(CH) - return(MLP)")
    return render(fig, name=name, caption=caption)


def check_consistent_gains(cfg: P10Config, ctx: Context) -> ClaimResult:
    """Claim 4 (Mountain Car): Chebyshev beats the MLP with ARS, REINFORCE and PPO; also the full regret table
    (regret against the best known return per start, :func:`_best_known`)."""
    r_star = _best_known(cfg)
    pairs: dict[str, np.ndarray] = {}
    regrets: dict[str, list[float]] = {}
    for algo in ["ars", "reinforce"] + (["ppo"] if cfg.ppo_steps > 0 else []):
        ch, mlp = _runs(cfg, ctx, algo, "chebyshev"), _runs(cfg, ctx, algo, "mlp")
        pairs[f"MC/{algo}"] = np.array([r.mean() for r in ch]) - np.array([r.mean() for r in mlp])
        for kind, runs in (("CH", ch), ("MLP", mlp)):
            e = bootstrap_ci([float(np.mean(r_star - r)) for r in runs], seed=0)
            regrets[f"regret {kind}-{algo.upper()}"] = [e.value, e.lo, e.hi]
    est = {k: bootstrap_ci(v, seed=0) for k, v in pairs.items()}
    learned = {f"MC/{a}": min(regrets[f"regret CH-{a.upper()}"][0], regrets[f"regret MLP-{a.upper()}"][0])
               < LEARN_REGRET for a in (k.split("/")[1] for k in pairs)}
    verdict = _gains_verdict(est, learned, ctx, complete=cfg.ppo_steps > 0)
    txt = "; ".join(f"{n}: {e}" for n, e in est.items())
    note = "" if cfg.ppo_steps > 0 else " (PPO skipped at this budget)"
    arms = _arms_note(learned, f"mean regret of both >= {LEARN_REGRET:g}")
    return ClaimResult(verdict=verdict, reason=f"mean return CH - MLP on Mountain Car (95% CI over seeds): {txt}; "
                       f"bar: every counted CI > 0{note}{arms}", summary=txt,
                       measured={**{k: [e.value, e.lo, e.hi] for k, e in est.items()}, **regrets,
                                 "arm_counts": learned,
                                 "regret optimum": [0.0, 0.0, 0.0], "mean_best_known_return": float(r_star.mean())},
                       figures=[_gains_figure(est, "gains", "Chebyshev minus MLP mean return per algorithm")])


def check_pendulum_gains(cfg: P10Config, ctx: Context) -> ClaimResult:
    """Claim 4 (Pendulum-v1, grid of initial states): Chebyshev beats the MLP with ARS and PPO."""
    pairs: dict[str, np.ndarray] = {}
    returns: dict[str, list[float]] = {}
    algos = [("ars", cfg.pendulum_steps)] + ([("ppo", cfg.pendulum_ppo_steps)] if cfg.pendulum_ppo_steps > 0 else [])
    for algo, steps in algos:
        ch = np.array([run_pendulum("chebyshev", s, steps, cfg.pendulum_grid, algo)[0] for s in ctx.seeds])
        mlp = np.array([run_pendulum("mlp", s, steps, cfg.pendulum_grid, algo)[0] for s in ctx.seeds])
        pairs[f"Pendulum/{algo}"] = ch - mlp
        returns[f"return CH-{algo.upper()}"], returns[f"return MLP-{algo.upper()}"] = ch.tolist(), mlp.tolist()
    est = {k: bootstrap_ci(v, seed=0) for k, v in pairs.items()}
    th, thd = pendulum_grid(cfg.pendulum_grid)
    r_zero = float(pendulum_rollout(lambda o: np.zeros((o.shape[0], 1)), th, thd)["returns"].mean())
    learned = {f"Pendulum/{a}": bool(max(np.mean(returns[f"return CH-{a.upper()}"]),
                                         np.mean(returns[f"return MLP-{a.upper()}"])) > r_zero + LEARN_MARGIN)
               for a, _ in algos}
    verdict = _gains_verdict(est, learned, ctx, complete=cfg.pendulum_ppo_steps > 0)
    txt = "; ".join(f"{n}: {e}" for n, e in est.items())
    note = "" if cfg.pendulum_ppo_steps > 0 else " (PPO skipped at this budget)"
    arms = _arms_note(learned, f"mean return of both <= zero-torque {r_zero:.1f} + {LEARN_MARGIN:g}")
    return ClaimResult(verdict=verdict, reason=f"mean return CH - MLP over a {cfg.pendulum_grid}x{cfg.pendulum_grid} "
                       f"start grid (95% CI over seeds): {txt}; bar: every counted CI > 0{note}{arms}; "
                       f"paper: CH -150.8",
                       summary=txt, measured={**{k: [e.value, e.lo, e.hi] for k, e in est.items()}, **returns,
                                              "zero_torque_return": r_zero, "arm_counts": learned},
                       figures=[_gains_figure(est, "pendulum_gains", "Chebyshev minus MLP mean return, Pendulum-v1")])


SMOKE = P10Config(n_starts=8, fine=False, ars_steps=4_000, ppo_steps=0, reinforce_steps=4_000, pendulum_steps=1_600,
                  pendulum_ppo_steps=0, pendulum_grid=5, rich_starts=2, rich_grid=(3, 3, 3, 1, 3),
                  cem_pop=16, cem_iters=2, zoo_steps=0)
SMALL = P10Config(ppo_steps=20_000, reinforce_steps=100_000, pendulum_steps=64_000, pendulum_ppo_steps=20_000,
                  pendulum_grid=20, rich_grid=(5, 5, 5, 5, 5), cem_pop=200, cem_iters=12,
                  zoo_steps=0)  # rl-zoo MLP: 2-3 CPU-min per seed
FULL = P10Config()

CLAIMS = [
    Claim("optimum", check=check_optimum, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=5, expected_s=90),
        "full": Budget(FULL, seeds=20, expected_s=600)}),
    Claim("mlp_gap", check=check_mlp_gap, budgets={  # small: also trains CH (the learn gate) and the R* search
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=3, expected_s=180),
        "full": Budget(FULL, seeds=20, expected_s=1800)}),
    Claim("regret_ratio", check=check_regret_ratio, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=5, expected_s=150),
        "full": Budget(FULL, seeds=20, expected_s=1200)}),
    Claim("consistent_gains", check=check_consistent_gains, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=3, expected_s=150),
        "full": Budget(FULL, seeds=20, expected_s=3600)}),
    Claim("pendulum_gains", check=check_pendulum_gains, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=3, expected_s=120),
        "full": Budget(FULL, seeds=20, expected_s=3600)}),
]
