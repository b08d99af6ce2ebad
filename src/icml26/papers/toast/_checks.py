"""What the [P35] accuracy claims measure (TCS vs fixed subsets, couplings, the ToaSt budget) and their figures.

The verdicts come from :mod:`._rules`; this module runs one task per seed (:mod:`._experiments`) and draws.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import FigureData, new_figure, render
from icml26.papers.toast._experiments import budget_rows, coupling_rows, tcs_rows
from icml26.papers.toast._rules import judge_budget, judge_coupling, judge_tcs
from icml26.papers.toast._train import TrainSpec

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.toast.claims import BudgetConfig, CouplingConfig, TcsConfig

INSTALL = "transformers is not installed: pip install 'icml26[models]' (transformers' ViT is the model of this budget)"
COLORS = {"tcs": "C0", "random": "C3", "magnitude": "C1", "calibrated": "C2"}


def missing_transformers(spec: TrainSpec) -> ClaimResult | None:
    """``unsupported`` with the install hint when the budget's ViT needs transformers and it is absent."""
    if spec.arch == "transformers" and importlib.util.find_spec("transformers") is None:
        return ClaimResult(Verdict.UNSUPPORTED, reason=INSTALL)
    return None


def _seed_rows(fn: Any, cfg: Any, ctx: Context) -> list[dict[str, Any]]:
    return [r for rs in ctx.map(fn, [(cfg, s) for s in ctx.seeds]) for r in rs]


def _mean_ci(v: list[float]) -> tuple[float, float]:
    a = np.asarray(v, dtype=float)
    return float(a.mean()), float(1.96 * a.std(ddof=1) / np.sqrt(a.size)) if a.size > 1 else 0.0


def _tcs_figure(rows: list[dict[str, Any]], cfg: TcsConfig) -> FigureData:
    fig, ax = new_figure()
    dense = [r["accuracy"] for r in rows if r["method"] == "dense"]
    ax.axhline(float(np.mean(dense)), color="gray", ls="--", lw=1, label="dense")
    for i, m in enumerate(("tcs", "calibrated", "magnitude", "random")):
        pts = [_mean_ci([r["accuracy"] for r in rows if r["method"] == m and r["ratio"] == q]) for q in cfg.ratios]
        ax.errorbar(np.array(cfg.ratios) + 0.008 * (i - 1.5), [p[0] for p in pts], yerr=[p[1] for p in pts],
                    marker="o", capsize=3, color=COLORS[m], label=m)
    ax.set(xlabel=f"fraction of fc2 inputs dropped (last {cfg.blocks} blocks)", ylabel="test accuracy (%)",
           title=f"training-free channel selection, {len(dense)} seeds")
    ax.legend()
    return render(fig, name="tcs_accuracy_vs_ratio", caption=(
        "Test accuracy of the trained ViT with fc2 channel selection in its last blocks, against the fraction of "
        "hidden units dropped: TCS (per batch), TCS's score averaged over the training set (calibrated, static), "
        "weight-magnitude and random fixed subsets; mean and 95% normal interval over seeds; dashed: dense."))


def check_tcs(cfg: TcsConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P35]: TCS is training-free and costs little accuracy; fixed random/magnitude subsets cost more."""
    if (miss := missing_transformers(cfg.model)) is not None:
        return miss
    rows = _seed_rows(tcs_rows, cfg, ctx)
    j = judge_tcs(rows, bars=ctx.bars, ratio=cfg.judged_ratio)
    mean = j.measured.get("mean_accuracy", {})
    q = f"{cfg.judged_ratio:g}"
    summary = (f"dense {j.measured.get('dense_accuracy', float('nan')):.2f}%; at fc2 r = {q}: " + ", ".join(
        f"{m} {mean[m][q]:.2f}%" for m in ("tcs", "calibrated", "magnitude", "random", "tcs_all_patches",
                                           "tcs_per_sample") if q in mean.get(m, {})))
    findings = {"TCS's score made static (ours)": ", ".join(
        f"r = {k}: calibrated {v:.2f}% vs TCS {mean['tcs'][k]:.2f}%" for k, v in mean.get("calibrated", {}).items()),
        "patch sample and per-image selection (ours)": ", ".join(
            f"{m} {mean[m][q]:.2f}%" for m in ("tcs", "tcs_all_patches", "tcs_per_sample") if q in mean.get(m, {}))}
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[_tcs_figure(rows, cfg)], findings=findings,
                              notes=(f"TCS on fc2 of the last {cfg.blocks} blocks, selection per batch of 64 test "
                                     f"images, cls_weight {cfg.cls_weight:g}, patch sample {cfg.sample_ratio:g}; "
                                     f"random: mean of {cfg.random_draws} draws; magnitude: L2 norm of fc2's columns."))


def _coupling_figure(rows: list[dict[str, Any]], cfg: CouplingConfig) -> FigureData:
    fig, ax = new_figure()
    names = ("coupled", *cfg.variants)
    xs = np.arange(len(names))
    for off, key, label in ((-0.18, "oneshot", "one-shot (no fine-tuning)"), (0.18, "finetuned", "fine-tuned")):
        pts = [_mean_ci([r[key] for r in rows if r["coupling"] == c]) for c in names]
        ax.bar(xs + off, [p[0] for p in pts], width=0.34, yerr=[p[1] for p in pts], capsize=3, label=label)
    ax.set_xticks(xs, list(names))
    lo = min(r["oneshot"] for r in rows)
    ax.set(ylabel="test accuracy (%)", ylim=(max(0.0, lo - 5), 100),
           title=f"SCWP at {cfg.sparsity:.0%} head sparsity (gm score), {cfg.ft_epochs} fine-tuning epochs")
    ax.legend()
    return render(fig, name="coupling_accuracy", caption=(
        "Test accuracy after SCWP with each coupling of the Q/K and V/O scores, before and after the same "
        "fine-tuning with the masks kept; mean and 95% normal interval over seeds."))


def check_coupling(cfg: CouplingConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P35]: coupled head-wise pruning of MHSA is more robust than uncoupled variants."""
    if (miss := missing_transformers(cfg.model)) is not None:
        return miss
    rows = _seed_rows(coupling_rows, cfg, ctx)
    j = judge_coupling(rows, bars=ctx.bars, variants=cfg.variants)
    mean = j.measured["mean_accuracy"]
    summary = "fine-tuned: " + ", ".join(f"{c} {v['finetuned']:.2f}%" for c, v in mean.items())
    findings = {"one-shot accuracy before fine-tuning (ours)": ", ".join(f"{c} {v['oneshot']:.2f}%"
                                                                         for c, v in mean.items())}
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[_coupling_figure(rows, cfg)], findings=findings,
                              notes=("independent: Q, K, V and Oᵀ scored and masked each on its own (no tie between "
                                     "the sides; ours). Every variant keeps the same count per head and is "
                                     "fine-tuned with the same batches and learning rate."))


def _budget_figure(rows: list[dict[str, Any]]) -> FigureData:
    fig, ax = new_figure()
    full, small = rows[0]["macs_dense"] / 1e6, rows[0]["macs_toast"] / 1e6
    for i, (key, label, x) in enumerate((("dense", "dense", full), ("dense_ft", "dense + same fine-tuning", full),
                                         ("scwp", "SCWP (fine-tuned)", None), ("toast", "ToaSt (SCWP + TCS)", small))):
        m, ci = _mean_ci([r[key] for r in rows])
        xv = x if x is not None else (rows[0]["macs_dense"] - rows[0]["mhsa_dense"] + rows[0]["mhsa_toast"]) / 1e6
        ax.errorbar([xv + 0.01 * i], [m], yerr=[ci], marker="os^D"[i], capsize=3, ls="none", label=label)
    ax.set(xlabel="MACs per image (M)", ylabel="test accuracy (%)", title=f"ToaSt budget, {len(rows)} seeds")
    ax.legend()
    return render(fig, name="accuracy_vs_macs", caption=(
        "Test accuracy against MACs per image: the dense ViT, the dense ViT fine-tuned for the same extra epochs "
        "(the control), SCWP after fine-tuning and ToaSt (SCWP + TCS); mean and 95% normal interval over seeds."))


def check_budget(cfg: BudgetConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P35]: large FLOPs reduction at kept accuracy, judged against a dense model given the same extra
    fine-tuning (the paper compares with the model before its extra training)."""
    if (miss := missing_transformers(cfg.model)) is not None:
        return miss
    rows = _seed_rows(budget_rows, cfg, ctx)
    j = judge_budget(rows, bars=ctx.bars)
    m = j.measured["mean_accuracy"]
    summary = (f"MACs −{j.measured['mac_reduction']:.1%}; accuracy dense {m['dense']:.2f}%, dense + fine-tuning "
               f"{m['dense_ft']:.2f}%, SCWP {m['scwp']:.2f}%, ToaSt {m['toast']:.2f}%")
    g, f = j.measured["toast_minus_dense"], j.measured["dense_ft_minus_dense"]
    findings = {"the paper's comparison (ToaSt − dense before the extra training)":
                f"{g[0]:+.2f} pts [{g[1]:+.2f}, {g[2]:+.2f}]",
                "what the extra fine-tuning alone gives the dense model": f"{f[0]:+.2f} pts [{f[1]:+.2f}, {f[2]:+.2f}]"}
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[_budget_figure(rows)], findings=findings,
                              notes=(f"ToaSt: SCWP (gm, coupled) at {cfg.sparsity:.0%} in blocks 1.., fine-tuned "
                                     f"{cfg.ft_epochs} epochs with the masks kept, then TCS fc1 {list(cfg.fc1_ratios)} "
                                     f"/ fc2 {list(cfg.fc2_ratios)}; the control fine-tunes the dense ViT the same "
                                     f"{cfg.ft_epochs} epochs with the same learning rate and batches."))
