"""What the [P29] claims measure: one shared run per seed (GRPO training, then answers at every budget), and figures.

The verdicts come from :mod:`._rules`; this module runs :func:`._runs.run_seed` through the run group and draws.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.memocr._drafter import draft_memory, uniform_memory
from icml26.papers.memocr._episodes import make_episode
from icml26.papers.memocr._reader import tesseract_available
from icml26.papers.memocr._render import render_memory, resize_to_budget
from icml26.papers.memocr._rules import budget_to_reach, judge_efficiency, judge_gain, judge_parity, judge_random
from icml26.papers.memocr._runs import METHODS, SHOWN, UNIFORM_FONTS, run_seed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.memocr.claims import RunConfig

FULL_REASON = ("the paper's scale (Qwen2.5-VL-7B drafting and reading its rendered memory, RL with verl on HotpotQA/"
               "2Wiki/NQ/TriviaQA padded to 10K-100K tokens) needs a GPU cluster and the MemOCR-7B checkpoint; this "
               "package runs a toy of the layout-vs-budget mechanism with an OCR reader")
OCR_REASON = ("the OCR reader needs the tesseract binary (Debian: apt install tesseract-ocr tesseract-ocr-eng) and "
              "pytesseract (pip install 'icml26[agents]')")


def run_all(cfg: RunConfig, seeds: tuple[int, ...], mapper: Callable[..., list[Any]] | None) -> list[dict[str, Any]]:
    """:func:`run_seed` for every seed (through the runner's mapper when it gives one)."""
    tasks = [(cfg, s) for s in seeds]
    return list(mapper(run_seed, tasks)) if mapper is not None else [run_seed(t) for t in tasks]


def _skip(cfg: RunConfig) -> ClaimResult | None:
    if cfg.paper_scale:
        return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")
    if cfg.reader == "ocr" and not tesseract_available():
        return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=OCR_REASON, summary="not run (no OCR)")
    return None


def _rows(cfg: RunConfig, ctx: Context) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    runs = ctx.shared(run_all, cfg, tuple(ctx.seeds), ctx.mapper)
    return [r for run in runs for r in run["rows"]], runs


def _accuracy(rows: list[dict[str, Any]], method: str, budget: int) -> float:
    v = [r["correct"] for r in rows if r["method"] == method and r["budget"] == budget]
    return float(np.mean(v)) if v else float("nan")


def _measured(rows: list[dict[str, Any]], runs: list[dict[str, Any]], cfg: RunConfig) -> dict[str, Any]:
    return {"accuracy": {m: {str(b): _accuracy(rows, m, b) for b in cfg.budgets}
                         for m in (*METHODS, *SHOWN)},
            "evidence_promoted_share": float(np.mean([r["evidence_promoted"] for r in rows])),
            "mean_promoted_facts": float(np.mean([r["promoted"] for r in rows])),
            "policy_weights": [run["weights"] for run in runs], "ocr_calls": sum(run["ocr_calls"] for run in runs),
            "reader": cfg.reader}


def _findings(rows: list[dict[str, Any]], cfg: RunConfig) -> dict[str, str]:
    acc = {b: _accuracy(rows, "text_context_order", b) for b in cfg.budgets}
    share = float(np.mean([r["evidence_promoted"] for r in rows]))
    return {"raw-history truncation (ours)": "the facts in context order, without the drafter's selection, truncated "
            "to 4·B characters: " + ", ".join(f"B={b} {a:.2f}" for b, a in acc.items()),
            "evidence promoted (ours)": f"the trained policy promoted every evidence fact for {share:.0%} of the "
            f"questions, {np.mean([r['promoted'] for r in rows]):.2f} facts per memory on average"}


def _curve_figure(rows: list[dict[str, Any]], cfg: RunConfig) -> FigureData:
    fig, ax = new_figure()
    for m in (*METHODS, *SHOWN):
        bs = [b for b in cfg.budgets if any(r["method"] == m and r["budget"] == b for r in rows)]
        ax.plot(bs, [_accuracy(rows, m, b) for b in bs], marker="o", label=m, lw=2.5 if m == "layout" else 1.0,
                ls=":" if m in SHOWN else "-")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="memory budget B (visual tokens; text: B tokens of 4 characters)", ylabel="accuracy",
           ylim=(-0.05, 1.05), title=f"reader: {cfg.reader}")
    ax.legend()
    return render(fig, name="accuracy_vs_budget", caption="Accuracy of each memory as the budget shrinks.")


def _memory_figure(runs: list[dict[str, Any]], cfg: RunConfig) -> FigureData:
    """The layout and the uniform memory of one held-out question, shrunk to three budgets (shown at native pixels)."""
    from icml26.papers.memocr._drafter import LayoutPolicy

    ep = make_episode(n_bands=cfg.n_bands, n_questions=1, seed=12345)
    q = ep.questions[0]
    pol = LayoutPolicy(tuple(runs[0]["weights"]))
    pages = {"layout": render_memory(draft_memory(ep, pol.promote(ep, q))),
             "uniform": render_memory(uniform_memory(ep), fonts=UNIFORM_FONTS)}
    budgets = (16, 64, 1024)
    fig = new_figure(width=9.0, height=5.0)[0]
    fig.clf()
    axes = fig.subplots(2, len(budgets))
    for i, (name, page) in enumerate(pages.items()):
        for j, b in enumerate(budgets):
            img = resize_to_budget(page, b)
            axes[i, j].imshow(np.asarray(img), cmap="gray", vmin=0, vmax=255, interpolation="nearest")
            axes[i, j].set_title(f"{name}, B = {b} ({img.width}×{img.height} px)")
            axes[i, j].axis("off")
    fig.suptitle(q.text)
    return render(fig, name="memories_at_budgets", caption="A layout-aware and a uniform memory at 16, 64 and 1024 "
                  "visual tokens (each panel scaled to the same width; pixels are the budget's).")


def _training_figure(runs: list[dict[str, Any]]) -> FigureData:
    fig, ax = new_figure()
    for k, run in enumerate(runs):
        r = np.asarray(run["reward"])
        w = max(1, len(r) // 20)
        ax.plot(np.convolve(r, np.ones(w) / w, mode="valid"), color=f"C{k}", label=f"seed run {k}: group reward")
    ax.set(xlabel="GRPO step", ylabel="mean reward (moving average)", title="drafting reward under mixed budgets")
    ax.legend()
    return render(fig, name="grpo_reward", caption="Mean group reward of the layout policy during GRPO.")


def _result(j: Any, rows: list[dict[str, Any]], runs: list[dict[str, Any]], cfg: RunConfig, summary: str,
            figures: list[FigureData], extra: dict[str, str] | None = None) -> ClaimResult:
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=figures, measured=_measured(rows, runs, cfg),
                              findings={**_findings(rows, cfg), **(extra or {})},
                              notes=f"reader: {cfg.reader}; {len(rows)} answers")


def _other_targets(rows: list[dict[str, Any]], cfg: RunConfig) -> dict[str, str]:
    """The point ratio at other target accuracies (not judged: shows how much the verdict rests on the target)."""
    parts = []
    for t in (0.3, 0.7):
        need = {m: budget_to_reach(cfg.budgets, [_accuracy(rows, m, b) for b in cfg.budgets], t)
                for m in ("layout", "uniform", "text")}
        parts.append(f"at {t:g}: {min(need['uniform'], need['text']) / need['layout']:.2f}")
    return {"other target accuracies (ours)": "budget ratio best baseline / layout " + ", ".join(parts)}


def check_low_budget_gain(cfg: RunConfig, ctx: Context) -> ClaimResult:
    """[P29] Abstract / Sec. 4: at 16 and 64 visual tokens the layout memory beats uniform rendering and text."""
    if (skip := _skip(cfg)) is not None:
        return skip
    rows, runs = _rows(cfg, ctx)
    j = judge_gain(rows, bars=ctx.bars)
    s = "; ".join(f"B={b}: layout {_accuracy(rows, 'layout', b):.2f}, uniform {_accuracy(rows, 'uniform', b):.2f}, "
                  f"text {_accuracy(rows, 'text', b):.2f}" for b in (16, 64))
    return _result(j, rows, runs, cfg, s, [_curve_figure(rows, cfg), _memory_figure(runs, cfg)])


def check_parity_at_full(cfg: RunConfig, ctx: Context) -> ClaimResult:
    """[P29] Sec. 4: with the full budget (1024 visual tokens) the three memories are on par."""
    if (skip := _skip(cfg)) is not None:
        return skip
    rows, runs = _rows(cfg, ctx)
    j = judge_parity(rows, bars=ctx.bars)
    s = ", ".join(f"{m} {_accuracy(rows, m, 1024):.2f}" for m in ("layout", "uniform", "text")) + " at B=1024"
    return _result(j, rows, runs, cfg, s, [_curve_figure(rows, cfg)])


def check_policy_beats_random(cfg: RunConfig, ctx: Context) -> ClaimResult:
    """[P29] Sec. 4 ablation: the GRPO-trained layout beats random promotion of as many facts, at 16 tokens."""
    if (skip := _skip(cfg)) is not None:
        return skip
    rows, runs = _rows(cfg, ctx)
    j = judge_random(rows, bars=ctx.bars)
    s = f"B=16: trained {_accuracy(rows, 'layout', 16):.2f}, random {_accuracy(rows, 'random', 16):.2f}"
    return _result(j, rows, runs, cfg, s, [_training_figure(runs)])


def check_token_efficiency(cfg: RunConfig, ctx: Context) -> ClaimResult:
    """[P29] Sec. 4 / Fig. 1: ~8x token efficiency, as the budget each memory needs to reach one accuracy."""
    if (skip := _skip(cfg)) is not None:
        return skip
    rows, runs = _rows(cfg, ctx)
    j = judge_efficiency(rows, bars=ctx.bars)
    need = j.measured.get("budget_needed", {})
    s = ("budget to reach the target accuracy: " + ", ".join(f"{m} {v:.3g}" for m, v in need.items())) if need else \
        j.reason
    return _result(j, rows, runs, cfg, s, [_curve_figure(rows, cfg)], extra=_other_targets(rows, cfg))
