"""What the real-LM claims of [P30] measure: SmolLM2-135M's prefill perplexity on long text with UniSparse against
full attention, and the attention-mass recall of every method against its block density on the model's own queries
and keys. Smoke runs a tiny random Llama of the same class."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import new_figure, render
from icml26.papers.unisparse._lm import load_lm, long_text_ids, prefill_nll
from icml26.papers.unisparse._methods import METHODS, make_method
from icml26.papers.unisparse._metrics import block_attention_mass, mass_recall
from icml26.papers.unisparse._rules import judge_perplexity, judge_recall
from icml26.papers.unisparse._unisparse import unisparse_mask

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.unisparse.claims import LMConfig, RecallConfig


def _model_or_unsupported(name: str, n: int) -> tuple[Any, Any] | ClaimResult:
    from icml26.common.models import MissingExtraError

    try:
        return load_lm(name, n=n)
    except MissingExtraError as exc:
        return ClaimResult(Verdict.UNSUPPORTED, reason=f"the real LM is not installed: {exc}")


def check_lm_perplexity(cfg: LMConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P30] (>= 99 % of full-attention accuracy): SmolLM2-135M's next-token perplexity over a long
    prefill with UniSparse at τ against full attention, one text window per seed."""
    got = _model_or_unsupported(cfg.model, cfg.n)
    if isinstance(got, ClaimResult):
        return got
    model, tok = got
    method = functools.partial(unisparse_mask, block=cfg.block, cq=cfg.cq, ck=cfg.ck, tau=cfg.tau,
                               granularities=cfg.granularities)
    rows = []
    for s in ctx.seeds:
        ids = long_text_ids(tok, n=cfg.n, seed=s)
        nll_full, _ = prefill_nll(model, ids, None)
        nll_sparse, log = prefill_nll(model, ids, method)
        rows.append({"seed": s, "nll_full": nll_full, "nll_sparse": nll_sparse, "density": log.density,
                     "density_by_layer": [d for _, d in sorted(log.densities)]})
    j = judge_perplexity(rows, bars=ctx.bars)
    fig, ax = new_figure()
    ax.plot(np.mean([r["density_by_layer"] for r in rows], axis=0), marker="o")
    ax.set(xlabel="layer", ylabel="UniSparse block density", ylim=(0, 1.02),
           title=f"{cfg.model}, n={cfg.n}, τ={cfg.tau}, block={cfg.block}")
    return ClaimResult.judged(
        j, summary=(f"perplexity {j.measured['ppl_full']:.3f} full, ratio {j.measured['ppl_ratio']:.4f} with UniSparse "
                    f"at density {j.measured['density']:.3f}"),
        rows=rows, figures=[render(fig, name="density_by_layer", caption="UniSparse's block density per layer "
                                                                          "(mean over text windows).")],
        notes="SmolLM2-135M-Instruct with its Q4_1 weights dequantised to fp32; sparse attention in every layer's "
              "prefill, perplexity over all positions of the window")


def _curves(cfg: RecallConfig, q_k: list[tuple[Any, Any]], seed: int) -> dict[str, list[tuple[float, float]]]:
    """Method -> [(density, recall)] over its knob grid, each the mean over the captured layers and heads."""
    masses = [block_attention_mass(q, k, block=cfg.block) for q, k in q_k]
    n = q_k[0][0].shape[1]
    out: dict[str, list[tuple[float, float]]] = {}
    for name in METHODS:
        fn, _ = make_method(name, block=cfg.block, cq=cfg.cq, ck=cfg.ck, granularities=cfg.granularities, n=n,
                            seed=seed)
        pts = []
        for knob in dict(cfg.grids)[name]:
            masks = [fn(knob)(q, k) for q, k in q_k]
            pts.append((float(np.mean([m.density for m in masks])),
                        float(np.mean([float(mass_recall(m, w).mean()) for m, w in zip(masks, masses)]))))
        out[name] = sorted(pts)
    return out


def _at(points: list[tuple[float, float]], density: float) -> float:
    d = np.array([p[0] for p in points])
    r = np.array([p[1] for p in points])
    if density < d.min() or density > d.max():
        return float("nan")
    return float(np.interp(density, d, r))


def check_mass_recall(cfg: RecallConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P30] (surpasses MInference, XAttention, FlexPrefill): the full attention mass each method keeps
    against its block density, on the LM's own post-RoPE queries and keys, compared at equal density."""
    got = _model_or_unsupported(cfg.model, cfg.n)
    if isinstance(got, ClaimResult):
        return got
    model, tok = got
    rows, curves = [], {}
    for s in ctx.seeds:
        _, log = prefill_nll(model, long_text_ids(tok, n=cfg.n, seed=s), None, capture=True)
        q_k = [(q, k) for layer, q, k in log.captured if layer % cfg.layer_stride == 0]
        curves[s] = _curves(cfg, q_k, s)
        rows += [{"seed": s, "method": m, "density_target": t, "recall": _at(pts, t)}
                 for m, pts in curves[s].items() for t in cfg.targets]
    j = judge_recall(rows, bars=ctx.bars)
    fig, ax = new_figure()
    first = curves[ctx.seeds[0]]
    for i, (m, pts) in enumerate(first.items()):
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=f"C{i}", label=m,
                lw=2.5 if m == "unisparse" else 1.0)
    ax.set(xlabel="block density", ylabel="attention mass recall", xlim=(0, 1.02), ylim=(0, 1.02),
           title=f"{cfg.model}, n={cfg.n}, block={cfg.block}, every {cfg.layer_stride} layer(s)")
    ax.legend(fontsize=8)
    mean = j.measured.get("mean_recall", {})
    return ClaimResult.judged(
        j, summary="recall at density " + "; ".join(
            f"{t}: " + ", ".join(f"{m} {v[t]:.3f}" for m, v in mean.items()) for t in (next(iter(mean.values()), {})))
        if mean else j.reason,
        rows=rows + [{"seed": s, "method": m, "curve": pts} for s, c in curves.items() for m, pts in c.items()],
        figures=[render(fig, name="mass_recall_vs_density",
                        caption="Share of full attention mass inside the selected blocks against block density "
                                "(first text window; mean over captured layers and heads).")])
