"""The timed [P34] claim: wall-clock per generated token of continuous rerouting, against full-parameter TTT with the
same schedule and against plain greedy decoding, paired per prompt in one process (order rotated per repetition)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.moe_tta._baselines import generate_with_full_ttt
from icml26.papers.moe_tta._checks import episode_seed
from icml26.papers.moe_tta._generate import generate_with_rerouting, greedy
from icml26.papers.moe_tta._model import split_of, trained_olmoe
from icml26.papers.moe_tta._rules import judge_overhead
from icml26.papers.moe_tta._tasks import make_sequences

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.moe_tta.claims import OverheadConfig

METHODS = ("plain", "reroute", "full")


def _one(model: torch.nn.Module, prompt: torch.Tensor, method: str, cfg: OverheadConfig) -> tuple[float, int]:
    t0 = time.perf_counter()
    if method == "plain":
        out = greedy(model, prompt, cfg.new_tokens)
    elif method == "reroute":
        out = generate_with_rerouting(model, prompt, max_new_tokens=cfg.new_tokens, refit_every=cfg.refit_every,
                                      steps=cfg.steps, lr=cfg.lr, l2=cfg.l2, k=cfg.k).ids
    else:
        out = generate_with_full_ttt(model, prompt, max_new_tokens=cfg.new_tokens, refit_every=cfg.refit_every,
                                     steps=cfg.steps, lr=cfg.full_lr)
    return time.perf_counter() - t0, int(out.shape[1] - prompt.shape[1])


def check_overhead(cfg: OverheadConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P34] ("maintaining computational efficiency"): seconds per generated token."""
    model = trained_olmoe(cfg.model)
    tasks = split_of(cfg.model).train
    tok, _ = make_sequences(tasks, n=cfg.reps, pairs=cfg.demos, table_seed=cfg.model.table_seed,
                            seed=episode_seed(ctx.seeds[0], 4))
    _one(model, torch.from_numpy(tok[:1]), "reroute", cfg)  # warm-up (first-call allocations), not timed
    rows: list[dict[str, Any]] = []
    for r in range(cfg.reps):
        prompt = torch.from_numpy(tok[r : r + 1])
        order = METHODS[r % 3:] + METHODS[: r % 3]
        secs: dict[str, float] = {}
        for m in order:
            s, made = _one(model, prompt, m, cfg)
            secs[f"{m}_s"] = s / max(1, made)
            secs[f"{m}_tokens"] = made
        rows.append({"rep": r, **secs})
    j = judge_overhead(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, m in enumerate(METHODS):
        v = np.array([row[f"{m}_s"] for row in rows]) * 1e3
        ax.bar(i, v.mean(), color=f"C{i}")
        ax.scatter(np.full(v.size, i), v, color="black", s=10, zorder=3)
    ax.set_xticks(range(3), ["greedy decoding", "rerouting (δ only)", "full TTT (all weights)"])
    ax.set(ylabel="ms per generated token", title=f"{cfg.new_tokens} tokens, re-fit every {cfg.refit_every}, "
           f"{cfg.steps} steps")
    mean = {m: float(np.mean([row[f"{m}_s"] for row in rows])) for m in METHODS}
    return ClaimResult.judged(
        j, summary=(f"ms/token: greedy {mean['plain'] * 1e3:.2f}, rerouting {mean['reroute'] * 1e3:.2f}, full TTT "
                    f"{mean['full'] * 1e3:.2f} ({cfg.reps} prompts)"), rows=rows,
        figures=[render(fig, name="seconds_per_token", caption="Wall-clock per generated token of greedy decoding, "
                        "continuous rerouting and full-parameter TTT with the same schedule (dots: prompts).")],
        notes="Rerouting backpropagates through the whole network to reach δ but computes no weight gradients and "
              "updates E·|𝓛| numbers; full TTT also computes and applies every weight's gradient.")
