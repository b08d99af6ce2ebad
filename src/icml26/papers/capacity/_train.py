"""GPT-style models for [P01] and training them to saturation (early stopping on the train-loss plateau)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.threads import single_thread
from icml26.common.train import TrainResult, train
from icml26.papers.capacity._code import as_sequences, bos_inputs

__all__ = ["TrainConfig", "fit_to_plateau", "make_model"]


def make_model(n_layer: int, d_model: int, *, vocab_size: int, seq_len: int, n_head: int = 2, seed: int = 0) -> TinyGPT:
    """A GPT-2-style TinyGPT (pre-LN, learned positions, GELU MLP, tied embeddings) coding V = ``vocab_size`` tokens:
    its vocabulary has V + 1 ids (the last is the begin-of-sequence marker) and its window is ``seq_len`` (S)."""
    if not isinstance(vocab_size, int) or vocab_size < 2:
        raise ValueError(f"vocab_size must be an int >= 2, got {vocab_size!r}")
    if not isinstance(seq_len, int) or seq_len < 1:
        raise ValueError(f"seq_len must be a positive int, got {seq_len!r}")
    cfg = GPTConfig(vocab_size=vocab_size + 1, block_size=seq_len, n_layer=n_layer, n_head=n_head, d_model=d_model)
    return TinyGPT(cfg, seed=seed)


@dataclass(frozen=True)
class TrainConfig:
    """How :func:`fit_to_plateau` trains: AdamW at a constant ``lr`` on minibatches of ``batch_size`` sequences, the
    full-data train loss checked every ``eval_every`` steps; stop once it has improved by less than ``min_delta_bits``
    bits/token for ``patience`` checks in a row (the plateau), or after ``max_steps``."""

    lr: float = 3e-3
    batch_size: int = 128
    max_steps: int = 20_000
    eval_every: int = 100
    patience: int = 4
    min_delta_bits: float = 0.005
    weight_decay: float = 0.0

    def __post_init__(self) -> None:
        if not self.lr > 0 or self.batch_size < 1 or self.max_steps < 1 or self.eval_every < 1 or self.patience < 1:
            raise ValueError("TrainConfig needs lr > 0 and batch_size, max_steps, eval_every, patience >= 1")
        if not self.min_delta_bits >= 0 or not self.weight_decay >= 0:
            raise ValueError("min_delta_bits and weight_decay must be >= 0")


def _lm_loss(model: nn.Module, x: Tensor) -> Tensor:
    """Mean next-token cross-entropy (nats) of x given (BOS, x_<t), softmax over the V data tokens."""
    V = model.cfg.vocab_size - 1
    logits = model(bos_inputs(x, V))[..., :V]
    return F.cross_entropy(logits.reshape(-1, V), x.reshape(-1))



def fit_to_plateau(model: TinyGPT, dataset: object, *, config: TrainConfig = TrainConfig(), seed: int = 0) -> TrainResult:
    """Train ``model`` θ̂ on ``dataset`` (N, S) to saturation, as [P01] requires ("trained to capacity"): the train
    loss is monitored and training stops on its plateau, not after a fixed small step count (an under-trained model
    reports far too few bits). Runs torch on one thread (restored afterwards). Returns the :class:`~icml26.common.train.TrainResult` (``stopped_early`` is False when
    ``max_steps`` ran out first)."""
    V = model.cfg.vocab_size - 1
    x = as_sequences(dataset, vocab_size=V)
    if x.shape[0] == 0:
        raise ValueError("dataset must hold at least one sequence")
    if x.shape[1] > model.cfg.block_size:
        raise ValueError(f"dataset sequences have length {x.shape[1]} > the model's window block_size={model.cfg.block_size}")
    data = torch.from_numpy(np.ascontiguousarray(x))
    with single_thread():
        return _train(model, data, config, seed)


def _train(model: TinyGPT, data: Tensor, config: TrainConfig, seed: int) -> TrainResult:
    return train(
        model,
        (data,),
        _lm_loss,
        steps=config.max_steps,
        lr=config.lr,
        batch_size=config.batch_size,
        weight_decay=config.weight_decay,
        seed=seed,
        eval_every=config.eval_every,
        patience=config.patience,
        min_rel_improvement=0.0,
        min_delta=config.min_delta_bits * math.log(2.0),
    )
