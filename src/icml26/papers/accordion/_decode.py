"""Sampling from a :class:`~icml26.common.nn.TinyGPT` with a key/value cache, for [P25]'s rollouts.

:class:`KVSampler` is a step sampler (``contexts -> outputs``, see :mod:`._rollout`): it left-pads a batch of
contexts of different lengths, runs them once (the prefill, with per-row positions and a padding mask), then decodes
one token per row per call with the cached keys and values until each row has produced a stop token, reached its
cap, or filled the model's ``block_size``. It reproduces ``TinyGPT.forward`` for every block variant (pre/post/
sandwich norms, parallel blocks, MoE MLPs) and position scheme (learned, sinusoidal, rotary, none); the tests compare
its logits with the full forward pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common import validation
from icml26.common.nn import TinyGPT, blocks_of
from icml26.common.nn.blocks import Attention, Block
from icml26.papers.accordion._format import tokens_of

__all__ = ["KVSampler", "sample_from_logits"]


def sample_from_logits(logits: Any, *, temperature: float, generator: torch.Generator) -> Tensor:
    """One token per row from ``softmax(logits / temperature)`` ([P25] rollouts sample at temperature 1), or the
    argmax at ``temperature == 0``.

    ``logits`` is ``(B, V)`` (numpy or torch); NaN or ``+inf`` entries, or a row that is ``-inf`` everywhere, are a
    ``ValueError``: a broken model must not turn into a plausible-looking trace.
    """
    if isinstance(logits, (str, bytes)) or not isinstance(logits, Tensor):
        logits = torch.as_tensor(validation.real_array(logits, "logits", ndim=2, finite=False))
    if logits.is_complex() or not logits.is_floating_point():
        raise TypeError(f"logits must be a real floating tensor, got {logits.dtype}")
    if logits.ndim != 2 or logits.shape[0] == 0 or logits.shape[1] == 0:
        raise ValueError(f"logits must be a non-empty (batch, vocab) array, got shape {tuple(logits.shape)}")
    t = validation.real(temperature, "temperature", lo=0.0)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator (an explicit seed), got {type(generator).__name__}")
    if bool(torch.isnan(logits).any()) or bool(torch.isposinf(logits).any()):
        raise ValueError("logits must not hold NaN or +inf: the model's weights or inputs are broken")
    if not bool(torch.isfinite(logits).any(dim=-1).all()):
        raise ValueError("logits: every row needs at least one finite entry")
    if t == 0.0:
        return logits.argmax(dim=-1)
    probs = F.softmax(logits.double() / t, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]


def _rope(x: Tensor, pos: Tensor, base: float = 10000.0) -> Tensor:
    """``apply_rope`` with per-row positions ``pos`` (B, T) for ``x`` (B, h, T, hd)."""
    hd = x.shape[-1]
    inv = base ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
    ang = (pos.to(torch.float64)[:, None, :, None] * inv).to(x.dtype)  # (B, 1, T, hd/2)
    cos, sin = torch.cos(ang), torch.sin(ang)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x1 * cos - x2 * sin
    out[..., 1::2] = x1 * sin + x2 * cos
    return out


class _Cache:
    """Preallocated keys/values (B, h, S_max, hd) per block, the filled length ``n`` and the key mask (B, S_max)."""

    def __init__(self, n_layer: int, shape: tuple[int, int, int, int], dtype: torch.dtype) -> None:
        self.k = [torch.zeros(shape, dtype=dtype) for _ in range(n_layer)]
        self.v = [torch.zeros(shape, dtype=dtype) for _ in range(n_layer)]
        self.valid = torch.zeros(shape[0], shape[2], dtype=torch.bool)
        self.n = 0


def _attend(attn: Attention, x: Tensor, pos: Tensor, cache: _Cache, layer: int) -> Tensor:
    B, T, D = x.shape
    h = attn.n_head
    q, k, v = (m(x).view(B, T, h, D // h).transpose(1, 2) for m in (attn.q, attn.k, attn.v))
    if attn.rope:
        q, k = _rope(q, pos), _rope(k, pos)
    n = cache.n
    cache.k[layer][:, :, n:n + T] = k
    cache.v[layer][:, :, n:n + T] = v
    keys, vals = cache.k[layer][:, :, :n + T], cache.v[layer][:, :, :n + T]
    att = (q @ keys.transpose(-2, -1)) / math.sqrt(D // h)
    causal = torch.ones(T, n + T, dtype=torch.bool).tril(diagonal=n)
    allowed = causal[None] & cache.valid[:, None, :n + T]
    diag = torch.zeros(T, n + T, dtype=torch.bool)
    diag[torch.arange(T), n + torch.arange(T)] = True  # a padding query sees itself: no row without a key
    allowed = allowed | diag[None]
    att = att.masked_fill(~allowed[:, None], float("-inf")).softmax(dim=-1)
    return attn.o((att @ vals).transpose(1, 2).reshape(B, T, D))


def _block(blk: Block, x: Tensor, pos: Tensor, cache: _Cache, layer: int) -> Tensor:
    """``Block.forward`` with the cached attention (the same sub-modules in the same order)."""
    if blk.cfg.parallel:
        hdn = blk.norm1(x)
        y = _attend(blk.attn, hdn, pos, cache, layer) + blk.mlp(hdn)
        return x + (blk.post_norm1(y) if blk.post_norm1 is not None else y)
    norm2 = blk.norm2
    assert norm2 is not None  # only a parallel block has no second norm
    if blk.cfg.norm_position == "post":
        x = blk.norm1(x + _attend(blk.attn, x, pos, cache, layer))
        return norm2(x + blk.mlp(x))
    a = _attend(blk.attn, blk.norm1(x), pos, cache, layer)
    x = x + (blk.post_norm1(a) if blk.post_norm1 is not None else a)
    m = blk.mlp(norm2(x))
    return x + (blk.post_norm2(m) if blk.post_norm2 is not None else m)


def _forward(model: TinyGPT, idx: Tensor, pos: Tensor, cache: _Cache) -> Tensor:
    """Logits of the last position of ``idx`` (B, T) at positions ``pos`` (B, T), extending ``cache``."""
    x = model.wte(idx)
    if model.wpe is not None:
        x = x + model.wpe(pos)
    elif model.cfg.pos == "sinusoidal":
        table: Tensor = model.get_buffer("sin_table")
        x = x + table[pos].to(x.dtype)
    for i, blk in enumerate(blocks_of(model)):
        x = _block(blk, x, pos, cache, i)
    cache.n += idx.shape[1]
    x = model.norm_f(x[:, -1]) if model.norm_f is not None else x[:, -1]
    return model.lm_head(x)


class KVSampler:
    """A [P25] step sampler over a :class:`TinyGPT` with a KV cache (batched, left-padded, seeded).

    ``sampler(contexts, max_new_tokens=, stop_tokens=, generator=)`` returns, per context, the generated tokens up
    to and including the first stop token (or ``max_new_tokens`` of them, or as many as ``block_size`` leaves room
    for). ``temperature`` 1 samples the model's distribution ([P25]); 0 is greedy. Contexts are run ``max_batch`` at
    a time.
    """

    def __init__(self, model: TinyGPT, *, temperature: float = 1.0, max_batch: int = 512) -> None:
        if not isinstance(model, TinyGPT):
            raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
        self.model = model
        self.temperature = validation.real(temperature, "temperature", lo=0.0)
        self.max_batch = validation.positive_int(max_batch, "max_batch")

    def __call__(self, contexts: Sequence[Sequence[int]], *, max_new_tokens: int, stop_tokens: Sequence[int],
                 generator: torch.Generator) -> list[tuple[int, ...]]:
        if isinstance(contexts, (str, bytes)) or not isinstance(contexts, Sequence) or not contexts:
            raise ValueError("contexts must be a non-empty sequence of token sequences")
        ctxs = [tokens_of(c, f"contexts[{i}]", allow_empty=False) for i, c in enumerate(contexts)]
        cap = validation.positive_int(max_new_tokens, "max_new_tokens")
        stops = tokens_of(stop_tokens, "stop_tokens")
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator (an explicit seed), got {type(generator).__name__}")
        out: list[tuple[int, ...]] = []
        for i in range(0, len(ctxs), self.max_batch):
            out.extend(self._batch(ctxs[i:i + self.max_batch], cap, stops, generator))
        return out

    @torch.no_grad()
    def _batch(self, ctxs: list[tuple[int, ...]], cap: int, stops: tuple[int, ...], generator: torch.Generator
               ) -> list[tuple[int, ...]]:
        cfg = self.model.cfg
        lens = torch.tensor([len(c) for c in ctxs])
        L = int(lens.max())
        if L > cfg.block_size:
            raise ValueError(f"contexts: a context of {L} tokens exceeds the model's block_size {cfg.block_size}")
        if max(max(c) for c in ctxs) >= cfg.vocab_size:
            raise ValueError(f"contexts: token ids must lie in [0, {cfg.vocab_size})")
        B = len(ctxs)
        room = torch.clamp(cfg.block_size - lens, max=cap)  # tokens each row may still generate
        steps = int(room.max())
        if steps <= 0:
            return [() for _ in ctxs]
        pad = L - lens
        idx = torch.zeros(B, L, dtype=torch.long)
        for r, c in enumerate(ctxs):
            idx[r, int(pad[r]):] = torch.tensor(c)
        ar = torch.arange(L)
        pos = torch.clamp(ar[None] - pad[:, None], min=0)
        dtype = next(self.model.parameters()).dtype
        d = cfg.d_model
        cache = _Cache(cfg.n_layer, (B, cfg.n_head, L + steps, d // cfg.n_head), dtype)
        cache.valid[:, :L] = ar[None] >= pad[:, None]
        was_training = self.model.training
        self.model.eval()
        try:
            logits = _forward(self.model, idx, pos, cache)
            gen = torch.zeros(B, steps, dtype=torch.long)
            n_out = torch.zeros(B, dtype=torch.long)
            alive = room > 0
            stop_t = torch.tensor(stops, dtype=torch.long)
            for t in range(steps):
                nxt = sample_from_logits(logits, temperature=self.temperature, generator=generator)
                gen[:, t] = nxt
                n_out += alive.long()
                alive = alive & ~torch.isin(nxt, stop_t) & (n_out < room)
                if not bool(alive.any()):
                    break
                cache.valid[:, L + t] = True
                at = torch.clamp(lens + t, max=cfg.block_size - 1)  # finished rows run on, at a valid position
                logits = _forward(self.model, nxt[:, None], at[:, None], cache)
        finally:
            self.model.train(was_training)
        return [tuple(int(x) for x in gen[r, : int(n_out[r])]) for r in range(B)]


def as_generator(seed: int | np.random.Generator | torch.Generator) -> torch.Generator:
    """A ``torch.Generator`` from an int seed (or the generator itself)."""
    if isinstance(seed, torch.Generator):
        return seed
    if isinstance(seed, np.random.Generator):
        return torch.Generator().manual_seed(int(seed.integers(0, 2**63 - 1)))
    return torch.Generator().manual_seed(validation.seed(seed))
