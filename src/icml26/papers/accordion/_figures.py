"""Figures of the [P25] claims: RL training curves by mode, summary completeness, KV peaks, throughput."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.figures import FigureData, new_figure, render

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.accordion._runs import RunConfig

COLOR = {"fold": "C0", "unfold": "C1"}


def _smooth(y: list[float], w: int) -> np.ndarray:
    a = np.asarray(y, dtype=float)
    if w <= 1 or a.size < w:
        return a
    return np.convolve(a, np.ones(w) / w, mode="valid")


def curves_figure(recs: list[dict[str, Any]], cfg: RunConfig, *, completeness: bool = False) -> list[FigureData]:
    """Per RL iteration: mean leaf reward of the Fold and Unfold rollouts (or Fold summary completeness), one thin
    line a seed and their mean; the SFT loss beside it."""
    fig, ax = new_figure(width=10.0, height=4.0)
    fig.clear()
    left, right = fig.subplots(1, 2)
    w = max(1, cfg.rl.iterations // 10)
    keys = [("completeness", "Fold summaries holding the state")] if completeness else \
        [("fold", "Fold leaf reward"), ("unfold", "Unfold leaf reward")]
    for key, label in keys:
        series = [r["history"]["completeness"] if key == "completeness" else r["history"]["reward"][key]
                  for r in recs]
        color = COLOR.get(key, "C2")
        for y in series:
            left.plot(np.arange(len(_smooth(y, w))) + w, _smooth(y, w), color=color, lw=0.7, alpha=0.4)
        n = min(len(y) for y in series)
        if n:
            mean = np.mean([y[:n] for y in series], axis=0)
            left.plot(np.arange(len(_smooth(list(mean), w))) + w, _smooth(list(mean), w), color=color, lw=2.2,
                      label=label)
    left.set(xlabel="RL iteration", ylabel="share (moving average)", ylim=(-0.02, 1.02),
             title=f"mixed Fold/Unfold RL, {len(recs)} seeds")
    left.legend(loc="lower right")
    for r in recs:
        right.plot(_smooth(r["sft_losses"], max(1, cfg.sft.steps // 20)), lw=1.0, label=f"seed {r['seed']}")
    right.set(xlabel="SFT step", ylabel="cross-entropy (nats/token)", yscale="log",
              title=f"cold start, {cfg.sft.lossy_rate:.0%} lossy summaries")
    right.legend()
    name = "completeness_curve" if completeness else "reward_curves"
    caption = ("Share of Fold-rollout summaries that hold the true accumulator over RL iterations (left) and the "
               "SFT loss (right)." if completeness else
               "Mean leaf reward of the Fold and Unfold training rollouts over RL iterations (left: thin lines per "
               "seed, thick their mean) and the SFT loss of the cold start (right).")
    figs = [render(fig, name=name, caption=caption)]
    if not completeness:
        figs.append(_accuracy_figure(recs))
    return figs


def _accuracy_figure(recs: list[dict[str, Any]]) -> FigureData:
    fig, ax = new_figure()
    x = np.arange(2)
    for k, mode in enumerate(("fold", "unfold")):
        vals = np.array([[r[c][mode]["accuracy"] for c in ("sft", "rl")] for r in recs])
        for v in vals:
            ax.plot(x + 0.04 * (k - 0.5), v, color=COLOR[mode], lw=0.8, alpha=0.5, marker="o", ms=3)
        ax.plot(x, vals.mean(axis=0), color=COLOR[mode], lw=2.5, marker="o", label=mode.capitalize())
    ax.set_xticks(x, ["after SFT", "after RL"])
    ax.set(ylabel="accuracy on held-out programs (%)", ylim=(-2, 102), title="Fold vs Unfold accuracy per seed")
    ax.legend()
    return render(fig, name="accuracy_fold_unfold", caption="Held-out accuracy of each mode after the lossy cold "
                  "start and after mixed RL (thin: seeds, thick: mean).")


def kv_figure(recs: list[dict[str, Any]], cfg: RunConfig) -> FigureData:
    """Mean peak cached tokens per rollout by number of steps, both modes, RL checkpoint."""
    fig, ax = new_figure()
    steps = list(range(cfg.task.min_steps, cfg.task.max_steps + 1))
    for mode in ("fold", "unfold"):
        ys = np.array([[r["rl"]["by_steps"][str(s)][mode]["peak_kv"] if str(s) in r["rl"]["by_steps"] else np.nan
                        for s in steps] for r in recs])
        ax.plot(steps, np.nanmean(ys, axis=0), marker="o", color=COLOR[mode], label=mode.capitalize())
    ax.set(xlabel="steps of the program", ylabel="peak cached tokens per rollout",
           title="KV cache: Fold drops each finished thought")
    ax.set_xticks(steps)
    ax.legend()
    return render(fig, name="peak_kv_by_steps", caption="Mean peak KV-cache tokens of a rollout after RL, by the "
                  "program's number of steps, for Fold and Unfold.")


def throughput_figure(rows: list[dict[str, Any]], batch: dict[str, int]) -> FigureData:
    """Tokens/s of each mode at one KV budget, one point per (seed, repeat)."""
    fig, ax = new_figure()
    for k, mode in enumerate(("unfold", "fold")):
        v = [r[f"{mode}_tps"] for r in rows]
        ax.scatter(np.full(len(v), k) + np.linspace(-0.1, 0.1, len(v)), v, color=COLOR[mode])
        ax.hlines(np.mean(v), k - 0.2, k + 0.2, color=COLOR[mode], lw=2)
    ax.set_xticks([0, 1], [f"Unfold ({batch['unfold']} rollouts)", f"Fold ({batch['fold']} rollouts)"])
    ax.set(ylabel="generated tokens / s (CPU, KV cache)", title="one KV-cache budget, as many rollouts as fit")
    return render(fig, name="throughput", caption="Generated tokens per second of Fold and Unfold rollouts, each "
                  "with as many concurrent rollouts as the KV budget holds (points: seeds x repeats).")
