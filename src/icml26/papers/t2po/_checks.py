"""What the [P15] claims measure: GRPO, GiGPO and T²PO trained from one cold start per seed (shared by the run
group ``runs`` through ``ctx.shared`` and cached on disk), compared per environment; the training curves.

The verdicts come from :mod:`._rules`; this module runs the seeds, collects the rows and draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.t2po._rules import METHOD, judge_collapses, judge_low_info, judge_success, judge_think
from icml26.papers.t2po._runs import run_seed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.t2po.claims import ComparisonConfig

NAMES = {"grpo": "GRPO", "gigpo": "GiGPO", "t2po": "T²PO", "gigpo_tti": "GiGPO+TTI", "gigpo_tds": "GiGPO+TDS"}
CURVES = {"success": ("curve_success", "evaluation success"),
          "low_info": ("train_low_info", "low-information turns per turn"),
          "think": ("train_think", "think tokens per turn")}
_DROP = ("curve_iterations", "curve_success", "train_low_info", "train_think", "train_success_curve")


def _rows(cfg: ComparisonConfig, ctx: Context) -> list[dict[str, Any]]:
    """One summary row per (environment, arm, seed); each seed's runs shared by the group's claims."""
    arms = (*cfg.baselines, METHOD, *cfg.ablations)
    return [r for run in cfg.runs for s in ctx.seeds for r in ctx.shared(run_seed, (run, arms, s))]


def _smooth(x: list[float], k: int) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    k = max(1, min(k, a.size))
    return np.convolve(a, np.ones(k) / k, mode="valid")


def _figure(rows: list[dict[str, Any]], env: str, curve: str, *, smooth: int = 5) -> FigureData:
    key, label = CURVES[curve]
    fig, ax = new_figure()
    for i, arm in enumerate(NAMES):
        runs = [r for r in rows if r["env"] == env and r["arm"] == arm]
        if not runs:
            continue
        if curve == "success":
            xs = np.asarray(runs[0]["curve_iterations"])
            ys = np.array([r[key] for r in runs])
        else:
            ys = np.array([_smooth(r[key], smooth) for r in runs])
            xs = np.arange(ys.shape[1]) + (min(smooth, len(runs[0][key])) + 1) / 2
        ablation = arm.startswith("gigpo_")
        if not ablation:
            for y in ys:
                ax.plot(xs, y, color=f"C{i}", lw=0.7, alpha=0.35)
        ax.plot(xs, ys.mean(axis=0), color=f"C{i}", lw=1.4 if ablation else 2.2, ls="--" if ablation else "-",
                label=f"{NAMES[arm]} (mean of {len(runs)} seeds)")
    what = "evaluation (every task, sampled)" if curve == "success" else f"training rollouts, moving mean of {smooth}"
    ax.set(xlabel="RL iteration", ylabel=label, title=f"{env}: {what}")
    ax.legend()
    return render(fig, name=f"{env}_{curve}_curves",
                  caption=f"{label.capitalize()} per RL iteration in {env}: thin lines one seed each, thick the mean "
                  "over seeds, dashed the ablations (GiGPO with one intervention; not judged).")


def _figures(rows: list[dict[str, Any]], curves: tuple[str, ...]) -> list[FigureData]:
    return [_figure(rows, env, c) for env in sorted({r["env"] for r in rows}) for c in curves]


def _table(rows: list[dict[str, Any]], metric: str, fmt: str = "{:.3f}") -> str:
    out = []
    for env in sorted({r["env"] for r in rows}):
        per = []
        for arm in NAMES:
            v = [r[metric] for r in rows if r["env"] == env and r["arm"] == arm]
            if v:
                per.append(f"{NAMES[arm]} " + fmt.format(float(np.mean(v))))
        out.append(f"{env}: " + ", ".join(per))
    return "; ".join(out)


def _ablations(rows: list[dict[str, Any]], metric: str, fmt: str = "{:.3f}") -> dict[str, str]:
    """The ablation arms' means, as a finding (never judged)."""
    if not any(r["arm"].startswith("gigpo_") for r in rows):
        return {}
    return {f"{metric}, with the ablations": _table(rows, metric, fmt)}


def _strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in _DROP} for r in rows]


def check_higher_success(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P15]: T²PO's final success is higher than GRPO's and GiGPO's (paired over seeds)."""
    rows = _rows(cfg, ctx)
    j = judge_success(rows, bars=ctx.bars, baselines=cfg.baselines)
    main = [r for r in rows if not r["arm"].startswith("gigpo_")]
    return ClaimResult.judged(
        j, summary="mean final success " + _table(main, "final_success"), rows=_strip(rows),
        figures=_figures(rows, ("success",)),
        findings={"success before RL (the shared cold start, with each arm's decoding)": _table(main, "initial_success"),
                  "training-rollout success": _table(main, "train_success"),
                  **_ablations(rows, "final_success")},
        notes="T²PO is GiGPO's advantages with both interventions in the training rollouts; evaluation samples every "
        "task with the arm's token-level rule (TTI for T²PO) and no turn resampling, as the released evaluation loop.")


def check_fewer_low_info_turns(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P15]: T²PO's rollouts hold fewer low-information turns than GRPO's and GiGPO's."""
    rows = _rows(cfg, ctx)
    j = judge_low_info(rows, bars=ctx.bars, baselines=cfg.baselines)
    main = [r for r in rows if not r["arm"].startswith("gigpo_")]
    return ClaimResult.judged(
        j, summary="mean low-information turns per turn " + _table(main, "low_info"), rows=_strip(rows),
        figures=_figures(rows, ("low_info",)),
        findings={"at the final evaluation (no resampling)": _table(main, "eval_low_info"),
                  "TDS regenerations per turn": _table(rows, "resample", "{:.2f}"), **_ablations(rows, "low_info")},
        notes="Counted on the kept turns of the training rollouts: a turn T²PO regenerated is counted once, as kept.")


def check_fewer_think_tokens(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """[P15] Sec. 3: the thinking intervention leaves fewer think tokens per turn than GRPO and GiGPO think."""
    rows = _rows(cfg, ctx)
    j = judge_think(rows, bars=ctx.bars, baselines=cfg.baselines)
    main = [r for r in rows if not r["arm"].startswith("gigpo_")]
    return ClaimResult.judged(
        j, summary="mean think tokens per turn " + _table(main, "think", "{:.2f}"), rows=_strip(rows),
        figures=_figures(rows, ("think",)),
        findings={"response tokens sampled per episode, regenerated turns included": _table(rows, "tokens", "{:.1f}"),
                  "episodes that ran out of context": _table(rows, "overflow"),
                  "think tokens per turn at the final evaluation": _table(main, "eval_think", "{:.2f}"),
                  "forced </think> per turn and their mean log-probability under the policy":
                      _table(rows, "forced", "{:.2f}") + " | " + _table(rows, "forced_logp", "{:.2f}"),
                  **_ablations(rows, "think", "{:.2f}")},
        notes="Kept think tokens: what the trained-on trajectories contain. T²PO's turn resampling samples whole turns "
        "again, so its sampled tokens per episode can exceed the baselines' (a finding beside the claim).")


def check_fewer_collapses(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P15]: baselines collapse, T²PO trains stably (collapsed runs paired over seeds)."""
    rows = _rows(cfg, ctx)
    j = judge_collapses(rows, bars=ctx.bars, baselines=cfg.baselines)
    drop = cfg.runs[0].collapse_drop
    main = [r for r in rows if not r["arm"].startswith("gigpo_")]
    return ClaimResult.judged(
        j, summary=f"collapsed runs (drop >= {drop:g} below the running best) " + _table(main, "collapsed", "{:.2f}")
        + "; mean largest drop " + _table(main, "drawdown", "{:.2f}"), rows=_strip(rows),
        figures=_figures(rows, ("success",)),
        findings={"largest gradient norm before clipping (mean over seeds)": _table(rows, "max_grad_norm", "{:.2f}"),
                  "KL to the cold start (mean over iterations)": _table(rows, "kl"),
                  **_ablations(rows, "drawdown", "{:.2f}")},
        notes="A collapse is a fall of the evaluation success by the configured drop below its running maximum.")
