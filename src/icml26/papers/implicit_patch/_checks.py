"""What the [P06] claims measure: logit gaps of the patched query alone against the model with context (float64 and
float32), greedy generations with per-step patches, and partial patches as negative controls.

The verdicts come from :mod:`icml26.papers.implicit_patch._rules`; this module only runs the models and draws.
"""

from __future__ import annotations

import copy
from functools import partial
from typing import TYPE_CHECKING, Any

import torch

from icml26.claims import ClaimResult, Context
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.figures import new_figure, render
from icml26.papers.implicit_patch._construct import _generate, context_patches, patched_logits, with_context_logits
from icml26.papers.implicit_patch._patches import Patches
from icml26.papers.implicit_patch._rules import FULL, judge_controls, judge_equivalence, judge_generation
from icml26.papers.implicit_patch._zoo import make_config, random_model, sample_pair, trained_model

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.implicit_patch.claims import ControlConfig, EquivConfig, GenConfig

#: the blocks of ``general_equivalence`` (keys of :data:`icml26.papers.implicit_patch._zoo.ARCHITECTURES`)
GENERAL = ("pre_ln", "post_ln", "parallel", "gated", "moe")
#: the partial patches of ``negative_controls``, besides the full one
CONTROLS = ("no norm patch", "only w_in", "inputs only (w_in, w_gate)")


def _line(ctx: Context, name: str) -> float:
    """The threshold of the one-sided bar ``name`` (for drawing it)."""
    v = ctx.bar(name).value
    if isinstance(v, tuple):
        raise ValueError(f"bar {name!r} is a band {v}, not a one-sided threshold")
    return v


def _models(cfg: EquivConfig, arch: str, seed: int, trained: bool) -> list[tuple[str, TinyGPT, GPTConfig]]:
    """(label, float64 model, GPTConfig) for every size, plus (``trained``) a 2-layer model trained on the copy task."""
    out = []
    for L in cfg.n_layers:
        gcfg = make_config(arch, n_layer=L, d_model=cfg.d_model)
        out.append((f"{arch}/L{L}/random", random_model(gcfg, seed=seed), gcfg))
    if trained:
        gcfg = make_config(arch, n_layer=2, d_model=32)
        out.append((f"{arch}/L2/trained", trained_model(gcfg, seed=seed, steps=cfg.trained_steps)[0], gcfg))
    return out


def context_effect(model: TinyGPT, c: torch.Tensor, q: torch.Tensor, with_context: torch.Tensor) -> float:
    """The context's effect with the query held at the same positions: max |logits(C ‖ x) − logits(C' ‖ x)| at the
    query positions, ``C'`` another uniform context of the same length (so a position shift does not count)."""
    g = torch.Generator().manual_seed(int(c.sum()) + 31 * c.numel())
    c2 = torch.randint(0, model.cfg.vocab_size, (c.numel(),), generator=g)
    with torch.no_grad():
        return float((with_context - model(torch.cat([c2, q])[None])[0, c.numel():]).abs().max())


def _gap(model: TinyGPT, c: torch.Tensor, q: torch.Tensor) -> tuple[float, float]:
    """(max |patched − with-context| logit difference, the context's effect at fixed positions)."""
    a = with_context_logits(model, c, q)
    b = patched_logits(model, c, q)
    return float((a - b).abs().max()), context_effect(model, c, q, a)


def equivalence_rows(cfg: EquivConfig, first_seed: int, task: tuple[int, str]) -> list[dict[str, Any]]:
    """One (seed, architecture): the float64 and float32 logit gaps and the context's effect per (model, pair)."""
    seed, arch = task
    trained = cfg.trained_steps > 0 and arch == cfg.archs[0] and seed == first_seed
    rows = []
    for label, m64, gcfg in _models(cfg, arch, seed, trained):
        m32 = copy.deepcopy(m64).float()  # the same weights, rounded to float32
        for k in range(cfg.pairs):
            c, q = sample_pair(gcfg, n_context=cfg.n_context, n_query=cfg.n_query, seed=1000 * seed + k,
                               copy="trained" in label)
            d64, eff = _gap(m64, c, q)
            d32, _ = _gap(m32, c, q)
            rows.append({"model": label, "seed": seed, "pair": k, "diff64": d64, "diff32": d32, "effect": eff})
    return rows


def check_equivalence(cfg: EquivConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P06]: the patched model on the query alone gives the with-context logits (float64 and float32)."""
    tasks = [(s, a) for s in ctx.seeds for a in cfg.archs]
    rows = [r for rs in ctx.map(partial(equivalence_rows, cfg, ctx.seeds[0]), tasks) for r in rs]
    j = judge_equivalence(rows, bars=ctx.bars)
    labels = sorted({r["model"] for r in rows})
    per = {lab: {"diff64": max(r["diff64"] for r in rows if r["model"] == lab),
                 "diff32": max(r["diff32"] for r in rows if r["model"] == lab),
                 "effect": min(r["effect"] for r in rows if r["model"] == lab)} for lab in labels}
    fig, ax = new_figure(width=7.5, height=4.0)
    x = list(range(len(labels)))
    ax.bar([i - 0.2 for i in x], [per[lab]["diff64"] + 1e-18 for lab in labels], 0.4, label="float64 max |Δlogit|")
    ax.bar([i + 0.2 for i in x], [per[lab]["diff32"] + 1e-18 for lab in labels], 0.4, label="float32 max |Δlogit|")
    ax.plot(x, [per[lab]["effect"] for lab in labels], "k^", label="context effect (min)")
    for i, name in enumerate(("float64_gap", "float32_gap")):
        ax.axhline(_line(ctx, name), color=f"C{i}", ls="--", lw=1)
    ax.set_yscale("log")
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("max |logit difference|")
    ax.legend(fontsize=7)
    worst64, worst32 = max(r["diff64"] for r in rows), max(r["diff32"] for r in rows)
    min_eff = min(r["effect"] for r in rows)
    return ClaimResult.judged(
        j, summary=f"float64 {worst64:.1e}, float32 {worst32:.1e} over {len(rows)} cases (context effect ≥ "
                   f"{min_eff:.2f})",
        measured={"max_diff_float64": worst64, "max_diff_float32": worst32, "min_context_effect": min_eff,
                  "per_model": per}, rows=rows,
        figures=[render(fig, name="equivalence", caption="Largest logit difference between the patched model on "
                        "the query alone and the model with context; dashed: the bars")],
        notes="Context effect: max |logits(C ‖ x) − logits(C' ‖ x)| with C' another context of the same length "
              "(the query at the same positions). Random weights are drawn at O(1) scale (N(0, 1/fan_in), norm scales "
              "1 + 0.3 N(0,1)); the trained model learnt a copy task (it uses the context).")


def generation_rows(cfg: GenConfig, job: tuple[int, str, bool]) -> list[dict[str, Any]]:
    """One (seed, architecture, trained?): greedy generations with the context, with per-step patches on the query
    alone, and on the unpatched query alone."""
    seed, arch, trained = job
    gcfg = make_config(arch, n_layer=cfg.n_layer, d_model=cfg.d_model)
    m = trained_model(gcfg, seed=seed, steps=cfg.trained_steps)[0] if trained else random_model(gcfg, seed=seed)
    rows = []
    for k in range(cfg.pairs):
        c, q = sample_pair(gcfg, n_context=cfg.n_context, n_query=cfg.n_query, seed=1000 * seed + k, copy=trained)
        ref = m.generate(torch.cat([c, q])[None], max_new_tokens=cfg.new_tokens)[0, c.numel() + q.numel():]
        got, steps = _generate(m, c, q, max_new_tokens=cfg.new_tokens, gaps=True)
        alone = m.generate(q[None], max_new_tokens=cfg.new_tokens)[0, q.numel():]
        rows.append({"model": f"{arch}/{'trained' if trained else 'random'}", "seed": seed, "pair": k,
                     "agree": float((ref == got).float().mean()), "agree_alone": float((ref == alone).float().mean()),
                     "distinct": len(set(ref.tolist())), "max_step_diff": max(steps), "steps": steps,
                     "tokens": ref.tolist()})
    return rows


def check_generation(cfg: GenConfig, ctx: Context) -> ClaimResult:
    """[P06] (token-dependent patches): greedy decoding from the query alone with per-step patches gives the same
    tokens as greedy decoding with the context."""
    jobs = [(seed, arch, False) for seed in ctx.seeds for arch in cfg.archs]
    if cfg.trained_steps:
        jobs.append((ctx.seeds[0], cfg.archs[0], True))
    rows = [r for rs in ctx.map(partial(generation_rows, cfg), jobs) for r in rs]
    j = judge_generation(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for r in rows:
        ax.semilogy(range(1, cfg.new_tokens + 1), [s + 1e-18 for s in r["steps"]], marker=".", alpha=0.7,
                    label=f"{r['model']} s{r['seed']} p{r['pair']}")
    ax.set_xlabel("generation step")
    ax.set_ylabel("max |Δlogit| of the next token")
    ax.legend(fontsize=6)
    agree = min(r["agree"] for r in rows)
    alone = sum(r["agree_alone"] for r in rows) / len(rows)
    return ClaimResult.judged(
        j, summary=f"token agreement {100 * agree:.0f}% in the worst of {len(rows)} runs (unpatched query alone: "
                   f"{100 * alone:.0f}% on average)",
        measured={"min_agreement": agree, "mean_agreement_unpatched": alone,
                  "max_agreement_unpatched": max(r["agree_alone"] for r in rows),
                  "min_distinct_tokens": min(r["distinct"] for r in rows),
                  "max_step_diff": max(r["max_step_diff"] for r in rows)},
        rows=rows,
        figures=[render(fig, name="generation", caption="Per-step next-token logit gap between the patched query "
                        "alone and the model with context")])


def control_variant(patches: Patches, name: str) -> Patches:
    """The partial patch ``name`` of :data:`CONTROLS` (or the full one) built from the full ``patches``."""
    if name == FULL:
        return patches
    if name == "no norm patch":
        return patches.without_norms()
    if name == "only w_in":
        return patches.only("w_in")
    if name == "inputs only (w_in, w_gate)":
        return patches.only("w_in", "w_gate")
    raise ValueError(f"name must be one of {[FULL, *CONTROLS]}, got {name!r}")


def control_rows(cfg: ControlConfig, seed: int) -> list[dict[str, Any]]:
    """One seed of ``negative_controls``: the logit error of the full and of each partial patch, absolute and
    relative to the context's effect."""
    gcfg = make_config(cfg.arch, n_layer=cfg.n_layer, d_model=cfg.d_model)
    m = random_model(gcfg, seed=seed)
    rows = []
    for k in range(cfg.pairs):
        c, q = sample_pair(gcfg, n_context=cfg.n_context, n_query=cfg.n_query, seed=1000 * seed + k)
        a = with_context_logits(m, c, q)
        eff = context_effect(m, c, q, a)
        P = context_patches(m, c, q)
        for name in (FULL, *CONTROLS):
            d = float((patched_logits(m, c, q, patches=control_variant(P, name)) - a).abs().max())
            rows.append({"variant": name, "seed": seed, "pair": k, "diff": d, "rel": d / eff})
    return rows


def check_controls(cfg: ControlConfig, ctx: Context) -> ClaimResult:
    """Negative controls of [P06]'s Gemma construction: dropping the RMSNorm-scale patch, or patching one matrix
    only, leaves part of the context's effect unexplained."""
    rows = [r for rs in ctx.map(partial(control_rows, cfg), ctx.seeds) for r in rs]
    j = judge_controls(rows, bars=ctx.bars)
    rel = {v: min(r["rel"] for r in rows if r["variant"] == v) for v in (FULL, *CONTROLS)}
    fig, ax = new_figure()
    ax.bar(range(len(rel)), [max(x, 1e-18) for x in rel.values()])
    ax.axhline(_line(ctx, "control_error"), color="k", ls="--", label="control bar")
    ax.set_yscale("log")
    ax.set_xticks(range(len(rel)), list(rel), rotation=15, fontsize=7)
    ax.set_ylabel("min relative logit error (÷ context effect)")
    ax.legend()
    return ClaimResult.judged(
        j, summary=", ".join(f"{v}: ≥ {b:.2f}" for v, b in rel.items() if v != FULL), rows=rows,
        measured={"full_max_diff": max(r["diff"] for r in rows if r["variant"] == FULL),
                  "control_min_rel": {v: b for v, b in rel.items() if v != FULL}},
        figures=[render(fig, name="controls", caption="Error left by partial patches, relative to the context's "
                        "effect on the logits (Gemma-style model)")])
