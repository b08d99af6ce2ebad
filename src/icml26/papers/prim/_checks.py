"""What the [P31] claims measure: the toy LM's accuracy under every method and budget (one sweep shared by the
claims of group ``sweep`` through ``ctx.shared``, seeds in parallel through ``ctx.mapper``), and the prefill time of
the compressed model.

The verdicts come from :mod:`._rules`; this module trains (or loads from the cache), evaluates and draws.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.prim._data import AUDIO_PER_FRAME, QUESTIONS, Clips, make_clips
from icml26.papers.prim._eval import BASELINES, _inputs, _plans, evaluate, methods, prefill_seconds
from icml26.papers.prim._lm import TinyAVLM
from icml26.papers.prim._rules import accuracy, judge_cross_modal, judge_retention, judge_speedup, judge_tradeoff
from icml26.papers.prim._scores import text_conditioned_scores
from icml26.papers.prim._select import Method
from icml26.papers.prim._train import trained_model

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.prim.claims import SpeedConfig, SweepConfig

Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]

EVAL_SEED = 100_000  # evaluation clips of seed s come from make_clips(seed=EVAL_SEED + s), unseen in training


def _cells(seed: int, method: str, budget: float, clips: Any, correct: np.ndarray) -> list[dict[str, Any]]:
    return [{"seed": seed, "method": method, "budget": budget, "question": q, "n": int((clips.question == i).sum()),
             "correct": int(correct[clips.question == i].sum())} for i, q in enumerate(QUESTIONS)]


def run_seed(item: tuple[SweepConfig, int]) -> tuple[list[dict[str, Any]], str]:
    """One seed of the sweep: train (or load) the toy LM, then every method at every budget on fresh clips; also
    :func:`beep_diagnosis` of that seed."""
    cfg, seed = item
    model = trained_model(cfg.train, seed=seed)
    clips = make_clips(cfg.n_eval, seed=EVAL_SEED + seed)
    full = evaluate(model, clips, None, 1.0)
    rows = _cells(seed, "full", 1.0, clips, full["correct"])
    for name, m in methods(seed=seed).items():
        for b in cfg.budgets:
            res = evaluate(model, clips, m, b)
            for r in _cells(seed, name, b, clips, res["correct"]):
                rows.append({**r, "flops_ratio": res["flops_ratio"], "kept": res["kept"]})
    return rows, beep_diagnosis(model, clips, seed)


def run_sweep(cfg: SweepConfig, seeds: tuple[int, ...], mapper: Mapper | None = None
              ) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """Every seed of the sweep (through ``mapper``, the runner's ``ctx.mapper``, when given: seeds in parallel),
    shared by the claims of group ``sweep``: the rows of all seeds and each seed's beep diagnosis."""
    items = [(cfg, s) for s in seeds]
    out = list(mapper(run_seed, items)) if mapper is not None else [run_seed(x) for x in items]
    return [r for rows, _ in out for r in rows], {s: d for s, (_, d) in zip(seeds, out, strict=True)}


def _curve(rows: list[dict[str, Any]], budgets: tuple[float, ...]) -> FigureData:
    seeds = sorted({r["seed"] for r in rows})
    fig, ax = new_figure(width=7.0, height=4.2)
    full = np.mean([accuracy(rows, "full", 1.0, s) for s in seeds])
    for i, m in enumerate(("prim", *BASELINES)):
        acc = [np.mean([accuracy(rows, m, b, s) for s in seeds]) for b in budgets]
        ax.plot(budgets, acc, marker="o", lw=2.4 if m == "prim" else 1.2, color=f"C{i}", label=m)
    ax.axhline(full, color="gray", ls="--", lw=0.8, label="uncompressed")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(budgets), [f"{b:.1%}" for b in budgets])
    ax.set(xlabel="retained audio/video tokens (equal attention FLOPs)", ylabel="accuracy (mean over seeds)",
           title="toy audio-visual LM under token compression")
    ax.legend(ncol=2, fontsize=8)
    return render(fig, name="accuracy_vs_ratio", caption="Accuracy of the toy LM against the retained-token ratio, "
                                                           "PRIM and every baseline at equal attention FLOPs.")


def beep_diagnosis(model: TinyAVLM, clips: Clips, seed: int, *, budget: float = 0.25) -> str:
    """Where PRIM loses the audio-only (beep) questions of one seed, at ``budget``: the video share of the stage (i)
    relevance (before its clip), the beep's spectrogram slices (of ``AUDIO_PER_FRAME``) that the pre-LM selection
    keeps, and the beep accuracy with and without the in-LM stage (a finding beside the claim, not judged)."""
    beep = np.flatnonzero(clips.question == QUESTIONS.index("beep"))
    if beep.size == 0:
        return f"seed {seed}: no beep question among the evaluation clips"
    _, _, toks, queries = _inputs(model, clips)
    prim = methods(seed=seed)["prim"]
    _, picks = _plans(model, prim, budget, toks, queries)
    share, hits = [], []
    for i in beep.tolist():
        r = text_conditioned_scores(queries[i], toks[i].keys, n_heads=toks[i].n_heads)
        share.append(r[:toks[i].n_video].sum() / r.sum())
        first = toks[i].n_video + int(clips.beep_frame[i]) * AUDIO_PER_FRAME
        hits.append(np.isin(np.arange(first, first + AUDIO_PER_FRAME), picks[i]).sum())
    with_lm = evaluate(model, clips, prim, budget)["correct"][beep].mean()
    without = evaluate(model, clips, Method("prim_pre_lm_only", prim.select), budget)["correct"][beep].mean()
    return (f"seed {seed}: video share of the relevance {np.mean(share):.2f} (before the clip); beep slices kept "
            f"before the LM {np.mean(hits):.1f} of {AUDIO_PER_FRAME}; beep accuracy {with_lm:.2f} with the in-LM "
            f"stage, {without:.2f} without")


def check_superior_tradeoff(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P31]: PRIM's efficiency-accuracy trade-off is superior: its accuracy is at least every
    baseline's at each retained ratio, at equal attention FLOPs."""
    rows, diags = ctx.shared(run_sweep, cfg, tuple(ctx.seeds), ctx.mapper)
    j = judge_tradeoff(rows, bars=ctx.bars)
    acc = j.measured["mean_accuracy"]
    summary = "; ".join(f"{b:.3g}: PRIM {acc[f'prim@{b:.3g}']:.3f}, best baseline "
                        f"{max(acc[f'{m}@{b:.3g}'] for m in BASELINES):.3f}" for b in cfg.budgets)
    diag = {f"beep questions at 25 %, seed {s}": d for s, d in diags.items()}
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[_curve(rows, cfg.budgets)], findings=diag)


def check_retains_full_accuracy(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P31] ("stable" trade-offs): at half of the tokens PRIM keeps nearly all of the full accuracy."""
    rows, _ = ctx.shared(run_sweep, cfg, tuple(ctx.seeds), ctx.mapper)
    j = judge_retention(rows, bars=ctx.bars, budget=cfg.retention_budget)
    r = j.measured["ratio_per_seed"]
    return ClaimResult.judged(j, summary=f"PRIM@{cfg.retention_budget:.3g} / full accuracy per seed: "
                                         + ", ".join(f"{x:.3f}" for x in r))


def _per_question(rows: list[dict[str, Any]], budgets: tuple[float, ...]) -> FigureData:
    seeds = sorted({r["seed"] for r in rows})
    fig, ax = new_figure(width=7.0, height=4.0)
    for i, q in enumerate(QUESTIONS):
        acc = [np.mean([accuracy(rows, "prim", b, s, q) for s in seeds]) for b in budgets]
        full = np.mean([accuracy(rows, "full", 1.0, s, q) for s in seeds])
        ax.plot([1.0, *budgets], [full, *acc], marker="o", color=f"C{i}", label=q)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="retained audio/video tokens", ylabel="PRIM accuracy", title="per question type")
    ax.legend()
    return render(fig, name="prim_per_question", caption="PRIM's accuracy per question type against the ratio.")


def check_cross_modal_degrades_least(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P31] (cooperative cross-modal compression): questions that need both modalities lose the least."""
    rows, _ = ctx.shared(run_sweep, cfg, tuple(ctx.seeds), ctx.mapper)
    j = judge_cross_modal(rows, bars=ctx.bars)
    drops = j.measured["mean_drop"]
    return ClaimResult.judged(j, summary="mean accuracy drop of PRIM over the budgets: "
                                         + ", ".join(f"{q} {d:+.3f}" for q, d in drops.items()),
                              figures=[_per_question(rows, cfg.budgets)])


def check_prefill_speedup(cfg: SpeedConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P31] ("efficient"): the compressed LM's prefill is faster than the uncompressed one's, the LM
    alone and with PRIM's scoring counted (CPU wall-clock, paired rounds, an untrained LM of the same shape: time
    does not depend on the weights)."""
    model = TinyAVLM(cfg.model, seed=ctx.seeds[0])
    clips = make_clips(cfg.n_clips, seed=EVAL_SEED + ctx.seeds[0], frames=cfg.model.frames)
    prim = methods(seed=ctx.seeds[0])["prim"]
    full_lm, full_pre, comp_lm, comp_pre = [], [], [], []
    for _ in range(cfg.rounds):  # interleaved, so that a slow spell hits both sides
        lm, pre = prefill_seconds(model, clips, None, 1.0, rounds=1)[0]
        full_lm.append(lm)
        full_pre.append(pre)
        lm, pre = prefill_seconds(model, clips, prim, cfg.budget, rounds=1)[0]
        comp_lm.append(lm)
        comp_pre.append(pre)
    full_tot = [a + b for a, b in zip(full_lm, full_pre, strict=True)]
    comp_tot = [a + b for a, b in zip(comp_lm, comp_pre, strict=True)]
    flops = evaluate(model, clips, prim, cfg.budget)["flops_ratio"]
    j = judge_speedup(full_lm, comp_lm, full_total_s=full_tot, compressed_total_s=comp_tot, bars=ctx.bars,
                      flops_ratio=flops)
    timings = {**j.timings, "full_lm_s_median": float(np.median(full_lm)),
               "full_embed_s_median": float(np.median(full_pre)), "prim_lm_s_median": float(np.median(comp_lm)),
               "prim_selection_s_median": float(np.median(comp_pre))}
    return ClaimResult(j.verdict, j.reason, summary=f"attention FLOPs ratio {flops:.3f} at {cfg.budget:.3g} retained",
                       measured=dict(j.measured), timings=timings,
                       findings={"selection_overhead": "PRIM's scoring runs in numpy per clip; the 'with selection' "
                                 "speed-up counts it (embedding, first-layer keys, scores, plan), the 'LM prefill' "
                                 "one does not"})
