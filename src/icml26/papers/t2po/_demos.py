"""The cold start of [P15]'s reproduction: supervised fine-tuning on a noisy expert's episodes.

The expert plays each environment's :meth:`oracle_action` (binary search, a shortest path). Every turn it first
thinks for a uniformly random ``0..max_think`` tokens, each an action it still considers (drawn from
:meth:`hypotheses`: the uncertainty of such a segment tracks what is left to find out), and it takes a
low-information
:meth:`idle_action` with probability ``idle`` (hesitation: a repeated guess, a wall bump). A policy cloned from it
starts RL with both habits the paper's interventions target.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.common.train import TrainResult, train
from icml26.papers.t2po._policy import AgentVocab

__all__ = ["demo_episode", "demo_dataset", "fit_demos"]


def demo_episode(env: Any, vocab: AgentVocab, *, rng: np.random.Generator, seed: int, max_think: int, idle: float,
                 block_size: int, options: dict[str, Any] | None = None) -> tuple[list[int], list[bool]]:
    """One noisy-expert episode of [P15]'s cold start as tokens and a response mask (cut at ``block_size``)."""
    obs, _ = env.reset(seed=seed, options=options)
    toks, resp = [vocab.BOS, vocab.observation(obs), vocab.THINK], [False, False, False]
    done = False
    while not done and len(toks) < block_size:
        k = int(rng.integers(0, max_think + 1))
        considered = env.hypotheses()
        think = [vocab.action_token(int(considered[j])) for j in rng.integers(0, len(considered), size=k)]
        action = env.idle_action(rng) if rng.random() < idle else env.oracle_action()
        toks += [*think, vocab.END_THINK, vocab.action_token(action)]
        resp += [True] * (k + 2)
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        if not done:
            toks += [vocab.observation(obs), vocab.THINK]
            resp += [False, False]
    return toks[:block_size], resp[:block_size]


def demo_dataset(make_env: Callable[[], Any], tasks: list[dict[str, Any] | None], vocab: AgentVocab, *, seed: int,
                 max_think: int, idle: float, block_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokens ``(N, block_size)`` (PAD-filled) and response masks of one demo per task ([P15] cold start)."""
    rng = np.random.default_rng(validation.seed(seed))
    x = torch.full((len(tasks), block_size), vocab.PAD, dtype=torch.long)
    m = torch.zeros((len(tasks), block_size), dtype=torch.bool)
    for i, opt in enumerate(tasks):
        toks, resp = demo_episode(make_env(), vocab, rng=rng, seed=int(rng.integers(2**31)), max_think=max_think,
                                  idle=idle, block_size=block_size, options=opt)
        x[i, :len(toks)] = torch.as_tensor(toks)
        m[i, :len(resp)] = torch.as_tensor(resp)
    return x, m


def _masked_ce(model: TinyGPT, x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    logits = model(x[:, :-1])
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction="none")
    w = m[:, 1:].reshape(-1).to(ce.dtype)
    return (ce * w).sum() / w.sum().clamp_min(1.0)


def fit_demos(model: TinyGPT, tokens: torch.Tensor, mask: torch.Tensor, *, steps: int, lr: float, batch_size: int,
              seed: int) -> TrainResult:
    """Behaviour cloning of the demos ([P15] cold start): next-token cross-entropy on the response tokens only,
    AdamW through :func:`icml26.common.train.train` with a cosine schedule."""
    return train(model, [tokens, mask], _masked_ce, steps=validation.positive_int(steps, "steps"), lr=lr,
                 batch_size=batch_size, seed=validation.seed(seed), eval_every=max(1, steps), lr_schedule="cosine")
