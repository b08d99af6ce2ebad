"""What ``llama_equivalence`` measures: [P06]'s patches on a transformers Llama model (SmolLM2-135M at ``small``, a
tiny random Llama at ``smoke``), in float64, on context/query pairs cut from text that ships with Python itself.

Per pair: the relative logit gap of the patched query alone against the model with context, the context's effect
(the query after another context of the same length), the relative gap left by the patches of that other context
(a negative control), and for the first pairs the greedy continuation with per-step patches against the one from
context + query. The verdict comes from :func:`icml26.papers.implicit_patch._rules.judge_real`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.models import INSTALL_HINT, MissingExtraError, load_causal_lm, tiny_causal_lm
from icml26.common.text import stdlib_docstrings
from icml26.figures import new_figure, render
from icml26.papers.implicit_patch._hf import (
    hf_context_patches,
    hf_patched_generate,
    hf_patched_logits,
    hf_with_context_logits,
)
from icml26.papers.implicit_patch._rules import judge_real

#: the modules whose docstrings give the context/query pairs
TEXT_MODULES = ("json", "textwrap", "string", "inspect")

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.implicit_patch.claims import RealConfig


def _text() -> str:
    """English prose shipped with the interpreter: docstrings of a few standard-library modules."""
    return " ".join(" ".join(p.split()) for p in stdlib_docstrings(TEXT_MODULES, members=False))


def _model(name: str) -> tuple[Any, Any]:
    model: Any
    if name == "tiny":
        model, tok = tiny_causal_lm(seed=0, num_layers=2, hidden_size=64, intermediate_size=128)
    else:
        model, tok = load_causal_lm(name)
    return model.to(torch.float64).eval(), tok


def _pairs(tok: Any, cfg: RealConfig, seed: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    ids = torch.as_tensor(tok(_text())["input_ids"], dtype=torch.long)
    span = cfg.n_context + cfg.n_query
    g = torch.Generator().manual_seed(seed)
    starts = torch.randperm(ids.numel() - span, generator=g)[: cfg.pairs].tolist()
    return [(ids[s : s + cfg.n_context], ids[s + cfg.n_context : s + span]) for s in starts]


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max() / a.abs().max())


@torch.no_grad()
def real_rows(cfg: RealConfig, seed: int) -> list[dict[str, Any]]:
    """One row per context/query pair (see the module docstring); raises MissingExtraError without the model."""
    model, tok = _model(cfg.model)
    pairs = _pairs(tok, cfg, seed)
    rows = []
    for k, (c, q) in enumerate(pairs):
        c2 = pairs[(k + 1) % len(pairs)][0]  # another context of the same length, from the same text
        a = hf_with_context_logits(model, c, q)
        b = hf_patched_logits(model, c, q, patches=hf_context_patches(model, c, q))
        other = hf_with_context_logits(model, c2, q)
        control = hf_patched_logits(model, c, q, patches=hf_context_patches(model, c2, q))
        row: dict[str, Any] = {"pair": k, "rel_gap": _rel(a, b), "effect": _rel(a, other), "control": _rel(a, control)}
        if k < cfg.generate_pairs:
            want = model.generate(torch.cat([c, q])[None], max_new_tokens=cfg.new_tokens, do_sample=False,
                                  pad_token_id=tok.eos_token_id)[0, c.numel() + q.numel():]
            got = hf_patched_generate(model, c, q, max_new_tokens=cfg.new_tokens)
            row["agree"] = float((want == got).float().mean())
        rows.append(row)
    return rows


def _figure(rows: list[dict[str, Any]], ctx: Context) -> Any:
    fig, ax = new_figure(width=6.0, height=3.2)
    xs = [r["pair"] for r in rows]
    ax.semilogy(xs, [max(r["rel_gap"], 1e-18) for r in rows], "o", label="patched query alone (relative gap)")
    ax.semilogy(xs, [r["control"] for r in rows], "s", label="another context's patches (control)")
    ax.semilogy(xs, [r["effect"] for r in rows], "^", label="another context (its effect)")
    v = ctx.bar("float64_gap").value
    if not isinstance(v, tuple):
        ax.axhline(v, ls="--", color="0.4", label="bar")
    ax.set_xlabel("context/query pair")
    ax.set_ylabel("max |Δlogit| / max |logit|")
    ax.legend(loc="center right")
    return render(fig, name="llama_equivalence", caption="Relative logit gap per pair on a Llama model in float64: "
                  "the patched query alone, another context's patches, and another context itself.")


def check_real(cfg: RealConfig, ctx: Context) -> ClaimResult:
    """``llama_equivalence``: the construction on a real Llama-class model."""
    try:
        rows = [r | {"seed": s} for s in ctx.seeds for r in real_rows(cfg, s)]
    except MissingExtraError as exc:
        return ClaimResult(Verdict.UNSUPPORTED, reason=f"{exc} ({INSTALL_HINT})", summary="not run")
    j = judge_real(rows, bars=ctx.bars)
    gen = [r["agree"] for r in rows if "agree" in r]
    summary = (f"{cfg.model}, {len(rows)} pairs: max relative gap {max(r['rel_gap'] for r in rows):.2g}; "
               f"control min {min(r['control'] for r in rows):.2g}; greedy agreement {min(gen, default=float('nan')):.2f}")
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[_figure(rows, ctx)])
