"""Evaluating a policy of the [P25] reproduction in both modes: one row per rollout, and their summaries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.papers.accordion._decode import KVSampler
from icml26.papers.accordion._rollout import rollout
from icml26.papers.accordion._task import AccumulatorTask, Problem
from icml26.papers.accordion._trace import MODES, kv_usage

__all__ = ["evaluate_policy", "mode_summary"]


def evaluate_policy(model: TinyGPT, task: AccumulatorTask, problems: Sequence[Problem], *, samples: int, seed: int,
                    modes: Sequence[str] = MODES, temperature: float = 1.0) -> list[dict[str, Any]]:
    """``samples`` rollouts of every problem in each mode (sampled at ``temperature``, [P25]'s evaluation by sampling),
    one row each: mode, problem index, steps, whether it finished and was correct, its complete and total
    intermediate summaries, its KV usage (peak, generated, attended tokens)."""
    n = validation.positive_int(samples, "samples")
    gen = torch.Generator().manual_seed(validation.seed(seed))
    sampler = KVSampler(model, temperature=temperature)
    rows = []
    for mode in modes:
        prompts = [task.prompt(p) for p in problems for _ in range(n)]
        trajs = rollout(sampler, prompts, mode=mode, markers=task.markers, max_steps=task.max_steps,
                        max_step_tokens=task.step_tokens + 3, max_summary_tokens=3, generator=gen)
        for k, t in enumerate(trajs):
            p = problems[k // n]
            done, total = task.completeness(t, p)
            kv = kv_usage(t)
            rows.append({"mode": mode, "problem": k // n, "steps": p.steps, "finished": t.finished,
                         "correct": task.correct(t, p), "complete": done, "summaries": total, "peak_kv": kv.peak,
                         "generated": kv.generated, "attended": kv.attended})
    return rows


def mode_summary(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per mode, over :func:`evaluate_policy`'s rows ([P25] Fold vs Unfold): accuracy (points), share finished,
    summary completeness, mean peak KV and generated tokens."""
    out = {}
    for mode in sorted({r["mode"] for r in rows}):
        rs = [r for r in rows if r["mode"] == mode]
        out[mode] = {"accuracy": 100.0 * float(np.mean([r["correct"] for r in rs])),
                     "finished": float(np.mean([r["finished"] for r in rs])),
                     "completeness": sum(r["complete"] for r in rs) / max(1, sum(r["summaries"] for r in rs)),
                     "peak_kv": float(np.mean([r["peak_kv"] for r in rs])),
                     "generated": float(np.mean([r["generated"] for r in rs]))}
    return out
