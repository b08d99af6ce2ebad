"""What the [P10] gains claims measure: Chebyshev vs MLP per algorithm on Mountain Car (``consistent_gains``, in the
``mountain_car`` run group) and on Pendulum-v1 (``pendulum_gains``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.figures import FigureData, new_figure, render
from icml26.papers.chebyshev_rl._checks import agent_returns, best_known, mc_algos, regrets
from icml26.papers.chebyshev_rl._experiments import run_pendulum, zero_torque_return
from icml26.papers.chebyshev_rl._rules import judge_mc_gains, judge_pendulum_gains

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.chebyshev_rl.claims import P10Config

__all__ = ["check_consistent_gains", "check_pendulum_gains"]


def _gains_figure(est: dict[str, Estimate], name: str, caption: str) -> FigureData:
    fig, ax = new_figure()
    names = list(est)
    ax.bar(range(len(names)), [est[n].value for n in names],
           yerr=[[est[n].value - est[n].lo for n in names], [est[n].hi - est[n].value for n in names]])
    ax.set_xticks(range(len(names)), names)
    ax.axhline(0, color="k")
    ax.set_ylabel("return(CH) - return(MLP)")
    return render(fig, name=name, caption=caption)


def check_consistent_gains(cfg: P10Config, ctx: Context) -> ClaimResult:
    """Abstract of [P10] (Mountain Car): Chebyshev beats the MLP with ARS, REINFORCE and PPO; also the regret table
    (against the best known return per start)."""
    _, best = best_known(cfg, ctx)
    algos, skipped = mc_algos(cfg, "ars", "reinforce", "ppo")
    ret: dict[str, dict[str, list[float]]] = {"chebyshev": {}, "mlp": {}}
    table: dict[str, Any] = {"regret optimum": [0.0, 0.0, 0.0]}
    mean_regret: dict[str, dict[str, float]] = {"chebyshev": {}, "mlp": {}}
    for a in algos:
        for kind, tag in (("chebyshev", "CH"), ("mlp", "MLP")):
            runs = agent_returns(cfg, ctx, a, kind)
            ret[kind][a] = [float(r.mean()) for r in runs]
            e = bootstrap_ci(regrets(runs, best), seed=0)
            table[f"regret {tag}-{a.upper()}"] = [e.value, e.lo, e.hi]
            mean_regret[kind][a] = e.value
    j = judge_mc_gains(ret["chebyshev"], ret["mlp"], mean_regret["chebyshev"], mean_regret["mlp"], bars=ctx.bars,
                       skipped=skipped)
    est = {f"MC/{a}": bootstrap_ci(np.array(ret["chebyshev"][a]) - np.array(ret["mlp"][a]), seed=0) for a in algos}
    txt = "; ".join(f"{n}: {e}" for n, e in est.items())
    return ClaimResult.judged(
        j, summary=f"mean return CH − MLP (95% CI over seeds): {txt}",
        measured={**{k: [e.value, e.lo, e.hi] for k, e in est.items()}, **table,
                  "mean_best_known_return": float(best.mean())},
        figures=[_gains_figure(est, "gains", "Chebyshev minus MLP mean return per algorithm")])


def check_pendulum_gains(cfg: P10Config, ctx: Context) -> ClaimResult:
    """Abstract of [P10] (further tasks: Pendulum-v1 on a grid of initial states): Chebyshev beats the MLP with ARS
    and PPO."""
    algos = [("ars", cfg.pendulum_steps)] + ([("ppo", cfg.pendulum_ppo_steps)] if cfg.pendulum_ppo_steps > 0 else [])
    skipped = () if cfg.pendulum_ppo_steps > 0 else ("ppo",)
    ret: dict[str, dict[str, list[float]]] = {"chebyshev": {}, "mlp": {}}
    for a, steps in algos:
        for kind in ret:
            ret[kind][a] = [run_pendulum(kind, s, steps, cfg.pendulum_grid, a)[0] for s in ctx.seeds]
    r_zero = zero_torque_return(cfg.pendulum_grid)
    j = judge_pendulum_gains(ret["chebyshev"], ret["mlp"], r_zero, bars=ctx.bars, skipped=skipped)
    est = {f"Pendulum/{a}": bootstrap_ci(np.array(ret["chebyshev"][a]) - np.array(ret["mlp"][a]), seed=0)
           for a, _ in algos}
    txt = "; ".join(f"{n}: {e}" for n, e in est.items())
    measured = {**{k: [e.value, e.lo, e.hi] for k, e in est.items()},
                **{f"return {tag}-{a.upper()}": ret[kind][a] for a, _ in algos
                   for kind, tag in (("chebyshev", "CH"), ("mlp", "MLP"))}}
    return ClaimResult.judged(
        j, summary=f"mean return CH − MLP over a {cfg.pendulum_grid}x{cfg.pendulum_grid} start grid: {txt}",
        measured=measured,
        figures=[_gains_figure(est, "pendulum_gains", "Chebyshev minus MLP mean return, Pendulum-v1")])
