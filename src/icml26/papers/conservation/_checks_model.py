"""What the model-level [P04] claims measure: group invariance, orthogonality to the gradient, SGD drift scaling.

The verdicts come from :mod:`icml26.papers.conservation._rules`; the rows of the notes' RMSNorm-scale extension are
judged with the same rules but reported as findings, apart from the paper's laws.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context
from icml26.common.nn import TinyGPT
from icml26.common.stats import loglog_slope
from icml26.figures import FigureData, new_figure, render
from icml26.papers.conservation._checks_common import (
    SEQ_LEN,
    VARIANTS,
    VOCAB,
    bar_value,
    build_variant,
    finding,
    is_extension,
    kind_of,
    quantities,
    split_rows,
)
from icml26.papers.conservation._flow import flow_rates, markov_batches, sgd_drift
from icml26.papers.conservation._groups import scale_hidden_units_, transform_qk_
from icml26.papers.conservation._laws import experts_of
from icml26.papers.conservation._model import _blocks, random_symmetry_
from icml26.papers.conservation._rules import judge_drift, judge_invariance, judge_orthogonal

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.conservation.claims import DriftConfig, InvarianceConfig, OrthoConfig


def _rel_change(a: TinyGPT, b: TinyGPT, x: torch.Tensor) -> float:
    with torch.no_grad():
        la, lb = a(x), b(x)
    return float((la - lb).abs().max() / la.abs().max())


def _moved(a: TinyGPT, b: TinyGPT) -> float:
    return max(float((p - q).detach().abs().max()) for p, q in zip(a.parameters(), b.parameters()))


def _control_rows(cfg: InvarianceConfig, seed: int, x: torch.Tensor) -> list[dict[str, Any]]:
    """Two maps that are *not* symmetries: a generic GL(d_h) Q/K map under RoPE, a unit rescaling of a GELU MLP."""
    g = torch.Generator().manual_seed(seed)
    kw = {"d_model": cfg.d_model, "n_layer": cfg.n_layer, "seed": seed, "init_std": cfg.init_std}
    rope = build_variant("rope_swiglu", **kw)
    rope2 = copy.deepcopy(rope)
    dh = cfg.d_model // 2
    E = torch.eye(dh, dtype=torch.float64) + cfg.spread * torch.randn(2, dh, dh, generator=g,
                                                                      dtype=torch.float64) / dh**0.5
    transform_qk_(next(_blocks(rope2))[1].attn, E)
    gelu = build_variant("nope_sigmoid_gelu", **kw)
    gelu2 = copy.deepcopy(gelu)
    e = experts_of(next(_blocks(gelu2))[1].mlp)[0]
    scale_hidden_units_(e, torch.exp(cfg.spread * torch.randn(e.w_in.weight.shape[0], generator=g,
                                                              dtype=torch.float64)))
    return [{"seed": seed, "model": label, "kind": "control", "extension": False, "rel_change": _rel_change(p, q, x),
             "param_change": float("nan")} for label, p, q in (("rope_generic_E", rope, rope2),
                                                              ("gelu_unit_scaling", gelu, gelu2))]


def invariance_rows(cfg: InvarianceConfig, seed: int) -> list[dict[str, Any]]:
    """One seed of ``group_invariance``: every variant under a random group element (the paper's groups; then with
    the RMSNorm scaling as well, flagged ``extension``), and the two non-symmetry controls."""
    x = markov_batches(vocab_size=VOCAB, seq_len=SEQ_LEN, batch_size=4, n_batches=1, seed=seed)[0][0]
    rows = []
    for name in VARIANTS:
        for bias in cfg.biases:
            m = build_variant(name, d_model=cfg.d_model, n_layer=cfg.n_layer, seed=seed, init_std=cfg.init_std,
                              bias=bias)
            for ext in (False, True):
                twin = copy.deepcopy(m)
                random_symmetry_(twin, seed=seed + 1, spread=cfg.spread, norms=ext)
                rows.append({"seed": seed, "model": f"{name}{'+bias' if bias else ''}", "kind": "law",
                             "extension": ext, "rel_change": _rel_change(m, twin, x), "param_change": _moved(m, twin)})
    return rows + _control_rows(cfg, seed, x)


def _log10(v: float) -> float:
    return math.log10(max(v, 1e-18))


def check_group_invariance(cfg: InvarianceConfig, ctx: Context) -> ClaimResult:
    """Thms 4.2-4.6 of [P04]: a random element of the full symmetry group leaves the logits unchanged."""
    rows = [r for rs in ctx.map(partial(invariance_rows, cfg), ctx.seeds) for r in rs]
    paper, ext = split_rows(rows)
    j = judge_invariance(paper, bars=ctx.bars)
    fig, ax = new_figure(width=7, height=3.5)
    names = sorted({r["model"] for r in paper})
    ax.barh(names, [_log10(max(r["rel_change"] for r in paper if r["model"] == n)) for n in names],
            color=["C3" if n.startswith(("rope_generic", "gelu_unit")) else "C0" for n in names])
    ax.axvline(math.log10(bar_value(ctx, "invariance")), color="k", ls="--", label="bar")
    ax.set_xlabel("log10 max |Δlogits| / max |logits|")
    ax.legend()
    worst = max(r["rel_change"] for r in paper if r["kind"] == "law")
    least = min(r["rel_change"] for r in paper if r["kind"] == "control")
    return ClaimResult.judged(
        j, summary=f"max rel Δlogits = {worst:.2e} (controls >= {least:.2e})", rows=rows,
        measured={"max_rel_change": worst, "min_control_change": least},
        findings=finding(judge_invariance([*ext, *(r for r in paper if r["kind"] == "control")], bars=ctx.bars)),
        figures=[render(fig, name="group_invariance", caption="Relative logit change after a random group element "
                        "(blue: symmetries of the paper; red: non-symmetries)")])


def ortho_rows(cfg: OrthoConfig, seed: int) -> list[dict[str, Any]]:
    """One seed of ``laws_orthogonal``: the normalised rate of every quantity of every variant at random θ."""
    x, y = markov_batches(vocab_size=VOCAB, seq_len=SEQ_LEN, batch_size=8, n_batches=1, seed=seed)[0]
    rows = []
    for name in VARIANTS:
        m = build_variant(name, d_model=cfg.d_model, n_layer=cfg.n_layer, seed=seed, init_std=cfg.init_std)
        for k, rate in flow_rates(m, x, y, quantities, n_probes=cfg.n_probes, seed=seed).items():
            rows.append({"seed": seed, "model": name, "quantity": k, "kind": k.split(":")[0],
                         "extension": is_extension(k), "rate": rate})
    return rows


def check_laws_orthogonal(cfg: OrthoConfig, ctx: Context) -> ClaimResult:
    """Sec. 3 of [P04]: ``⟨∇h, ∇L⟩ = 0`` for each law at random parameters and batches; controls move."""
    rows = [r for rs in ctx.map(partial(ortho_rows, cfg), ctx.seeds) for r in rs]
    paper, ext = split_rows(rows)
    j = judge_orthogonal(paper, bars=ctx.bars)
    fig, ax = new_figure(width=7, height=4)
    kinds = sorted({kind_of(r["quantity"]) for r in rows})
    for i, kd in enumerate(kinds):
        v = [_log10(r["rate"]) for r in rows if kind_of(r["quantity"]) == kd]
        ax.scatter(v, [i] * len(v), color="C0" if kd.startswith("law") else "C3")
    ax.set_yticks(range(len(kinds)), kinds, fontsize=7)
    for name, ls in (("law_rate", "--"), ("control_rate", ":")):
        ax.axvline(math.log10(bar_value(ctx, name)), color="k", ls=ls)
    ax.set_xlabel("log10 ‖Dh[∇L]‖ / rms ‖Dh[s ⊙ ∇L]‖")
    law_max = max(r["rate"] for r in paper if r["kind"] == "law")
    ctrl_min = min(r["rate"] for r in paper if r["kind"] == "control")
    return ClaimResult.judged(
        j, summary=f"law rate <= {law_max:.1e}; control rate >= {ctrl_min:.1e}", rows=rows,
        measured={"max_law_rate": law_max, "min_control_rate": ctrl_min},
        findings=finding(judge_orthogonal(ext, bars=ctx.bars)),
        figures=[render(fig, name="flow_rates", caption="Normalised rate of each quantity along −∇L (blue: laws, red: "
                        "controls)")])


def drift_rows(cfg: DriftConfig, task: tuple[int, str]) -> list[dict[str, Any]]:
    """One (seed, variant) of ``sgd_drift_scaling``: per quantity, the drift after k steps at each τ, its τ-slope and
    its k-slope (at k/4, k/2, k and the largest τ)."""
    seed, name = task
    record = tuple(sorted({cfg.steps // 4, cfg.steps // 2, cfg.steps}))
    batches = markov_batches(vocab_size=VOCAB, seq_len=SEQ_LEN, batch_size=cfg.batch_size, n_batches=cfg.n_batches,
                             seed=seed)
    m0 = build_variant(name, d_model=cfg.d_model, n_layer=cfg.n_layer, seed=seed, init_std=cfg.init_std)
    drift = {tau: sgd_drift(copy.deepcopy(m0), batches, quantities, lr=tau, steps=cfg.steps, record_at=record)
             for tau in cfg.taus}
    rows = []
    for key in drift[cfg.taus[0]]:
        ys = [drift[t][key][-1] for t in cfg.taus]
        linear = key.endswith("mlp.router")  # linear in θ: SGD conserves it exactly
        row: dict[str, Any] = {"seed": seed, "model": name, "quantity": key, "kind": kind_of(key), "linear": linear,
                               "extension": is_extension(key), "drift": ys}
        if not linear:
            row["tau_slope"] = loglog_slope(cfg.taus, ys).value
            row["k_slope"] = loglog_slope(record, drift[cfg.taus[-1]][key]).value
        rows.append(row)
    return rows


def _drift_figure(rows: Sequence[Mapping[str, Any]], cfg: DriftConfig) -> FigureData:
    fig, ax = new_figure(width=7, height=4.5)
    first = rows[0]["seed"]
    curves = {}
    for r in rows:
        if r["seed"] == first and r["kind"] not in curves and min(r["drift"]) > 0:
            curves[r["kind"]] = r["drift"]
    for i, (kd, ys) in enumerate(sorted(curves.items())):
        ax.loglog(cfg.taus, ys, "o-" if kd.startswith("law") else "s--", color=f"C{i % 10}", label=kd, ms=3)
    ax.set_xlabel("step size τ")
    ax.set_ylabel(f"relative drift after k = {cfg.steps} steps")
    ax.legend(fontsize=6, ncol=2)
    return render(fig, name="drift_vs_tau", caption="Relative drift vs step size (solid: laws, slope 2 expected; "
                  "dashed: controls, slope 1 expected), first seed")


def _slope_summary(rows: Sequence[Mapping[str, Any]], key: str, head: str) -> str:
    means = [float(np.mean([r[key] for r in rows if r["kind"] == k])) for k in sorted({r["kind"] for r in rows})
             if k.startswith(head)]
    return f"{min(means):.2f}..{max(means):.2f}" if means else "none"


def check_sgd_drift_scaling(cfg: DriftConfig, ctx: Context) -> ClaimResult:
    """Fig. 2 of [P04]: relative drift after k SGD steps ∝ τ² k for laws, ∝ τ for look-alike controls."""
    if cfg.steps < 4 or len(cfg.taus) < 3:
        raise ValueError(f"sgd_drift_scaling needs steps >= 4 (three record points for the k-slope) and >= 3 step "
                         f"sizes, got steps={cfg.steps}, taus={cfg.taus}")
    rows = [r for rs in ctx.map(partial(drift_rows, cfg), [(s, n) for s in ctx.seeds for n in VARIANTS]) for r in rs]
    paper, ext = split_rows(rows)
    j = judge_drift(paper, bars=ctx.bars)
    sloped = [r for r in paper if not r["linear"]]
    summary = (f"law τ-slopes {_slope_summary(sloped, 'tau_slope', 'law')}, controls "
               f"{_slope_summary(sloped, 'tau_slope', 'control')}; law k-slopes {_slope_summary(sloped, 'k_slope', 'law')}"
               " (means per kind)")
    return ClaimResult.judged(
        j, summary=summary, rows=rows, findings=finding(judge_drift(ext, bars=ctx.bars)),
        figures=[_drift_figure(paper, cfg)],
        notes="k-slope: log-log slope of the drift at the largest τ against k at k/4, k/2, k; O(τ²k) predicts 1.")
