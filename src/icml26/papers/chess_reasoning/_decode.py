"""Decoding a :class:`~icml26.common.nn.TinyGPT` with a key/value cache, for [P20]'s rollouts.

A group of G responses to one prompt shares the prompt: :func:`forward_cached` runs the prompt once, the cache is
repeated G times (:func:`expand_cache`) and each new token costs one position. :func:`sample` draws the responses
(temperature sampling from a seeded ``torch.Generator``, or greedy), :func:`response_logprobs` recomputes their
per-token log-probabilities with gradients the same way (prompt once per group). Both follow ``TinyGPT.hidden``
exactly (same blocks, norms and positions); the tests compare them with the full forward pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common.nn import TinyGPT, apply_rope, blocks_of
from icml26.common.nn.blocks import Attention, Block

__all__ = ["KVCache", "expand_cache", "forward_cached", "response_logprobs", "sample"]


@dataclass(frozen=True)
class KVCache:
    """Per block ``(keys, values)`` of shape (B, heads, S, head_dim) for the first ``length`` positions."""

    layers: tuple[tuple[Tensor, Tensor], ...]
    length: int


def _attend(attn: Attention, x: Tensor, pos: Tensor, past: tuple[Tensor, Tensor] | None
            ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
    B, T, D = x.shape
    h = attn.n_head
    q, k, v = (m(x).view(B, T, h, D // h).transpose(1, 2) for m in (attn.q, attn.k, attn.v))
    if attn.rope:
        q, k = apply_rope(q, pos), apply_rope(k, pos)
    if past is not None:
        k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
    S = k.shape[2]
    att = (q @ k.transpose(-2, -1)) / math.sqrt(D // h)
    causal = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=S - T)
    att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
    return attn.o((att @ v).transpose(1, 2).reshape(B, T, D)), (k, v)


def _block(blk: Block, x: Tensor, pos: Tensor, past: tuple[Tensor, Tensor] | None
           ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
    """``Block.forward`` with a cached attention (the same sub-modules in the same order)."""
    if blk.cfg.parallel:
        hdn = blk.norm1(x)
        a, kv = _attend(blk.attn, hdn, pos, past)
        y = a + blk.mlp(hdn)
        return x + (blk.post_norm1(y) if blk.post_norm1 is not None else y), kv
    norm2 = blk.norm2
    assert norm2 is not None  # only a parallel block has no second norm
    if blk.cfg.norm_position == "post":
        a, kv = _attend(blk.attn, x, pos, past)
        x = blk.norm1(x + a)
        return norm2(x + blk.mlp(x)), kv
    a, kv = _attend(blk.attn, blk.norm1(x), pos, past)
    x = x + (blk.post_norm1(a) if blk.post_norm1 is not None else a)
    m = blk.mlp(norm2(x))
    return x + (blk.post_norm2(m) if blk.post_norm2 is not None else m), kv


def forward_cached(model: TinyGPT, idx: Tensor, cache: KVCache | None = None) -> tuple[Tensor, KVCache]:
    """Hidden states (B, T, d) of ``idx`` (B, T) following the cached positions, and the extended cache.

    Equal to ``model.hidden(cat(previous ids, idx))[:, -T:]`` ([P20] rollouts: the prompt once, then one token at a
    time). Raises ``ValueError`` past ``block_size`` or for token ids outside the vocabulary.
    """
    if idx.ndim != 2:
        raise ValueError(f"idx must be (batch, time), got shape {tuple(idx.shape)}")
    start = 0 if cache is None else cache.length
    T = idx.shape[1]
    cfg = model.cfg
    if start + T > cfg.block_size:
        raise ValueError(f"sequence length {start + T} exceeds block_size {cfg.block_size}")
    if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= cfg.vocab_size):
        raise ValueError(f"token ids must lie in [0, {cfg.vocab_size})")
    pos = torch.arange(start, start + T, device=idx.device)
    x = model.wte(idx)
    if model.wpe is not None:
        x = x + model.wpe(pos)
    elif cfg.pos == "sinusoidal":
        table: Tensor = model.get_buffer("sin_table")
        x = x + table[start:start + T].to(x.dtype)
    layers = []
    for i, blk in enumerate(blocks_of(model)):
        x, kv = _block(blk, x, pos, None if cache is None else cache.layers[i])
        layers.append(kv)
    x = model.norm_f(x) if model.norm_f is not None else x
    return x, KVCache(tuple(layers), start + T)


def expand_cache(cache: KVCache, repeats: int) -> KVCache:
    """Each row of the cache repeated ``repeats`` times in place (row i becomes rows i*G ... i*G + G - 1)."""
    return KVCache(tuple((k.repeat_interleave(repeats, 0), v.repeat_interleave(repeats, 0)) for k, v in cache.layers),
                   cache.length)


@torch.no_grad()
def sample(model: TinyGPT, prompts: Tensor, *, max_new: int, eos: int, pad: int, group: int = 1,
           temperature: float = 1.0, generator: torch.Generator | None = None) -> tuple[Tensor, Tensor]:
    """[P20] rollouts: ``group`` responses per prompt (rows grouped: prompt i gives rows i*G ... i*G + G - 1).

    Tokens are drawn from ``softmax(logits / temperature)`` with ``generator`` (required when ``temperature > 0``),
    or greedily (``temperature == 0``), until ``<eos>`` or ``max_new`` tokens; tokens after ``<eos>`` are ``pad``.

    Returns:
        ``(tokens (P*G, L), mask (P*G, L))`` with ``L <= max_new``; ``mask`` marks generated tokens up to and
        including ``<eos>``.
    """
    if temperature > 0 and generator is None:
        raise ValueError("sampling with temperature > 0 needs a torch.Generator (an explicit seed)")
    h, cache = forward_cached(model, prompts)
    logits = model.lm_head(h[:, -1]).repeat_interleave(group, 0)
    cache = expand_cache(cache, group)
    n = logits.shape[0]
    alive = torch.ones(n, dtype=torch.bool)
    toks, masks = [], []
    for t in range(max_new):
        if not bool(torch.isfinite(logits).all()):
            raise ValueError("logits are not finite (NaN or inf): the model's weights or inputs are broken")
        if temperature > 0:
            nxt = torch.multinomial(F.softmax(logits / temperature, dim=-1), 1, generator=generator)[:, 0]
        else:
            nxt = logits.argmax(-1)
        nxt = torch.where(alive, nxt, torch.full_like(nxt, pad))
        toks.append(nxt)
        masks.append(alive.clone())
        alive = alive & (nxt != eos)
        if not bool(alive.any()) or t == max_new - 1:
            break
        h, cache = forward_cached(model, nxt[:, None], cache)
        logits = model.lm_head(h[:, -1])
    return torch.stack(toks, 1), torch.stack(masks, 1)


def response_logprobs(model: TinyGPT, prompts: Tensor, responses: Tensor, *, group: int) -> Tensor:
    """Per-token log-probabilities (P*G, L) of ``responses`` given their prompts (P, Lp), with gradients: the prompt
    runs once per group and its cache is shared by the group's G responses ([P20] Dr.GRPO update)."""
    if responses.shape[0] != prompts.shape[0] * group:
        raise ValueError(f"responses must have {prompts.shape[0]} x {group} rows, got {responses.shape[0]}")
    h, cache = forward_cached(model, prompts)
    first = model.lm_head(h[:, -1:]).repeat_interleave(group, 0)
    if responses.shape[1] > 1:
        hr, _ = forward_cached(model, responses[:, :-1], expand_cache(cache, group))
        logits = torch.cat([first, model.lm_head(hr)], dim=1)
    else:
        logits = first
    return F.log_softmax(logits, dim=-1).gather(-1, responses[..., None])[..., 0]
