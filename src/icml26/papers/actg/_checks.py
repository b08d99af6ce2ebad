"""What the [P28] claims measure: one shared pipeline run per seed (``_pipeline.py``) for the three fidelity and
control claims, and the accountant's ε against independent computations; figures drawn here."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.actg._corpus import ATTRIBUTES
from icml26.papers.actg._pipeline import SYSTEMS, PipelineConfig, pipeline_row
from icml26.papers.actg._privacy import (
    calibrate_dpsgd_sigma,
    calibrate_stage1,
    compose_epsilon,
    gaussian_epsilon_exact,
    opacus_dpsgd_epsilon,
)
from icml26.papers.actg._rules import judge_accounting, judge_actg_vs_direct, judge_arl, judge_rl_only
from icml26.papers.actg._tabular import mst_parameters

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.actg.claims import AccountingConfig

__all__ = ["accounting_row", "check_actg_beats_dpsft", "check_arl_control", "check_privacy_accounting",
           "check_rl_reward_hacking", "pipeline_rows"]

LABELS = {"actg": "ACTG", "direct": "DP-SFT direct", "arl": "ACTG-ARL", "rl_only": "RL, no anchor",
          "bon_sft": "BoN SFT, no RL"}


def pipeline_rows(cfg: PipelineConfig, seeds: tuple[int, ...]) -> list[dict[str, Any]]:
    """The [P28] pipeline once per seed (shared by the claims of group ``pipeline``)."""
    return [pipeline_row(cfg, s) for s in seeds]


def _mean(rows: list[dict[str, Any]], key: str) -> float:
    return float(np.mean([float(r[key]) for r in rows]))


def _figure(rows: list[dict[str, Any]]) -> FigureData:
    fig, ax = new_figure(width=7.0, height=3.6)
    x = np.arange(len(SYSTEMS))
    for k, (metric, label) in enumerate((("mauve", "MAUVE vs held-out real texts"),
                                         ("control", "control (fields recovered / requested)"))):
        vals = [[float(r[f"{metric}_{s}"]) for r in rows if f"{metric}_{s}" in r] for s in SYSTEMS]
        pos = x + (k - 0.5) * 0.4
        ax.bar(pos, [float(np.mean(v)) if v else 0.0 for v in vals], 0.38, label=label)
        for i, v in enumerate(vals):
            ax.scatter(np.full(len(v), pos[i]), v, color="k", s=8, zorder=3)
    ax.axhline(_mean(rows, "real_control"), color="k", linestyle=":", label="control of real texts")
    ax.set_xticks(x, [LABELS[s] for s in SYSTEMS])
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    return render(fig, name="mauve_and_control", caption="MAUVE and control accuracy of each system at the same "
                  "(ε, δ); bars: mean over seeds, dots: seeds (direct DP-SFT is unconditional: no control)")


def _summary(rows: list[dict[str, Any]]) -> str:
    return "; ".join(f"{LABELS[s]}: MAUVE {_mean(rows, f'mauve_{s}'):.3f}, TV {_mean(rows, f'tv_{s}'):.3f}"
                     + ("" if s == "direct" else f", control {_mean(rows, f'control_{s}'):.3f}") for s in SYSTEMS)


def _findings(rows: list[dict[str, Any]]) -> dict[str, str]:
    return {
        "mean words per text (ours)": ", ".join(f"{LABELS[s]} {_mean(rows, f'length_{s}'):.1f}" for s in SYSTEMS),
        "distinct-2 (ours)": ", ".join(f"{LABELS[s]} {_mean(rows, f'distinct2_{s}'):.3f}" for s in SYSTEMS),
        "references (ours)": (f"real-vs-real MAUVE {_mean(rows, 'mauve_real_vs_real'):.3f}; real texts' control "
                              f"{_mean(rows, 'real_control'):.3f}; best-of-N anchor reward {_mean(rows, 'bon_reward'):.3f}"),
        "privacy (ours)": (f"ε {_mean(rows, 'eps_actg'):.3f} (ACTG), {_mean(rows, 'eps_direct'):.3f} (direct); DP-SGD "
                           f"σ {_mean(rows, 'sigma_actg'):.3f} vs {_mean(rows, 'sigma_direct'):.3f}; MST zCDP ρ "
                           f"{_mean(rows, 'stage1_rho'):.4f}; 2-way TV of MST rows vs held-out real rows "
                           f"{_mean(rows, 'stage1_tv2'):.3f}"),
        "best-of-N SFT only, the anchor without RL (ours, not judged)": "; ".join(
            f"{LABELS[s]}: control {_mean(rows, f'control_{s}'):.3f}, MAUVE {_mean(rows, f'mauve_{s}'):.3f}"
            for s in ("actg", "bon_sft", "arl", "rl_only")),
    }


def _result(judge: Any, cfg: PipelineConfig, ctx: Context) -> ClaimResult:
    rows = ctx.shared(pipeline_rows, cfg, tuple(ctx.seeds))
    j = judge(rows, bars=ctx.bars)
    return ClaimResult.judged(j, summary=_summary(rows), rows=rows, figures=[_figure(rows)], findings=_findings(rows))


def check_actg_beats_dpsft(cfg: PipelineConfig, ctx: Context) -> ClaimResult:
    """[P28] Abstract: ACTG gives higher MAUVE than direct DP fine-tuning at the same (ε, δ), and preserves the
    attribute statistics (lower marginal TV)."""
    return _result(judge_actg_vs_direct, cfg, ctx)


def check_arl_control(cfg: PipelineConfig, ctx: Context) -> ClaimResult:
    """[P28] Abstract: ARL improves the control of the conditional generator while keeping its fidelity."""
    return _result(judge_arl, cfg, ctx)


def check_rl_reward_hacking(cfg: PipelineConfig, ctx: Context) -> ClaimResult:
    """[P28] Abstract: RL without the best-of-N SFT anchor gains control but reward-hacks (fidelity drops)."""
    return _result(judge_rl_only, cfg, ctx)


def accounting_row(*, q: float, steps: int, epsilon: float, delta: float, sigma_ratio: float) -> dict[str, Any]:
    """One (q, T) setting of the [P28] pipeline: calibrate both stages to ``epsilon`` by RDP, then recompute ε by
    opacus' RDP with MST's closed-form curve α·ρ (the whole pipeline) and alone (the DP-SGD stage), by PLD (the
    events without MST's tree selection, which PLD bounds only as generic ε-DP steps; and with it, as a record), and
    the exact Gaussian curve (MST's two Gaussian rounds: one Gaussian of noise multiplier σ/√2)."""
    sd = calibrate_dpsgd_sigma(q=q, steps=steps, epsilon=epsilon, delta=delta)
    s2 = sigma_ratio * sd
    rho = calibrate_stage1(q=q, sigma=s2, steps=steps, epsilon=epsilon, delta=delta)
    kw = {"q": q, "sigma": s2, "steps": steps, "delta": delta}
    sigma_mst, eps_em = mst_parameters(rho=rho, n_attributes=len(ATTRIBUTES))
    return {"q": q, "steps": steps, "epsilon": epsilon, "delta": delta, "sigma": s2, "stage1_rho": rho,
            "mst_sigma": sigma_mst, "mst_em_epsilon": eps_em,
            "eps_rdp": compose_epsilon(stage1_rho=rho, **kw),
            "eps_rdp_no_select": compose_epsilon(stage1_rho=rho, **kw, selection=False),
            "eps_pld_no_select": compose_epsilon(stage1_rho=rho, **kw, accountant="pld", selection=False),
            "eps_pld_em_as_pure_dp": compose_epsilon(stage1_rho=rho, **kw, accountant="pld"),
            "eps_rdp_stage2": compose_epsilon(stage1_rho=None, **kw),
            "eps_opacus_stage2": opacus_dpsgd_epsilon(q=q, sigma=s2, steps=steps, delta=delta),
            "eps_opacus": opacus_dpsgd_epsilon(q=q, sigma=s2, steps=steps, delta=delta, stage1_rho=rho),
            "eps_pld_stage1": compose_epsilon(stage1_rho=rho, q=q, sigma=s2, steps=0, delta=delta, accountant="pld",
                                              selection=False),
            "eps_exact_stage1": gaussian_epsilon_exact(delta=delta, noise_multiplier=sigma_mst / math.sqrt(2.0))}


def check_privacy_accounting(cfg: AccountingConfig, ctx: Context) -> ClaimResult:
    """[P28] privacy analysis: the composed MST + DP-SGD mechanism is (ε, δ)-DP at the target ε, by RDP
    composition, checked against opacus' RDP with MST's closed-form curve (composed and DP-SGD alone), the PLD
    accountant and the exact Gaussian curve."""
    rows = [accounting_row(q=q, steps=t, epsilon=cfg.epsilon, delta=cfg.delta, sigma_ratio=cfg.sigma_ratio)
            for q, t in cfg.settings]
    j = judge_accounting(rows, bars=ctx.bars)
    summary = "; ".join(f"q={r['q']:g} T={r['steps']}: MST ρ {r['stage1_rho']:.4f}, RDP ε {r['eps_rdp']:.4f}, "
                        f"opacus ε {r['eps_opacus']:.4f}; without the tree selection RDP {r['eps_rdp_no_select']:.4f} "
                        f"/ PLD {r['eps_pld_no_select']:.4f}; stage-2 ε dp-accounting {r['eps_rdp_stage2']:.4f} / "
                        f"opacus {r['eps_opacus_stage2']:.4f}" for r in rows)
    findings = {"PLD with the tree selection as generic ε-DP steps (ours, not judged)": ", ".join(
        f"q={r['q']:g} T={r['steps']}: {r['eps_pld_em_as_pure_dp']:.3f}" for r in rows)
        + " (looser than the exponential mechanism's ε²/8-zCDP bound the RDP accountant uses)"}
    return ClaimResult.judged(j, summary=summary, rows=rows, findings=findings)
