"""What the [P17] claims measure: the ``arms`` group's runs (shared through ``ctx.shared``), judged by
:mod:`._rules`, with a figure of the resolve rates per data arm."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.figures import FigureData, new_figure, render
from icml26.papers.agent_native._agent import FORMATS
from icml26.papers.agent_native._pipeline import RunConfig, run_seeds
from icml26.papers.agent_native._rules import judge_general_code, judge_half_budget, judge_ordering
from icml26.verdicts import Judgement

FULL_REASON = ("the paper's scale (mid-training Qwen2.5-32B/72B-Base on 73.1B tokens of GitHub PR trajectories and "
               "Docker rollouts, then agentic evaluation on SWE-Bench Verified) needs a GPU cluster and the paper's "
               "data; this package trains a 0.1M-parameter TinyGPT on a generated repository world")


def _rows(cfg: RunConfig, ctx: Context) -> list[dict[str, Any]]:
    return ctx.shared(run_seeds, cfg, tuple(ctx.seeds), ctx.mapper)


def _unsupported() -> ClaimResult:
    return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")


def _arm_table(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    out = {}
    for arm in dict.fromkeys(r["arm"] for r in rows):
        v = [float(r[key]) for r in rows if r["arm"] == arm]
        e = bootstrap_ci(v, seed=0)
        out[arm] = {"mean": e.value, "ci": [e.lo, e.hi], "per_seed": v}
    return out


def _figure(rows: Sequence[Mapping[str, Any]]) -> FigureData:
    fig, ax = new_figure(width=7.0, height=4.0)
    arms = list(dict.fromkeys(r["arm"] for r in rows))
    xs = np.arange(len(arms))
    for j, (key, label) in enumerate((("resolve_bugs", "held-out bugs"), ("resolve_templates", "held-out templates"))):
        tab = _arm_table(rows, key)
        m = np.array([tab[a]["mean"] for a in arms])
        err = np.abs(np.array([tab[a]["ci"] for a in arms]).T - m)
        ax.bar(xs + 0.38 * (j - 0.5), m, width=0.36, yerr=err, capsize=3, label=label)
    ax.set_xticks(xs, arms)
    ax.set(ylabel="resolve rate (mean over seeds, 95% CI)", title="agent resolve rate per mid-training data arm")
    ax.legend()
    return render(fig, name="resolve_per_arm", caption="Resolve rate per data arm (B tokens; ctx_env_half: B/2), "
                  "held-out bugs of training templates and bugs in held-out templates.")


def _result(j: Judgement, rows: list[dict[str, Any]], key: str, arms: Sequence[str]) -> ClaimResult:
    tab = _arm_table(rows, key)
    summary = "; ".join(f"{a} {tab[a]['mean']:.3f} [{tab[a]['ci'][0]:.3f}, {tab[a]['ci'][1]:.3f}]"
                        for a in arms if a in tab)
    per_arm = {a: {k: _arm_table(rows, k)[a] for k in ("resolve", "resolve_bugs", "resolve_templates", "completion")}
               for a in tab}
    findings = {"resolve on held-out templates (ours)": "; ".join(
        f"{a} {per_arm[a]['resolve_templates']['mean']:.3f}" for a in per_arm),
        "completion accuracy on held-out templates (ours)": "; ".join(
        f"{a} {per_arm[a]['completion']['mean']:.3f}" for a in per_arm),
        "completion per prompt format, plain / numbered / viewer (ours)": "; ".join(
        f"{a} " + " / ".join(f"{_arm_table(rows, 'completion_' + fmt)[a]['mean']:.3f}" for fmt in FORMATS)
        for a in per_arm)}
    return ClaimResult.judged(j, summary=f"{key}: {summary}", rows=rows, measured={"per_arm": per_arm},
                              figures=[_figure(rows)], findings=findings,
                              notes="Toy world, data arms and model are ours (basis reconstruction); one base model "
                              "pretrained per run, seeds vary the mid-training, SFT and evaluation tasks.")


def check_half_budget(cfg: RunConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P17]: agent-native MT at under half the tokens is not worse than static MT at full tokens."""
    if cfg.paper_scale:
        return _unsupported()
    rows = _rows(cfg, ctx)
    return _result(judge_half_budget(rows, bars=ctx.bars), rows, "resolve", ("ctx_env_half", "static"))


def check_ordering(cfg: RunConfig, ctx: Context) -> ClaimResult:
    """[P17] ablations: resolve(ctx + env) > resolve(ctx) > resolve(static) at equal mid-training tokens."""
    if cfg.paper_scale:
        return _unsupported()
    rows = _rows(cfg, ctx)
    return _result(judge_ordering(rows, bars=ctx.bars), rows, "resolve", ("ctx_env", "ctx", "env", "static"))


def check_general_code(cfg: RunConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P17]: agent-native MT also improves general code generation (held-out-template completion)."""
    if cfg.paper_scale:
        return _unsupported()
    rows = _rows(cfg, ctx)
    return _result(judge_general_code(rows, bars=ctx.bars), rows, "completion", ("ctx_env", "none"))
