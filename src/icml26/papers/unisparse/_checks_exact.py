"""What ``tau_one_exact`` of [P30] measures: at τ = 1 UniSparse selects every causal block, and block-sparse
attention then equals full attention (float64 reference) on random shapes, grouped-query heads and partial last
blocks, for every CPU backend, and a patched Llama's logits equal the unpatched model's."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import torch

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.unisparse._attention import block_sparse_attention, full_attention, native_available
from icml26.papers.unisparse._lm import load_lm
from icml26.papers.unisparse._mask import causal_blocks
from icml26.papers.unisparse._patch import sparse_prefill
from icml26.papers.unisparse._rules import judge_exact
from icml26.papers.unisparse._unisparse import unisparse_mask

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.unisparse.claims import ExactConfig


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-300))


def _attention_rows(cfg: ExactConfig, seed: int) -> list[dict[str, Any]]:
    g = torch.Generator().manual_seed(seed)
    backends = ["reference"] + (["native"] if native_available() else [])
    rows = []
    for hq, hkv, n, d in cfg.shapes:
        q, k, v = (torch.randn(h, n, d, generator=g) for h in (hq, hkv, hkv))
        mask = unisparse_mask(q, k, block=cfg.block, cq=cfg.cq, ck=cfg.ck, tau=1.0, granularities=cfg.granularities)
        share = float(mask.blocks.sum()) / float(causal_blocks(mask.nb).sum() * hq)
        exact = full_attention(q.double(), k.double(), v.double())
        for b in backends:
            out = block_sparse_attention(q, k, v, mask, backend=b)
            rows.append({"case": f"attention {hq}/{hkv} heads n={n} d={d} {b}", "seed": seed, "full_share": share,
                         "rel_error": _rel(out, exact)})
    return rows


def _model_rows(cfg: ExactConfig, seed: int) -> list[dict[str, Any]]:
    model, _ = load_lm(cfg.model, n=cfg.model_n)
    ids = torch.randint(0, 256, (1, cfg.model_n), generator=torch.Generator().manual_seed(seed))
    method = functools.partial(unisparse_mask, block=cfg.block, cq=cfg.cq, ck=cfg.ck, tau=1.0,
                               granularities=cfg.granularities)
    with torch.no_grad():
        ref = model(input_ids=ids).logits
        with sparse_prefill(model, method) as log:
            got = model(input_ids=ids).logits
    return [{"case": f"{cfg.model} logits n={cfg.model_n}", "seed": seed, "full_share": min(d for _, d in log.densities),
             "rel_error": _rel(got, ref)}]


def check_tau_one_exact(cfg: ExactConfig, ctx: Context) -> ClaimResult:
    """[P30] as a plug-in for full attention: at τ = 1 the selection keeps every block and the output is full
    attention's, up to fp32 rounding."""
    rows = [r for s in ctx.seeds for r in (*_attention_rows(cfg, s), *_model_rows(cfg, s))]
    j = judge_exact(rows, bars=ctx.bars)
    fig, ax = new_figure(width=8.0, height=4.0)
    ax.barh([r["case"] for r in rows], [max(r["rel_error"], 1e-17) for r in rows])
    ax.set_xscale("log")
    ax.set(xlabel="relative error against full attention (τ = 1)")
    return ClaimResult.judged(
        j, summary=f"every causal block kept (smallest share {j.measured['full_share']:.3f}); largest relative error "
                   f"{j.measured['max_rel_error']:.2e} over {len(rows)} cases",
        rows=rows, figures=[render(fig, name="tau_one_error", caption="Relative error of block-sparse attention at "
                                                                       "τ = 1 against full attention, per case.")])
