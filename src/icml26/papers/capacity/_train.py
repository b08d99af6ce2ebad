"""GPT-style models for [P01] and training them to saturation (learning-rate step-downs, then early stopping on the train-loss plateau)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.train import TrainResult
from icml26.common.validation import int_at_least, positive_int, real, real_array
from icml26.papers.capacity._code import _check_model, as_sequences, bos_inputs

__all__ = ["TrainConfig", "fit_to_plateau", "make_model", "plateau_reached"]


def make_model(n_layer: int, d_model: int, *, vocab_size: int, seq_len: int, n_head: int = 2, seed: int = 0) -> TinyGPT:
    """A GPT-2-style TinyGPT (pre-LN, learned positions, GELU MLP, tied embeddings) coding V = ``vocab_size`` tokens:
    its vocabulary has V + 1 ids (the last is the begin-of-sequence marker) and its window is ``seq_len`` (S).
    Every size is an int (bools are refused): ``n_layer``, ``d_model``, ``seq_len``, ``n_head`` >= 1,
    ``vocab_size`` >= 2. A small stand-in for the GPT-style models whose capacity [P01] measures."""
    n_layer, d_model = int_at_least(n_layer, "n_layer", 1), int_at_least(d_model, "d_model", 1)
    vocab_size, seq_len = int_at_least(vocab_size, "vocab_size", 2), int_at_least(seq_len, "seq_len", 1)
    n_head, seed = int_at_least(n_head, "n_head", 1), int_at_least(seed, "seed", 0)
    cfg = GPTConfig(vocab_size=vocab_size + 1, block_size=seq_len, n_layer=n_layer, n_head=n_head, d_model=d_model)
    return TinyGPT(cfg, seed=seed)


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """How :func:`fit_to_plateau` trains: AdamW at ``lr`` on minibatches of ``batch_size`` sequences, the full-data
    train loss (bits/token) checked every ``eval_every`` steps. A *plateau* at the current learning rate is reached
    when, over the last ``patience`` checks (a window of ``patience * eval_every`` steps), the loss fell by less than
    ``max(min_delta_bits, rel_tol * learnt)`` bits/token, ``learnt = log2 V - loss`` being the bits per token the
    model has learnt so far (so ``rel_tol`` is a tolerance relative to the memorised bits). On a plateau the learning
    rate is multiplied by ``lr_decay`` and the window restarts, ``n_decays`` times; the next plateau ends training.
    No plateau is declared before ``min_epochs`` passes over the data, and training stops after ``max_steps``.
    Our protocol for the "trained to saturation" that the capacity measurement of [P01] requires."""

    lr: float = 3e-3
    batch_size: int = 128
    max_steps: int = 20_000
    eval_every: int = 100
    patience: int = 4
    min_delta_bits: float = 0.005
    rel_tol: float = 0.0
    lr_decay: float = 1.0
    n_decays: int = 0
    min_epochs: float = 0.0
    weight_decay: float = 0.0

    def __post_init__(self) -> None:
        for name, lo in (("batch_size", 1), ("max_steps", 1), ("eval_every", 1), ("patience", 1), ("n_decays", 0)):
            int_at_least(getattr(self, name), f"TrainConfig.{name}", lo)
        for name in ("lr", "min_delta_bits", "rel_tol", "lr_decay", "min_epochs", "weight_decay"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
                raise TypeError(f"TrainConfig.{name} must be a real number, got {type(v).__name__} {v!r}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"TrainConfig.lr must be finite and > 0, got {self.lr!r}")
        if not 0 < self.lr_decay <= 1:
            raise ValueError(f"TrainConfig.lr_decay must lie in (0, 1], got {self.lr_decay!r}")
        for name in ("min_delta_bits", "rel_tol", "min_epochs", "weight_decay"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ValueError(f"TrainConfig.{name} must be finite and >= 0, got {v!r}")


def plateau_reached(loss_bits: Sequence[float], *, vocab_size: int, patience: int, min_delta_bits: float = 0.0,
                    rel_tol: float = 0.0) -> bool:
    """The stopping rule of :func:`fit_to_plateau` (see :class:`TrainConfig`): given the train loss in bits/token at
    successive checks (``loss_bits``, oldest first, all at the current learning rate), True iff there are more than
    ``patience`` checks and the last ``patience`` of them gained less than ``max(min_delta_bits, rel_tol * learnt)``,
    ``learnt = log2(vocab_size) - loss_bits[-1]`` (clamped at 0). It decides when a model counts as saturated for
    the capacity measurement of [P01]."""
    patience = positive_int(patience, "patience")
    vocab_size = int_at_least(vocab_size, "vocab_size", 2)
    min_delta_bits = real(min_delta_bits, "min_delta_bits", lo=0.0)
    rel_tol = real(rel_tol, "rel_tol", lo=0.0)
    loss = real_array(loss_bits, "loss_bits", ndim=1)
    if loss.size <= patience:
        return False
    gain = float(loss[-1 - patience]) - float(loss[-1])
    learnt = max(0.0, math.log2(vocab_size) - float(loss[-1]))
    return gain < max(min_delta_bits, rel_tol * learnt)


def _lm_loss(model: TinyGPT, x: Tensor) -> Tensor:
    """Mean next-token cross-entropy (nats) of x given (BOS, x_<t), softmax over the V data tokens."""
    V = model.cfg.vocab_size - 1
    logits = model(bos_inputs(x, V))[..., :V]
    return F.cross_entropy(logits.reshape(-1, V), x.reshape(-1))


def fit_to_plateau(model: TinyGPT, dataset: object, *, config: TrainConfig = TrainConfig(), seed: int = 0) -> TrainResult:
    """Train ``model`` θ̂ on ``dataset`` (N, S) to saturation, as [P01] requires ("trained to capacity"): the train
    loss is monitored and training stops on its plateau (after ``config.n_decays`` learning-rate step-downs), not
    after a fixed small step count (an under-trained model reports far too few bits). Torch runs on the threads
    the caller set (the harness gives a claim one). Returns the :class:`~icml26.common.train.TrainResult` (``evals`` in nats/token;
    ``stopped_early`` is False when ``max_steps`` ran out first). ``config`` must be a :class:`TrainConfig` (a dict
    is refused: build ``TrainConfig(**d)``, which validates every field)."""
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig (e.g. TrainConfig(**d) for a dict d), got {type(config).__name__}")
    seed = int_at_least(seed, "seed", 0)
    V = _check_model(model)
    x = as_sequences(dataset, vocab_size=V)
    if x.shape[0] == 0:
        raise ValueError("dataset must hold at least one sequence")
    if x.shape[1] > model.cfg.block_size:
        raise ValueError(f"dataset sequences have length {x.shape[1]} > the model's window block_size={model.cfg.block_size}")
    data = torch.from_numpy(np.ascontiguousarray(x))
    return _train(model, data, config, seed)


def _train(model: TinyGPT, data: Tensor, config: TrainConfig, seed: int) -> TrainResult:
    V = model.cfg.vocab_size - 1
    gen = torch.Generator().manual_seed(int(seed))
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    n = data.shape[0]
    bs = min(config.batch_size, n)
    min_steps = math.ceil(config.min_epochs * n / bs)
    res = TrainResult(steps=0)
    history: list[float] = []  # loss (bits/token) at the checks since the last learning-rate change
    decays_left = config.n_decays
    model.train()
    for step in range(1, config.max_steps + 1):
        idx = torch.randperm(n, generator=gen)[:bs]
        loss = _lm_loss(model, data[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        res.losses.append(loss.item())
        res.steps = step
        if step % config.eval_every:
            continue
        model.eval()
        with torch.no_grad():
            v = float(_lm_loss(model, data))
        model.train()
        res.evals.append((step, v))
        history.append(v / math.log(2.0))
        if step < min_steps or not plateau_reached(history, vocab_size=V, patience=config.patience,
                                                   min_delta_bits=config.min_delta_bits, rel_tol=config.rel_tol):
            continue
        if decays_left > 0:  # step the learning rate down before declaring the plateau
            decays_left -= 1
            for grp in opt.param_groups:
                grp["lr"] *= config.lr_decay
            history = history[-1:]
        else:
            res.stopped_early = True
            break
    model.eval()
    return res
