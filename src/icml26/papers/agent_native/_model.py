"""The small agent LM of the [P17] toy: a TinyGPT over the MiniRepo vocabulary, trained on a token budget, and
incremental (key/value-cached) greedy decoding for the agent loop.

The paper mid-trains Qwen2.5-32B/72B-Base; here the model is a 2-layer TinyGPT trained from scratch (scaled far
down), and "tokens" are tokens of our closed vocabulary (:mod:`._text`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common import validation as V
from icml26.common.nn import GPTConfig, TinyGPT, blocks_of
from icml26.papers.agent_native._text import INDEX, PAD, VOCAB, encode

__all__ = ["ModelSpec", "action_mask", "make_model", "train_on_tokens"]

ACT, OBS, EOS = INDEX["<act>"], INDEX["<obs>"], INDEX["<eos>"]


@dataclass(frozen=True)
class ModelSpec:
    """[P17] model: TinyGPT size and the optimiser of every training stage."""

    n_layer: int = 2
    n_head: int = 4
    d_model: int = 64
    block_size: int = 320
    lr: float = 3e-3
    batch_size: int = 8


def make_model(spec: ModelSpec, *, seed: int) -> TinyGPT:
    """[P17] model: a fresh TinyGPT over :data:`VOCAB` (pre-norm, learned positions: what :func:`extend` decodes)."""
    cfg = GPTConfig(vocab_size=len(VOCAB), block_size=spec.block_size, n_layer=spec.n_layer, n_head=spec.n_head,
                    d_model=spec.d_model)
    return TinyGPT(cfg, seed=V.seed(seed))


def action_mask(ids: Sequence[int]) -> list[bool]:
    """For each next-token target ``ids[t + 1]``: whether it is part of an action (after ``<act>``, up to and
    including the ``<obs>``/``<eos>`` that closes it). Post-training trains on these targets only ([P17] SFT)."""
    out, inside = [], False
    for t in range(len(ids) - 1):
        if ids[t] == ACT:
            inside = True
        elif ids[t] in (OBS, EOS):
            inside = False
        out.append(inside)
    return out


def _batch(docs: list[list[int]], actions_only: bool) -> tuple[Tensor, Tensor, Tensor]:
    T = max(len(d) for d in docs) - 1
    x = torch.full((len(docs), T), PAD, dtype=torch.long)
    y = torch.full((len(docs), T), PAD, dtype=torch.long)
    m = torch.zeros((len(docs), T), dtype=torch.bool)
    for i, d in enumerate(docs):
        n = len(d) - 1
        x[i, :n] = torch.tensor(d[:-1])
        y[i, :n] = torch.tensor(d[1:])
        m[i, :n] = torch.tensor(action_mask(d)) if actions_only else True
    return x, y, m


def _within(left: int, batch: list[list[int]]) -> list[list[int]]:
    """The batch cut to ``left`` tokens: whole documents while they fit, then a prefix of the next one (so every
    budget is consumed exactly, whatever the arm's document lengths)."""
    out = []
    for d in batch:
        if left <= 0:
            break
        out.append(d[:left])
        left -= len(out[-1])
    return out


def train_on_tokens(model: TinyGPT, docs: Sequence[str], *, tokens: int, spec: ModelSpec, seed: int,
                    actions_only: bool = False) -> dict[str, float]:
    """Train ``model`` on ``docs`` for exactly ``tokens`` document tokens ([P17] equal token budgets).

    Documents are drawn in a seeded shuffled order (epochs repeat when the budget exceeds the pool), ``batch_size``
    at a time, padded to the longest in the batch (the last batch is cut so that the budget is met exactly); AdamW at
    ``spec.lr``. ``actions_only`` trains on action targets
    (post-training); otherwise on every next token (mid-training). Returns the tokens consumed and the last losses.
    """
    tokens = V.int_at_least(tokens, "tokens", 0)
    seed = V.seed(seed)
    ids = [d for d in (encode(t) for t in docs) if 2 <= len(d) <= spec.block_size]
    if tokens and not ids:
        raise ValueError("docs must hold at least one document that fits the model's block size")
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=spec.lr, weight_decay=0.0)
    used, losses, order = 0, [], []
    model.train()
    while used < tokens:
        if len(order) < spec.batch_size:
            order += torch.randperm(len(ids), generator=g).tolist()
        take, order = order[:spec.batch_size], order[spec.batch_size:]
        batch = _within(tokens - used, [ids[i] for i in take])
        used += sum(len(d) for d in batch)
        kept = [d for d in batch if len(d) >= 2]  # a 1-token prefix is read but has no next-token target
        if not kept:
            continue
        x, y, m = _batch(kept, actions_only)
        if not bool(m.any()):
            continue
        logits = model(x)
        loss = F.cross_entropy(logits[m], y[m])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
    model.eval()
    tail = losses[-20:]
    return {"tokens": float(used), "loss": sum(tail) / len(tail) if tail else math.nan, "pool": float(len(ids))}


class KVCache:
    """Keys and values of one sequence per layer (batch 1), for :func:`extend`."""

    def __init__(self, n_layer: int) -> None:
        self.k: list[Tensor | None] = [None] * n_layer
        self.v: list[Tensor | None] = [None] * n_layer
        self.length = 0


@torch.no_grad()
def extend(model: TinyGPT, cache: KVCache, ids: Sequence[int]) -> Tensor:
    """Feed ``ids`` after the cached prefix and return the next-token logits (vocab,): equal to the last row of
    ``model(prefix + ids)`` (tested), at the cost of the new tokens only."""
    cfg = model.cfg
    if cfg.pos != "learned" or cfg.norm_position != "pre" or cfg.parallel or cfg.n_experts:
        raise ValueError("extend supports pre-norm, learned-position, sequential, dense TinyGPTs only")
    n = len(ids)
    if n == 0 or cache.length + n > cfg.block_size:
        raise ValueError(f"ids must be non-empty and fit the block size ({cache.length} + {n} > {cfg.block_size})")
    pos = torch.arange(cache.length, cache.length + n)
    wpe = model.wpe
    assert wpe is not None
    x = model.wte(torch.tensor([list(ids)])) + wpe(pos)
    for li, blk in enumerate(blocks_of(model)):
        att, h = blk.attn, blk.norm1(x)
        H, D = att.n_head, cfg.d_model
        q, k, v = (m(h).view(1, n, H, D // H).transpose(1, 2) for m in (att.q, att.k, att.v))
        pk, pv = cache.k[li], cache.v[li]
        k = k if pk is None else torch.cat([pk, k], dim=2)
        v = v if pv is None else torch.cat([pv, v], dim=2)
        cache.k[li], cache.v[li] = k, v
        s = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
        causal = torch.ones(n, k.shape[2], dtype=torch.bool).tril(diagonal=k.shape[2] - n)
        a = s.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        x = x + att.o((a @ v).transpose(1, 2).reshape(1, n, D))
        norm2 = blk.norm2
        assert norm2 is not None
        x = x + blk.mlp(norm2(x))
    cache.length += n
    norm_f = model.norm_f
    hid = norm_f(x[0, -1]) if norm_f is not None else x[0, -1]
    return model.lm_head(hid)


def greedy(model: TinyGPT, cache: KVCache, logits: Tensor, *, stop: Sequence[int], max_new: int
           ) -> tuple[list[int], Tensor | None]:
    """Greedy tokens from ``logits`` until a ``stop`` token (included) or ``max_new`` or the block end; returns the
    tokens and the logits after them (``None`` when the block is full)."""
    out: list[int] = []
    cur: Tensor | None = logits
    while cur is not None and len(out) < max_new:
        t = int(cur.argmax())
        out.append(t)
        if cache.length >= model.cfg.block_size:
            cur = None
            break
        cur = extend(model, cache, [t])
        if t in stop:
            break
    return out, cur
