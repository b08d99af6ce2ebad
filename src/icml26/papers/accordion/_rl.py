"""RL of [P25]: the PPO-clip update on step segments with broadcast leaf advantages, and mixed Fold/Unfold training.

:func:`accordion_update` is the update a user calls in their own loop (any causal LM whose forward returns logits,
or an object with ``.logits``): every step segment of a trajectory carries the trajectory's leaf advantage, the
per-token clipped surrogate of :func:`icml26.common.rl.ppo_clip_loss` is averaged over all trained tokens of the
batch (no KL, no entropy term, as in the authors' script), for ``epochs`` passes over the batch.
:func:`train_mixed` is our loop: each iteration draws prompts, rolls a group of ``group_size`` out per prompt, a
``fold_share`` of the prompts in the Fold mode and the rest in Unfold, grades the leaves and updates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.common.rl import ppo_clip_loss
from icml26.papers.accordion._decode import KVSampler
from icml26.papers.accordion._policy import Segment, segment_logprobs, segments_of
from icml26.papers.accordion._reward import leaf_advantages, leaf_rewards
from icml26.papers.accordion._rollout import rollout
from icml26.papers.accordion._task import AccumulatorTask, make_problems
from icml26.papers.accordion._trace import Trajectory, kv_usage

__all__ = ["RLHistory", "RLSpec", "accordion_update", "train_mixed"]


@dataclass(frozen=True)
class RLSpec:
    """Mixed Fold/Unfold RL of the [P25] reproduction (the paper: n = 8, KL 0, entropy 0, 2 PPO epochs)."""

    iterations: int = 60
    prompts: int = 8
    group_size: int = 8
    fold_share: float = 0.5
    lr: float = 3e-4
    clip: float = 0.2
    epochs: int = 2
    format_penalty: float = 0.0
    temperature: float = 1.0

    def __post_init__(self) -> None:
        for name in ("iterations", "prompts", "group_size", "epochs"):
            validation.positive_int(getattr(self, name), name)
        validation.real(self.fold_share, "fold_share", lo=0.0, hi=1.0)
        validation.real(self.lr, "lr", lo=0.0, lo_open=True)
        validation.real(self.clip, "clip", lo=0.0, lo_open=True)
        validation.real(self.format_penalty, "format_penalty")
        validation.real(self.temperature, "temperature", lo=0.0, lo_open=True)


def _segments(trajectories: Sequence[Trajectory], advantages: Any) -> tuple[list[Segment], np.ndarray]:
    a = validation.real_array(advantages, "advantages", ndim=1)
    if len(a) != len(trajectories):
        raise ValueError(f"advantages must give one value per trajectory: {len(a)} for {len(trajectories)}")
    segs: list[Segment] = []
    adv: list[float] = []
    for i, t in enumerate(trajectories):
        if not isinstance(t, Trajectory):
            raise TypeError(f"trajectories[{i}] must be a Trajectory, got {type(t).__name__}")
        s = segments_of(t)
        segs += s
        adv += [float(a[i])] * len(s)  # the leaf advantage, broadcast to every step segment
    return segs, np.asarray(adv)


def accordion_update(model: torch.nn.Module, optimizer: torch.optim.Optimizer, trajectories: Sequence[Trajectory],
                     advantages: Any, *, clip: float = 0.2, epochs: int = 2, pad: int = 0, max_tokens: int = 8192,
                     grad_clip: float = 1.0) -> dict[str, float]:
    """One [P25] policy update: PPO-clip over every step segment with its trajectory's leaf advantage.

    The sampling policy's log-probabilities are taken from ``model`` before the first pass (on-policy batches);
    each of the ``epochs`` passes is one optimizer step on the token mean of the whole batch. Returns the last
    pass's loss and clip fraction, and the number of trained tokens.
    """
    if isinstance(trajectories, (str, bytes)) or not isinstance(trajectories, Sequence) or not trajectories:
        raise ValueError("trajectories must be a non-empty sequence of Trajectory records")
    segs, adv = _segments(trajectories, advantages)
    n_ep = validation.positive_int(epochs, "epochs")
    eps = validation.real(clip, "clip", lo=0.0, lo_open=True)
    gc = validation.real(grad_clip, "grad_clip", lo=0.0, lo_open=True)
    if not segs or not np.any(adv != 0):
        return {"loss": 0.0, "clip_fraction": 0.0, "tokens": 0.0}
    with torch.no_grad():
        old = {tuple(i): lp for i, lp, _ in segment_logprobs(model, segs, pad=pad, max_tokens=max_tokens)}
    stats: dict[str, float] = {}
    for _ in range(n_ep):
        optimizer.zero_grad(set_to_none=True)
        parts = segment_logprobs(model, segs, pad=pad, max_tokens=max_tokens)
        total = sum(float(m.sum()) for _, _, m in parts)
        loss_sum, clipped = 0.0, 0.0
        for idx, lp, m in parts:
            a = torch.tensor(adv[idx], dtype=lp.dtype)
            out = ppo_clip_loss(lp, old[tuple(idx)], a, clip=eps, mask=m, aggregate="token_mean")
            w = float(m.sum()) / total  # token mean over the whole batch, not per bucket
            (out.loss * w).backward()
            loss_sum += float(out.loss.detach()) * w
            clipped += float(out.clip_fraction.detach()) * w
        torch.nn.utils.clip_grad_norm_(model.parameters(), gc)
        optimizer.step()
        stats = {"loss": loss_sum, "clip_fraction": clipped, "tokens": total}
    return stats


@dataclass
class RLHistory:
    """Curves of the [P25] mixed RL, per iteration of :func:`train_mixed`: mean leaf reward by mode, Fold summary
    completeness, mean peak KV by mode, PPO clip fraction."""

    reward: dict[str, list[float]] = field(default_factory=lambda: {"fold": [], "unfold": []})
    completeness: list[float] = field(default_factory=list)
    peak_kv: dict[str, list[float]] = field(default_factory=lambda: {"fold": [], "unfold": []})
    clip_fraction: list[float] = field(default_factory=list)


def _iteration(model: TinyGPT, task: AccumulatorTask, spec: RLSpec, sampler: KVSampler, opt: torch.optim.Optimizer,
               problems: list[Any], gen: torch.Generator, hist: RLHistory) -> None:
    n_fold = round(len(problems) * spec.fold_share)
    trajs: list[Trajectory] = []
    targets, groups = [], []
    for mode, ps, first in (("fold", problems[:n_fold], 0), ("unfold", problems[n_fold:], n_fold)):
        if not ps:
            continue
        prompts = [task.prompt(p) for p in ps for _ in range(spec.group_size)]
        got = rollout(sampler, prompts, mode=mode, markers=task.markers, max_steps=task.max_steps,
                      max_step_tokens=task.step_tokens + 3, max_summary_tokens=3, generator=gen)
        r = leaf_rewards(got, [task.target(p) for p in ps for _ in range(spec.group_size)],
                         format_penalty=spec.format_penalty)
        hist.reward[mode].append(float(r.mean()))
        hist.peak_kv[mode].append(float(np.mean([kv_usage(t).peak for t in got])))
        if mode == "fold":
            c = [task.completeness(t, p) for t, p in zip(got, [p for p in ps for _ in range(spec.group_size)])]
            hist.completeness.append(sum(k for k, _ in c) / max(1, sum(n for _, n in c)))
        trajs += got
        targets += [task.target(p) for p in ps for _ in range(spec.group_size)]
        groups += [first + k for k in range(len(ps)) for _ in range(spec.group_size)]
    rewards = leaf_rewards(trajs, targets, format_penalty=spec.format_penalty)
    adv = leaf_advantages(rewards, np.asarray(groups))
    st = accordion_update(model, opt, trajs, adv, clip=spec.clip, epochs=spec.epochs, pad=task.markers.eos)
    hist.clip_fraction.append(st["clip_fraction"])


def train_mixed(model: TinyGPT, task: AccumulatorTask, spec: RLSpec, *, seed: int) -> RLHistory:
    """Mixed Fold/Unfold RL of [P25] (the authors' ``RayMixFoldThoughtTrainer``, reconstructed): per iteration
    ``prompts`` training problems, ``group_size`` rollouts each, the first ``fold_share`` of the prompts in Fold mode,
    the others in Unfold; leaf rewards with format punish, group-mean advantages broadcast to every step, one
    :func:`accordion_update`. Trains ``model`` in place and returns the curves."""
    if not isinstance(spec, RLSpec):
        raise TypeError(f"spec must be an RLSpec, got {type(spec).__name__}")
    s = validation.seed(seed)
    gen = torch.Generator().manual_seed(s)
    rng = np.random.default_rng(s)
    opt = torch.optim.AdamW(model.parameters(), lr=spec.lr, weight_decay=0.0, betas=(0.9, 0.98))
    sampler = KVSampler(model, temperature=spec.temperature)
    hist = RLHistory()
    for _ in range(spec.iterations):
        problems = make_problems(task, spec.prompts, split="train", seed=int(rng.integers(0, 2**31 - 1)))
        _iteration(model, task, spec, sampler, opt, problems, gen, hist)
    model.eval()
    return hist
