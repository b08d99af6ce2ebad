"""Dr.GRPO for [P20]'s chess policy, on :mod:`icml26.common.rl`.

The paper runs Dr.GRPO in verl (``adv_estimator=grpo``, ``norm_adv_by_std_in_grpo=False``, ``rollout.n=8``,
clip ratios 0.2 / 0.28, ``loss_agg_mode=seq-mean-token-sum-norm``, no KL loss, no entropy bonus). Here:

- :func:`group_advantages`: ``A_i = r_i - mean_group(r)`` (Dr.GRPO, no division by the group's std);
- :func:`drgrpo_loss`: PPO's clipped surrogate with those advantages broadcast to every response token, summed per
  response and divided by a constant length (``seq_sum_norm``);
- :func:`drgrpo_step`: one rollout batch (G responses per position, predictmove rewards) and its mini-batch updates;
- :func:`rl_finetune`: the loop, with the reward curve and the legality and faithfulness of every batch.

The first three work in any loop: a user's model only has to supply per-token log-probabilities and a 0/1 mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.common.rl import PolicyLoss, dr_grpo_advantages, ppo_clip_loss
from icml26.papers.chess_reasoning._decode import response_logprobs
from icml26.papers.chess_reasoning._labels import MoveLabels
from icml26.papers.chess_reasoning._rollout import rollout
from icml26.papers.chess_reasoning._tokens import ChessTokenizer

__all__ = ["RLSpec", "drgrpo_loss", "drgrpo_step", "group_advantages", "rl_finetune"]


@dataclass(frozen=True)
class RLSpec:
    """Dr.GRPO settings of [P20] at our scale (every field is part of the RL cache key)."""

    iterations: int = 80
    prompts: int = 16  # positions per rollout batch
    group: int = 8  # responses per position (the paper's rollout.n)
    minibatches: int = 2  # updates per rollout batch (the paper: 16 of 4 prompts)
    lr: float = 3e-4
    clip_low: float = 0.2
    clip_high: float = 0.28
    temperature: float = 1.0
    cut: float = 0.3


def group_advantages(rewards: Any, *, group: int) -> np.ndarray:
    """[P20] Dr.GRPO advantages of rewards laid out group after group (``len(rewards) = P * group``):
    ``A_i = r_i - mean_j r_j`` within each group of ``group`` consecutive rewards."""
    r = validation.real_array(rewards, "rewards", ndim=1)
    g = validation.positive_int(group, "group")
    if r.size % g:
        raise ValueError(f"rewards: {r.size} rewards do not split into groups of {g}")
    return np.asarray(dr_grpo_advantages(r.reshape(-1, g))).reshape(-1)


def drgrpo_loss(logp: Tensor, logp_old: Tensor, rewards: Tensor, mask: Tensor, *, group: int,
                clip_low: float = 0.2, clip_high: float = 0.28) -> PolicyLoss:
    """[P20] Dr.GRPO loss of a rollout batch: per-token ``logp`` and ``logp_old`` (B, L), the responses' rewards
    (B,) in groups of ``group`` consecutive rows, and the 0/1 token ``mask`` (B, L); the sum over each response's
    tokens is divided by the constant L (verl's ``seq-mean-token-sum-norm``)."""
    for name, t in (("logp", logp), ("logp_old", logp_old), ("rewards", rewards)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a torch tensor, got {type(t).__name__}")
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} must be finite (got NaN or inf)")
    if rewards.ndim != 1 or rewards.shape[0] != logp.shape[0]:
        raise ValueError(f"rewards must have shape ({logp.shape[0]},), got {tuple(rewards.shape)}")
    adv = torch.as_tensor(group_advantages(rewards.detach().double().numpy(), group=group), dtype=logp.dtype)
    return ppo_clip_loss(logp, logp_old, adv, clip=clip_low, clip_high=clip_high, mask=mask,
                         aggregate="seq_sum_norm", norm_length=logp.shape[1])


def drgrpo_step(model: TinyGPT, optimizer: torch.optim.Optimizer, labels: Sequence[MoveLabels], *, spec: RLSpec,
                tokenizer: ChessTokenizer, generator: torch.Generator) -> dict[str, float]:
    """One [P20] Dr.GRPO iteration: ``spec.group`` sampled responses per position, predictmove rewards, then
    ``spec.minibatches`` clipped updates (the later ones slightly off-policy). Returns the batch's statistics."""
    ro = rollout(model, labels, tokenizer=tokenizer, group=spec.group, temperature=spec.temperature,
                 generator=generator, cut=spec.cut)
    rewards = ro.rewards
    with torch.no_grad():
        old = response_logprobs(model, ro.prompts, ro.responses, group=spec.group)
    mask = ro.mask.to(old.dtype)
    n = len(labels)
    chunks = np.array_split(np.arange(n), min(spec.minibatches, n))
    model.train()
    clip_frac = []
    for ids in chunks:
        rows = torch.as_tensor(np.concatenate([np.arange(i * spec.group, (i + 1) * spec.group) for i in ids]))
        logp = response_logprobs(model, ro.prompts[torch.as_tensor(ids)], ro.responses[rows], group=spec.group)
        out = drgrpo_loss(logp, old[rows], rewards[rows], mask[rows], group=spec.group, clip_low=spec.clip_low,
                          clip_high=spec.clip_high)
        optimizer.zero_grad(set_to_none=True)
        out.loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        clip_frac.append(float(out.clip_fraction))
    model.eval()
    s = ro.scores
    return {"reward": float(rewards.mean()), "answer_illegal": float(np.mean([not x.answer_legal for x in s])),
            "hallucinated": float(np.mean([x.hallucinated for x in s])),
            "faithful": float(np.mean([x.faithful for x in s])), "clip_fraction": float(np.mean(clip_frac))}


def rl_finetune(model: TinyGPT, labels: Sequence[MoveLabels], *, spec: RLSpec, seed: int,
                tokenizer: ChessTokenizer) -> list[dict[str, float]]:
    """[P20] Dr.GRPO on ``labels``' positions for ``spec.iterations`` iterations (positions drawn without
    replacement within each pass over them, from ``seed``); ``model`` is trained in place.

    Returns one statistics dict per iteration (the reward curve and its companions).
    """
    if not isinstance(spec, RLSpec):
        raise TypeError(f"spec must be an RLSpec, got {type(spec).__name__}")
    if len(labels) < spec.prompts:
        raise ValueError(f"labels: need at least {spec.prompts} positions, got {len(labels)}")
    s = validation.seed(seed)
    rng = np.random.default_rng(s)
    gen = torch.Generator().manual_seed(s)
    opt = torch.optim.AdamW(model.parameters(), lr=spec.lr, weight_decay=0.0)
    order: list[int] = []
    history = []
    for _ in range(spec.iterations):
        if len(order) < spec.prompts:
            order.extend(rng.permutation(len(labels)).tolist())
        batch = [labels[i] for i in order[:spec.prompts]]
        del order[:spec.prompts]
        history.append(drgrpo_step(model, opt, batch, spec=spec, tokenizer=tokenizer, generator=gen))
    return history
