"""Fold and Unfold rollouts of [P25] over any step sampler.

A sampler is ``sampler(contexts, *, max_new_tokens, stop_tokens, generator) -> outputs``: for each context (a token
sequence) the tokens it generated, up to and including the first stop token (:class:`._decode.KVSampler` is one
for a TinyGPT; a wrapper around a transformers model's ``generate`` is another). The rollouts only build contexts,
call the sampler and parse what comes back.

- :func:`fold_rollout` (the authors' ``sequential_step_rollout``): one step at a time with stop token ``</step>``;
  the next context is the Fold context of the finished steps; a final or malformed step ends the branch.
- :func:`unfold_rollout`: one generation per prompt in the full context (stop token ``<eos>``), cut into steps with
  the same caps and leaves (:func:`._format.split_steps`), so both modes are graded and trained alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.papers.accordion._format import (
    MALFORMED,
    STEP,
    Markers,
    Step,
    fold_context,
    parse_step,
    split_steps,
    tokens_of,
)
from icml26.papers.accordion._trace import MODES, StepRecord, Trajectory

__all__ = ["Sampler", "fold_rollout", "rollout", "unfold_rollout"]

Sampler = Callable[..., list[tuple[int, ...]]]


def _prompts(prompts: Sequence[Sequence[int]] | np.ndarray) -> list[tuple[int, ...]]:
    if isinstance(prompts, np.ndarray):
        if prompts.ndim != 2 or prompts.shape[0] == 0:
            raise ValueError(f"prompts must be a (batch, length) array of token ids, got shape {prompts.shape}")
        prompts = list(prompts)
    if isinstance(prompts, (str, bytes)) or not isinstance(prompts, Sequence) or not prompts:
        raise ValueError("prompts must be a non-empty sequence of token sequences")
    return [tokens_of(p, f"prompts[{i}]", allow_empty=False) for i, p in enumerate(prompts)]


def _limits(markers: Markers, max_steps: int, max_step_tokens: int, max_summary_tokens: int,
            generator: Any) -> tuple[int, int, int]:
    if not isinstance(markers, Markers):
        raise TypeError(f"markers must be a Markers, got {type(markers).__name__}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator (an explicit seed), got {type(generator).__name__}")
    return (validation.positive_int(max_steps, "max_steps"), validation.positive_int(max_step_tokens, "max_step_tokens"),
            validation.int_at_least(max_summary_tokens, "max_summary_tokens", 0))


def _call(sampler: Sampler, contexts: list[tuple[int, ...]], **kw: Any) -> list[tuple[int, ...]]:
    outs = sampler(contexts, **kw)
    if len(outs) != len(contexts):
        raise ValueError(f"sampler returned {len(outs)} outputs for {len(contexts)} contexts")
    return [tokens_of(o, "sampler output") for o in outs]


def fold_rollout(sampler: Sampler, prompts: Sequence[Sequence[int]] | np.ndarray, *, markers: Markers,
                 max_steps: int, max_step_tokens: int, max_summary_tokens: int,
                 generator: torch.Generator) -> list[Trajectory]:
    """Fold-mode rollouts of [P25] (Sec. 3; ``sequential_step_rollout`` of the authors' code).

    For each step, every live branch's context is the prompt plus the TLDR-folded summaries of its finished steps;
    the sampler generates up to ``max_step_tokens`` tokens, stopping at ``</step>`` (or ``<eos>``). A final or
    malformed step (no tags, summary over ``max_summary_tokens``) is the branch's leaf; after ``max_steps`` steps
    the last one is the leaf (unfinished: its reward is the format penalty). Returns one trajectory per prompt.
    """
    ps = _prompts(prompts)
    n_steps, cap, scap = _limits(markers, max_steps, max_step_tokens, max_summary_tokens, generator)
    records: list[list[StepRecord]] = [[] for _ in ps]
    live = list(range(len(ps)))
    for _ in range(n_steps):
        ctxs = [fold_context(ps[i], [r.step for r in records[i]], markers=markers) for i in live]
        outs = _call(sampler, ctxs, max_new_tokens=cap, stop_tokens=(markers.step_close, markers.eos),
                     generator=generator)
        nxt = []
        for i, ctx, out in zip(live, ctxs, outs):
            step = parse_step(out, markers=markers, max_summary_tokens=scap)
            records[i].append(StepRecord(ctx, step))
            if step.kind == STEP:
                nxt.append(i)
        live = nxt
        if not live:
            break
    return [Trajectory(p, "fold", tuple(r)) for p, r in zip(ps, records)]


def unfold_rollout(sampler: Sampler, prompts: Sequence[Sequence[int]] | np.ndarray, *, markers: Markers,
                   max_steps: int, max_step_tokens: int, max_summary_tokens: int,
                 generator: torch.Generator) -> list[Trajectory]:
    """Unfold-mode rollouts of [P25]: the full context is kept (one generation of up to ``max_steps ×
    max_step_tokens`` tokens, stopping at ``<eos>``), then cut into steps with the Fold rollout's caps and leaves.

    Step ``j``'s record has the context ``prompt ⊕ o_1 ⊕ … ⊕ o_{j-1}``: what it was generated from.
    """
    ps = _prompts(prompts)
    n_steps, cap, scap = _limits(markers, max_steps, max_step_tokens, max_summary_tokens, generator)
    outs = _call(sampler, ps, max_new_tokens=n_steps * cap, stop_tokens=(markers.eos,), generator=generator)
    trajs = []
    for p, out in zip(ps, outs):
        steps: tuple[Step, ...] = split_steps(out, markers=markers, max_steps=n_steps, max_step_tokens=cap,
                                              max_summary_tokens=scap) or (Step((), MALFORMED),)
        recs, ctx = [], list(p)
        for s in steps:
            recs.append(StepRecord(tuple(ctx), s))
            ctx.extend(s.tokens)
        trajs.append(Trajectory(p, "unfold", tuple(recs)))
    return trajs


def rollout(sampler: Sampler, prompts: Sequence[Sequence[int]] | np.ndarray, *, mode: str, markers: Markers,
            max_steps: int, max_step_tokens: int, max_summary_tokens: int,
                 generator: torch.Generator) -> list[Trajectory]:
    """:func:`fold_rollout` or :func:`unfold_rollout` of [P25] by ``mode`` (``"fold"`` or ``"unfold"``)."""
    fn = fold_rollout if validation.choice(mode, "mode", MODES) == "fold" else unfold_rollout
    return fn(sampler, prompts, markers=markers, max_steps=max_steps, max_step_tokens=max_step_tokens,
              max_summary_tokens=max_summary_tokens, generator=generator)
