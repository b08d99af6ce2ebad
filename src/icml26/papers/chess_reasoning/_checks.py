"""What the [P20] claims measure: both SFT arms and Dr.GRPO from each, per seed (shared by the run group ``runs``
through ``ctx.shared`` and cached on disk); the reward curves and the before/after measures as figures.

The verdicts come from :mod:`._rules`; this module runs the seeds, collects the rows and draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.chess_reasoning._labels import stockfish_path
from icml26.papers.chess_reasoning._rules import (
    ARMS,
    NAMES,
    judge_comparable,
    judge_faithful,
    judge_hallucination,
    judge_quality,
    judge_stability,
    judge_strength,
)
from icml26.papers.chess_reasoning._runs import run_seed
from icml26.papers.chess_reasoning._strength import elo_difference

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.chess_reasoning.claims import ComparisonConfig

_DROP = ("reward_curve", "curve")


FULL_REASON = ("the paper's scale (SFT of Qwen2.5-7B on 120M tokens, then Dr.GRPO in verl over 4 tasks x 2048 "
               "prompts with 8 rollouts each) needs a GPU cluster; this package trains a 0.1M-parameter TinyGPT")


def _missing_engine(cfg: ComparisonConfig) -> ClaimResult | None:
    if cfg.full_scale:
        return ClaimResult(Verdict.UNSUPPORTED, FULL_REASON, summary="not run (paper scale)")
    if cfg.run.labeller == "stockfish" and stockfish_path() is None:
        return ClaimResult(Verdict.UNSUPPORTED, "the labels come from Stockfish, which is not installed: "
                           "`sudo apt-get install stockfish` (Debian), or run the smoke budget (minimax labels)")
    return None


def _rows(cfg: ComparisonConfig, ctx: Context) -> list[dict[str, Any]]:
    """One row per (arm, seed); each seed's runs shared by the group's claims."""
    return [r for s in ctx.seeds for r in ctx.shared(run_seed, (cfg.run, s))]


def _strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in _DROP} for r in rows]


def _mean(rows: list[dict[str, Any]], arm: str, key: str) -> float:
    v = [float(r[key]) for r in rows if r["arm"] == arm and key in r]
    return float(np.mean(v)) if v else float("nan")


def _table(rows: list[dict[str, Any]], keys: tuple[str, ...], fmt: str = "{:.3f}") -> str:
    return "; ".join(f"{NAMES[a]}: " + ", ".join(f"{k} " + fmt.format(_mean(rows, a, k)) for k in keys)
                     for a in ARMS)


def _curves(rows: list[dict[str, Any]], key: str = "reward", smooth: int = 5) -> FigureData:
    fig, ax = new_figure()
    for i, arm in enumerate(ARMS):
        ys = np.array([[c[key] for c in r["curve"]] for r in rows if r["arm"] == arm])
        if ys.size == 0:
            continue
        k = max(1, min(smooth, ys.shape[1]))
        sm = np.array([np.convolve(y, np.ones(k) / k, mode="valid") for y in ys])
        xs = np.arange(sm.shape[1]) + (k + 1) / 2
        for y in sm:
            ax.plot(xs, y, color=f"C{i}", lw=0.7, alpha=0.35)
        ax.plot(xs, sm.mean(axis=0), color=f"C{i}", lw=2.0, label=f"{NAMES[arm]} SFT (mean of {len(sm)} seeds)")
    ax.set(xlabel="Dr.GRPO iteration", ylabel=f"training {key.replace('_', ' ')}",
           title=f"{key.replace('_', ' ')} per iteration (moving mean of {smooth})")
    ax.legend()
    return render(fig, name=f"rl_{key}_curves", caption=f"Training-rollout {key.replace('_', ' ')} per Dr.GRPO "
                  "iteration after each SFT arm: thin lines one seed each, thick the mean over seeds.")


def _before_after(rows: list[dict[str, Any]], metric: str, label: str) -> FigureData:
    fig, ax = new_figure()
    for i, arm in enumerate(ARMS):
        for r in (r for r in rows if r["arm"] == arm):
            ax.plot([0, 1], [r[f"sft_{metric}"], r[f"rl_{metric}"]], color=f"C{i}", marker="o", lw=1, alpha=0.6)
        ax.plot([], [], color=f"C{i}", marker="o", label=f"{NAMES[arm]} SFT (one line per seed)")
    ax.set_xticks([0, 1], ["SFT checkpoint", "after Dr.GRPO"])
    ax.set(ylabel=label, title=f"{label}: held-out positions")
    ax.legend()
    return render(fig, name=f"{metric}_before_after", caption=f"{label.capitalize()} on held-out positions at the "
                  "SFT checkpoint and after Dr.GRPO, per arm and seed (responses sampled at temperature 1).")


def _predictive(rows: list[dict[str, Any]]) -> str:
    """Pearson r of SFT-checkpoint measures with post-RL quality across (arm, seed) runs (a finding, never judged:
    the paper fits this across many data mixes)."""
    post = np.array([r["rl_quality"] for r in rows], dtype=float)
    out = []
    for key in ("sft_quality", "sft_any_illegal", "sft_think_quality"):
        x = np.array([r[key] for r in rows], dtype=float)
        ok = np.isfinite(x) & np.isfinite(post)
        if ok.sum() < 3 or np.std(x[ok]) == 0 or np.std(post[ok]) == 0:
            out.append(f"{key}: n/a")
            continue
        out.append(f"{key}: r = {float(np.corrcoef(x[ok], post[ok])[0, 1]):+.2f}")
    return ", ".join(out) + f" (n = {len(rows)} runs)"


def check_rl_raises_quality(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """[P20] Abstract: RL shifts move quality up, after either SFT arm (paired over seeds)."""
    if (miss := _missing_engine(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    return ClaimResult.judged(
        judge_quality(rows, bars=ctx.bars), summary="held-out move quality " + _table(rows, ("sft_quality",
                                                                                            "rl_quality")),
        rows=_strip(rows), figures=[_before_after(rows, "quality", "move quality"), _curves(rows)],
        findings={"greedy decoding": _table(rows, ("sft_greedy_quality", "rl_greedy_quality")),
                  "a random legal move (the floor)": f"{_mean(rows, ARMS[0], 'random_quality'):.3f}",
                  "quality of the first reasoned ply": _table(rows, ("sft_think_quality", "rl_think_quality")),
                  "SFT-checkpoint measures vs post-RL quality (Pearson r)": _predictive(rows)},
        notes="Move quality: the predictmove score of the answer (min-max normalised win probability among the "
        "legal moves, 0 below 0.3, 0 for an illegal or malformed answer).")


def check_rl_reduces_hallucination(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """[P20] Abstract: RL lowers hallucination rates (illegal answers and illegal reasoning plies)."""
    if (miss := _missing_engine(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    return ClaimResult.judged(
        judge_hallucination(rows, bars=ctx.bars),
        summary="responses with an illegal move " + _table(rows, ("sft_any_illegal", "rl_any_illegal")),
        rows=_strip(rows), figures=[_before_after(rows, "any_illegal", "share of responses with an illegal move"),
                                    _curves(rows, "hallucinated")],
        findings={"illegal answers": _table(rows, ("sft_answer_illegal", "rl_answer_illegal")),
                  "reasoning with an illegal ply": _table(rows, ("sft_hallucinated", "rl_hallucinated")),
                  "illegal share of reasoning plies": _table(rows, ("sft_illegal_plies", "rl_illegal_plies")),
                  "malformed responses": _table(rows, ("sft_malformed", "rl_malformed"))})


def check_bestline_faithful(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """[P20] Abstract: best-line SFT keeps reasoning faithful after RL, best-move SFT does not."""
    if (miss := _missing_engine(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    return ClaimResult.judged(
        judge_faithful(rows, bars=ctx.bars), summary="faithfulness (answer == first reasoned ply) "
        + _table(rows, ("sft_faithful", "rl_faithful")), rows=_strip(rows),
        figures=[_before_after(rows, "faithful", "faithfulness"), _curves(rows, "faithful")],
        findings={"greedy decoding": _table(rows, ("sft_greedy_faithful", "rl_greedy_faithful"))},
        notes="Judged on responses sampled at temperature 1 (the distribution RL trains); greedy beside it.")


def check_comparable_quality(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """[P20] Abstract: best-line SFT reaches post-RL move quality comparable to best-move SFT."""
    if (miss := _missing_engine(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    return ClaimResult.judged(
        judge_comparable(rows, bars=ctx.bars), summary="post-RL move quality " + _table(rows, ("rl_quality",))
        + f"; a random legal move {_mean(rows, ARMS[0], 'random_quality'):.3f}",
        rows=_strip(rows), figures=[_before_after(rows, "quality", "move quality")],
        findings={"greedy decoding after RL": _table(rows, ("rl_greedy_quality",)),
                  "at the SFT checkpoint": _table(rows, ("sft_quality",))},
        notes="A random legal move's quality: the mean predictmove score of the legal moves of each held-out "
        "position (the floor below which neither arm plays chess).")


def check_bestline_stabler_rl(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """[P20] Abstract: RL after best-line SFT is more stable (reward-curve jitter, paired over seeds)."""
    if (miss := _missing_engine(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    return ClaimResult.judged(
        judge_stability(rows, bars=ctx.bars), summary="std of the iteration-to-iteration reward change "
        + _table(rows, ("reward_jitter",), "{:.4f}"), rows=_strip(rows), figures=[_curves(rows)])


def check_beats_random(cfg: ComparisonConfig, ctx: Context) -> ClaimResult:
    """Strength of the post-RL policies in whole games (random player judged, Stockfish reported)."""
    if (miss := _missing_engine(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    found = {}
    for arm in ARMS:
        if any("vs_stockfish_score" in r for r in rows if r["arm"] == arm):
            s = _mean(rows, arm, "vs_stockfish_score")
            found[f"{NAMES[arm]} against Stockfish depth {cfg.run.opponent_depth}"] = (
                f"score {s:.3f} (Elo gap {elo_difference(s):+.0f}), illegal answers replaced "
                f"{_mean(rows, arm, 'vs_stockfish_replaced'):.3f}")
        s = _mean(rows, arm, "vs_random_score")
        found[f"{NAMES[arm]} against random, Elo gap"] = f"{elo_difference(s):+.0f}" if s == s else "n/a"
    return ClaimResult.judged(
        judge_strength(rows, bars=ctx.bars), summary="score against the random player "
        + _table(rows, ("vs_random_score", "vs_random_replaced")), rows=_strip(rows), findings=found,
        notes=f"{cfg.run.games} games per seed and arm and opponent, alternating colours, {cfg.run.max_plies} plies "
        "then material adjudication (a 3-pawn lead wins); an illegal answer is replaced by a random legal move.")
