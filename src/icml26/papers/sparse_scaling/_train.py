"""Tiny-model runs for the data-saturation claim of [P37]: a LLaMA-style TinyGPT (RMSNorm, SwiGLU, RoPE) trained
with SET at a given density, on repeated or fresh sequences of a :class:`~._markov.MarkovChain`, evaluated after
1, 2, 4, ... epochs.

One run is a trunk at a constant learning rate; for each epoch count e a branch leaves the trunk ``cooldown`` × e
epochs before the end of epoch e, copies the model, the optimiser and the masks, cools the learning rate linearly
to zero over the same batches the trunk trains on and is evaluated at exactly e epochs, then discarded (a
warmup-stable-decay schedule with the decay inside the budget: one trunk gives every epoch count). The ``repeated``
run cycles through ``U`` unique tokens; the ``fresh`` run sees new sequences throughout, and its first epoch (data,
order, masks) is the repeated run's, so both give the same loss at one epoch.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.seeding import spawn_seeds
from icml26.common.validation import choice, int_at_least, real
from icml26.common.validation import seed as check_seed
from icml26.papers.sparse_scaling._markov import MarkovChain
from icml26.papers.sparse_scaling._set import SETMasker

__all__ = ["RunConfig", "make_model", "saturation_run", "validation_loss"]


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """[P37] one tiny-model run: the model, the unique data (``unique_sequences`` × ``seq_len`` tokens), the epochs at
    which it is evaluated, the optimiser (Adam, constant ``lr``, clip 1) and SET (``update_every``, ``prune_rate``
    with a cosine decay over the trunk)."""

    d_model: int = 16
    n_layer: int = 2
    n_head: int = 2
    seq_len: int = 32
    unique_sequences: int = 1024
    epochs: tuple[int, ...] = (1, 2, 4, 8, 16)
    batch_size: int = 32
    lr: float = 1e-2
    cooldown: float = 0.1
    update_every: int = 25
    prune_rate: float = 0.3
    val_sequences: int = 1024

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layer", "n_head", "seq_len", "unique_sequences", "batch_size", "update_every",
                     "val_sequences"):
            int_at_least(getattr(self, name), f"RunConfig.{name}", 1)
        if self.unique_sequences % self.batch_size:
            raise ValueError("RunConfig.unique_sequences must be a multiple of batch_size (whole epochs)")
        ep = self.epochs
        if not ep or any(isinstance(e, bool) or not isinstance(e, int) or e < 1 for e in ep) or list(ep) != sorted(set(ep)):
            raise ValueError(f"RunConfig.epochs must be increasing positive ints, got {ep!r}")
        real(self.lr, "RunConfig.lr", lo=0.0, lo_open=True)
        real(self.cooldown, "RunConfig.cooldown", lo=0.0, hi=1.0)
        real(self.prune_rate, "RunConfig.prune_rate", lo=0.0, hi=1.0)

    @property
    def steps_per_epoch(self) -> int:
        return self.unique_sequences // self.batch_size

    @property
    def unique_tokens(self) -> int:
        """U: the predicted tokens of one pass over the unique sequences."""
        return self.unique_sequences * self.seq_len


def make_model(cfg: RunConfig, *, vocab: int, seed: int) -> TinyGPT:
    """[P37] the LLaMA-style tiny model of the runs (RMSNorm, SwiGLU, RoPE, tied embeddings) initialised from
    ``seed``; the paper's models are LLaMA configurations of 20M-3.84B parameters."""
    gc = GPTConfig(vocab_size=int_at_least(vocab, "vocab", 2), block_size=cfg.seq_len, n_layer=cfg.n_layer,
                   n_head=cfg.n_head, d_model=cfg.d_model, norm="rmsnorm", mlp="swiglu", pos="rope")
    return TinyGPT(gc, seed=check_seed(seed))


def _scored_loss(model: nn.Module, x: Tensor, order: int) -> Tensor:
    """Mean next-token cross-entropy over targets with a full order-``order`` context (positions t >= order)."""
    logits = model(x[:, :-1])[:, order - 1:]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, order:].reshape(-1))


@torch.no_grad()
def validation_loss(model: nn.Module, data: Tensor, *, order: int) -> float:
    """[P37] the held-out loss (nats/token) of ``model`` on ``data`` (n, T+1) at full-context positions, whose
    floor is the chain's ``entropy_floor``."""
    model.eval()
    total, count = 0.0, 0
    for i in range(0, data.shape[0], 256):
        chunk = data[i:i + 256]
        n = chunk.shape[0] * (chunk.shape[1] - order)
        total += float(_scored_loss(model, chunk, order)) * n
        count += n
    model.train()
    return total / count


def _schedule(cfg: RunConfig, kind: str, n_steps: int, g: torch.Generator) -> np.ndarray:
    """Row indices of every batch (n_steps, batch): a fresh permutation per epoch; ``fresh`` uses a new block of
    unique sequences per epoch (block 0 is the repeated run's data)."""
    spe, n, b = cfg.steps_per_epoch, cfg.unique_sequences, cfg.batch_size
    out = np.empty((n_steps, b), dtype=np.int64)
    for ep in range(math.ceil(n_steps / spe)):
        perm = torch.randperm(n, generator=g).numpy() + (ep * n if kind == "fresh" else 0)
        rows = perm[: spe * b].reshape(spe, b)
        lo = ep * spe
        out[lo:min(lo + spe, n_steps)] = rows[: n_steps - lo]
    return out


def _train_steps(model: nn.Module, opt: torch.optim.Optimizer, masker: SETMasker, data: Tensor, batches: np.ndarray,
                 lrs: np.ndarray, order: int) -> None:
    model.train()
    for idx, lr in zip(batches, lrs):
        for grp in opt.param_groups:
            grp["lr"] = float(lr)
        loss = _scored_loss(model, data[torch.from_numpy(idx)], order)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        masker.mask_grads()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        masker.step(opt)


def _branch_loss(model: nn.Module, opt: torch.optim.Adam, masker: SETMasker, data: Tensor, val: Tensor,
                 batches: np.ndarray, cfg: RunConfig, order: int) -> float:
    """Cool a copy of the trunk down over ``batches`` (lr linearly to 0) and return its validation loss."""
    twin = copy.deepcopy(model)
    twin_opt = torch.optim.Adam(twin.parameters(), lr=cfg.lr)
    twin_opt.load_state_dict(opt.state_dict())
    lrs = cfg.lr * (1.0 - (np.arange(len(batches)) + 1.0) / (len(batches) + 1.0))
    _train_steps(twin, twin_opt, masker.frozen(twin), data, batches, lrs, order)
    return validation_loss(twin, val, order=order)


def saturation_run(chain: MarkovChain, cfg: RunConfig, *, density: float, kind: str, seed: int,
                   val_seed: int) -> list[dict[str, Any]]:
    """[P37] one multi-epoch run (module docstring): rows ``{density, kind, epochs, U, D, val_loss, active}`` per
    epoch count of ``cfg.epochs``, ``D = epochs·U``. Data, initialisation, shuffling and SET draw from ``seed``;
    the validation sequences (``cfg.val_sequences``, fresh from the chain) from ``val_seed``."""
    if not isinstance(chain, MarkovChain):
        raise TypeError(f"chain must be a MarkovChain, got {type(chain).__name__}")
    if not isinstance(cfg, RunConfig):
        raise TypeError(f"cfg must be a RunConfig, got {type(cfg).__name__}")
    kind = choice(kind, "kind", ("fresh", "repeated"))
    seed, val_seed = check_seed(seed), check_seed(val_seed, "val_seed")
    density = real(density, "density", lo=0.0, hi=1.0, lo_open=True)
    spe, trunk = cfg.steps_per_epoch, cfg.epochs[-1] * cfg.steps_per_epoch
    first, rest = spawn_seeds(seed, 2)  # the unique data is the same for both kinds; fresh blocks come after it
    parts = [chain.sample(cfg.unique_sequences, cfg.seq_len + 1, seed=first)]
    if kind == "fresh":
        parts.append(chain.sample((cfg.epochs[-1] - 1) * cfg.unique_sequences, cfg.seq_len + 1, seed=rest))
    data = torch.from_numpy(np.concatenate(parts))
    val = torch.from_numpy(chain.sample(cfg.val_sequences, cfg.seq_len + 1, seed=val_seed))
    g = torch.Generator().manual_seed(seed)
    model = make_model(cfg, vocab=chain.vocab, seed=seed)
    batches = _schedule(cfg, kind, trunk, g)
    masker = SETMasker(model, density=density, update_every=cfg.update_every, prune_rate=cfg.prune_rate,
                       total_steps=trunk, generator=g)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    rows, done = [], 0
    for e in cfg.epochs:
        end = e * spe
        start = max(done, end - round(cfg.cooldown * end))
        _train_steps(model, opt, masker, data, batches[done:start], np.full(start - done, cfg.lr), chain.order)
        loss = _branch_loss(model, opt, masker, data, val, batches[start:end], cfg, chain.order)
        done = start
        d_tokens = end * cfg.batch_size * cfg.seq_len
        rows.append({"density": density, "kind": kind, "epochs": e, "D": d_tokens, "val_loss": loss,
                     "U": d_tokens if kind == "fresh" else cfg.unique_tokens,
                     "active": sum(masker.active_counts().values())})
    return rows
