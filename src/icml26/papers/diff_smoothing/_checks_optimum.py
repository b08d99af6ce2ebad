"""What ``ds_improves_both`` measures: DS against vanilla at the closed-form KL-regularised optimum, over a grid.

The optimum of E_π[r̃] − β·KL(π ‖ π_base) is π* ∝ π_base·exp(r̃/β) (:func:`kl_optimum`); with the DS reward of Eq. (4)
of [P32] that is π_base^(1−γ/β) on the correct and π_base^(1+γ/β) on the incorrect answers (up to e^(1/β) on C), so
the comparison depends on the base policy, β and γ/β only. A cell is one base policy and one β; the grid draws base
policies from Dirichlet laws over several sizes of the answer set, correct-set fractions and concentrations, and
sweeps γ/β inside and beyond the regime the claim is judged in (``regime`` in paper.toml). The finite-step GRPO runs
on the exact toy (shared with ``entropy_heuristics``) are reported beside the claim as a finding of ours.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.diff_smoothing._checks_toy import curve_figure, finite_steps, run_toy
from icml26.papers.diff_smoothing._passk import categorical_pass_at_k, correct_set_entropy, variant_pass_at_k
from icml26.papers.diff_smoothing._rules import judge_theorem
from icml26.papers.diff_smoothing._toy import kl_optimum

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.diff_smoothing.claims import OptimumConfig

__all__ = ["check_ds_improves_both", "dirichlet_base_policies", "optimum_grid"]

#: floor on a drawn base probability (a Dirichlet draw with a small concentration can underflow to 0, and log π_base
#: must stay finite); renormalised afterwards
FLOOR = 1e-12


def dirichlet_base_policies(n_answers: int, n_correct: int, alpha: float, draws: int,
                            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` base policies π_base ~ Dirichlet(α·1) over ``n_answers`` answers (floored at :data:`FLOOR`), with the
    first ``n_correct`` answers correct (the law is exchangeable, so which answers are correct does not matter)."""
    base = np.maximum(rng.dirichlet(np.full(n_answers, alpha), size=draws), FLOOR)
    base /= base.sum(axis=1, keepdims=True)
    correct = np.zeros((draws, n_answers), dtype=bool)
    correct[:, :n_correct] = True
    return base, correct


def _metrics(p: np.ndarray, c: np.ndarray, cfg: OptimumConfig) -> dict[str, np.ndarray]:
    return {"pass@1": np.asarray(categorical_pass_at_k(p, c, 1)),
            f"variant_pass@{cfg.k}": np.asarray(variant_pass_at_k(p, c, cfg.k, keep_prob=cfg.keep_prob)),
            "entropy_correct": np.asarray(correct_set_entropy(p, c))}


def optimum_grid(cfg: OptimumConfig, seed: int) -> dict[float, dict[str, np.ndarray]]:
    """One seed's grid: for every γ/β of ``cfg.gamma_over_beta``, DS − vanilla per cell (base policy × β) for each
    metric, at the KL-regularised optimum (γ_p = γ_n = γ)."""
    rng = np.random.default_rng((seed, 32))
    out: dict[float, dict[str, list[np.ndarray]]] = {g: {} for g in cfg.gamma_over_beta}
    for n_answers in cfg.n_answers:
        for frac in cfg.correct_fractions:
            n_correct = max(2, round(frac * n_answers))
            for alpha in cfg.concentrations:
                base, correct = dirichlet_base_policies(n_answers, n_correct, alpha, cfg.draws, rng)
                for beta in cfg.betas:
                    van = _metrics(kl_optimum(base, correct, beta=beta, gamma_p=0.0, gamma_n=0.0), correct, cfg)
                    for g in cfg.gamma_over_beta:
                        ds = _metrics(kl_optimum(base, correct, beta=beta, gamma_p=g * beta, gamma_n=g * beta),
                                      correct, cfg)
                        for m, v in ds.items():
                            out[g].setdefault(m, []).append(v - van[m])
    return {g: {m: np.concatenate(v) for m, v in d.items()} for g, d in out.items()}


def _beyond(rows: list[dict[str, Any]], bars: Any) -> str:
    """The cells beyond the regime, per γ/β: DS gains on all metrics in what share, and which metric it loses."""
    parts = []
    for r in rows:
        if bars["regime"].satisfied(r["gamma_over_beta"]):
            continue
        lost = ", ".join(f"{m} {k / r['n']:.0%} (worst {r['min_diff'][m]:+.3g})"
                         for m, k in r["losses_by_metric"].items() if k)
        parts.append(f"γ/β = {r['gamma_over_beta']:g}: DS gains on all in {r['improved'] / r['n']:.0%} of "
                     f"{r['n']} cells" + (f"; loses {lost}" if lost else "; loses on none"))
    return "; ".join(parts) or "no cell beyond the regime at this budget"


def _share_figure(rows: list[dict[str, Any]], regime: float) -> FigureData:
    fig, ax = new_figure()
    g = [r["gamma_over_beta"] for r in rows]
    ax.plot(g, [r["improved"] / r["n"] for r in rows], "k-o", ms=3, label="gains on all three")
    for i, m in enumerate(rows[0]["losses_by_metric"]):
        ax.plot(g, [r["losses_by_metric"][m] / r["n"] for r in rows], "--s", ms=3, color=f"C{i}", label=f"loses {m}")
    ax.axvline(regime, color="r", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set(xlabel="γ/β", ylabel="share of cells", title="DS vs vanilla at the KL-regularised optimum")
    ax.legend(fontsize=7)
    return render(fig, name="optimum_grid", caption="Share of (base policy, β) cells where DS gains on all metrics "
                  "or loses on one, per γ/β; the dotted line is the edge of the regime judged.")


def check_ds_improves_both(cfg: OptimumConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P32]: DS provably improves both correctness and diversity over vanilla RL. Judged in the theory's
    setting, the optimum of the KL-regularised objective, on every cell of a grid of random base policies, β and γ/β;
    the cells beyond the regime and the finite-step GRPO runs are reported as findings."""
    per_seed = ctx.map(functools.partial(optimum_grid, cfg), ctx.seeds)
    grid = [{"gamma_over_beta": g, **{m: np.concatenate([s[g][m] for s in per_seed]).tolist()
                                      for m in per_seed[0][g]}} for g in cfg.gamma_over_beta]
    j = judge_theorem(grid, bars=ctx.bars)
    rows = j.measured["by_gamma_over_beta"]
    res = ctx.shared(run_toy, cfg.toy, ctx.seeds)
    steps, finite = finite_steps(res, cfg.toy)
    regime = ctx.bar("regime")
    worst = j.measured.get("worst_diff_in_regime", {})
    n_in = j.measured.get("cells_in_regime", 0)
    summary = (f"{n_in} cells with γ/β {regime.threshold}: DS loses on some metric in "
               f"{sum(r['losses'] for r in rows if regime.satisfied(r['gamma_over_beta']))}, gains on all in "
               f"{sum(r['improved'] for r in rows if regime.satisfied(r['gamma_over_beta']))}; smallest DS − vanilla "
               + ", ".join(f"{m} {v:+.3g}" for m, v in worst.items()))
    return ClaimResult.judged(
        j, summary=summary, measured={"finite_steps": steps},
        findings={f"beyond the regime, γ/β not {regime.threshold} (ours)": _beyond(rows, ctx.bars),
                  f"finite steps on the exact toy (ours, {cfg.toy.steps} steps)": finite},
        figures=[_share_figure(rows, float(regime.value)),  # type: ignore[arg-type]
                 curve_figure(res["curves"][cfg.toy.modes[0]], cfg.toy, "toy_paths",
                              "Entropy of π(·|C) vs pass@1 along GRPO training on the exact toy (first seed).")],
        notes=f"Base policies π_base ~ Dirichlet(α) over N ∈ {list(cfg.n_answers)} answers, |C| = max(2, round(fN)) "
              f"for f ∈ {list(cfg.correct_fractions)}, α ∈ {list(cfg.concentrations)}, {cfg.draws} draws each per "
              f"seed; β ∈ {list(cfg.betas)}; γ_p = γ_n = γ. The closed form of the optimum is ours (from Eq. 4). "
              f"Pass@k on the train correct set is 1−(1−pass@1)^k, so the diversity-sensitive pass@k is the variant "
              f"pass@k (each correct answer stays correct w.p. q={cfg.keep_prob}).")
