"""The [P20] policy: a small :class:`~icml26.common.nn.TinyGPT` that reads a position and writes a reasoning line
then an answer move, trained from scratch here by supervised fine-tuning.

The paper fine-tunes Qwen2.5-7B; ours is a 2-layer decoder of width 64 over the 2762-token vocabulary of
:class:`._tokens.ChessTokenizer` (:func:`make_policy`). :func:`sft_loss` is next-token cross-entropy on the response
tokens only (the prompt is given); :func:`sft_train` runs :func:`icml26.common.train.train` and keeps a copy of the
weights at each of ``snapshots`` evenly spaced steps (the SFT checkpoints whose metrics the paper relates to the
post-RL result).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from icml26.common import validation
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.train import TrainResult, train
from icml26.papers.chess_reasoning._tokens import PROMPT_LEN, ChessTokenizer

__all__ = ["PolicySpec", "make_policy", "sft_loss", "sft_train"]


@dataclass(frozen=True)
class PolicySpec:
    """The [P20] policy's shape (every field is part of the checkpoint cache key)."""

    d_model: int = 64
    n_layer: int = 2
    n_head: int = 4
    line_plies: int = 4
    tie_weights: bool = False

    @property
    def block_size(self) -> int:
        """Prompt, ``<think>``, the plies, ``</think>``, the answer and ``<eos>``."""
        return PROMPT_LEN + self.line_plies + 4


def make_policy(spec: PolicySpec, *, seed: int, tokenizer: ChessTokenizer) -> TinyGPT:
    """A freshly initialised [P20] policy (TinyGPT with learned positions, pre-norm, GELU)."""
    if not isinstance(spec, PolicySpec):
        raise TypeError(f"spec must be a PolicySpec, got {type(spec).__name__}")
    cfg = GPTConfig(vocab_size=tokenizer.vocab_size, block_size=spec.block_size, n_layer=spec.n_layer,
                    n_head=spec.n_head, d_model=spec.d_model, tie_weights=spec.tie_weights)
    return TinyGPT(cfg, seed=validation.seed(seed))


def sft_loss(model: nn.Module, tokens: Tensor, targets: Tensor) -> Tensor:
    """[P20] SFT loss: cross-entropy of each response position against its target set (uniform weights over the
    listed tokens: one token for a fixed target, every legal move for a generic ply), averaged over the positions
    that have a target; in nats. The LM head runs on those positions only.

    ``tokens`` (N, T) and ``targets`` (N, T - PROMPT_LEN, K) as :func:`._data.sft_tokens` gives them.
    """
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
    h = model.hidden(tokens[:, :-1])[:, PROMPT_LEN - 1:]  # the states that predict the response tokens
    sel = targets[..., 0] >= 0
    logits = model.lm_head(h[sel])
    cand = targets[sel]
    valid = cand >= 0
    picked = logits.gather(-1, cand.clamp_min(0)) * valid
    return (torch.logsumexp(logits, -1) - picked.sum(-1) / valid.sum(-1)).mean()


def sft_train(model: TinyGPT, tokens: Tensor, targets: Tensor, *, steps: int, lr: float, batch_size: int, seed: int,
              snapshots: int = 1) -> tuple[TrainResult, list[dict[str, Tensor]]]:
    """Supervised fine-tuning of a [P20] policy: AdamW with a cosine schedule (:func:`icml26.common.train.train`).

    Returns the training record and ``snapshots`` copies of the weights taken at steps ``steps * i / snapshots``
    (the last one is the final model).
    """
    steps = validation.positive_int(steps, "steps")
    snapshots = validation.positive_int(snapshots, "snapshots", hi=steps)
    if tokens.ndim != 2 or targets.ndim != 3 or tokens.shape[0] == 0 or targets.shape[0] != tokens.shape[0]:
        raise ValueError(f"tokens (N, T) and targets (N, R, K) must be non-empty with the same N, got "
                         f"{tuple(tokens.shape)}, {tuple(targets.shape)}")
    every = steps // snapshots
    kept: list[dict[str, Tensor]] = []

    def keep(m: nn.Module) -> float:  # called by train() every `every` steps: the checkpoint, then its loss
        if len(kept) < snapshots:
            kept.append(copy.deepcopy(m.state_dict()))
        with torch.no_grad():
            return float(sft_loss(m, tokens[:256], targets[:256]))

    res = train(model, [tokens, targets], sft_loss, steps=every * snapshots, lr=lr, batch_size=batch_size,
                seed=validation.seed(seed), eval_every=every, eval_fn=keep, lr_schedule="cosine")
    return res, kept
