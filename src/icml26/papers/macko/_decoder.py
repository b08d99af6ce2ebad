"""A small decoder-only transformer with a KV cache, for the end-to-end claim of [P05] (torch; imported lazily).

Pre-norm blocks: ``x += Wo·attn(Wqkv·norm(x))``, ``x += Wdown·gelu(Wup·norm(x))``; all four projections are
``nn.Linear`` without bias, so :func:`~icml26.papers.macko.sparsify_linear` can swap them. Weights are random
(scaled ``1/sqrt(fan_in)``) from an explicit generator: the claim is about memory and speed, not quality.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

__all__ = ["DecoderConfig", "TinyDecoder", "greedy_decode"]


@dataclass(frozen=True)
class DecoderConfig:
    vocab: int = 512
    d_model: int = 1024
    n_layers: int = 8
    n_heads: int = 8
    ffn_mult: int = 4


class _Block(nn.Module):
    def __init__(self, cfg: DecoderConfig) -> None:
        super().__init__()
        d = cfg.d_model
        self.n_heads = cfg.n_heads
        self.norm1 = nn.LayerNorm(d)
        self.norm2 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.up = nn.Linear(d, cfg.ffn_mult * d, bias=False)
        self.down = nn.Linear(cfg.ffn_mult * d, d, bias=False)

    def forward(self, x: torch.Tensor, cache: dict[str, torch.Tensor]) -> torch.Tensor:
        b, t, d = x.shape
        h = self.n_heads
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (z.reshape(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
        if "k" in cache:
            k = torch.cat([cache["k"], k], dim=2)
            v = torch.cat([cache["v"], v], dim=2)
        cache["k"], cache["v"] = k, v
        att = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
        return x + self.down(nn.functional.gelu(self.up(self.norm2(x))))


class TinyDecoder(nn.Module):
    """Embedding, ``n_layers`` pre-norm blocks, tied output head."""

    def __init__(self, cfg: DecoderConfig, *, seed: int) -> None:
        super().__init__()
        self.cfg = cfg
        with torch.random.fork_rng(devices=[]):  # the modules' default init draws from the global RNG: leave it as it was
            self.emb = nn.Embedding(cfg.vocab, cfg.d_model)
            self.blocks = nn.ModuleList(_Block(cfg) for _ in range(cfg.n_layers))
            self.norm = nn.LayerNorm(cfg.d_model)
        g = torch.Generator().manual_seed(int(seed))
        with torch.no_grad():
            for p in self.parameters():
                if p.ndim == 2:
                    p.copy_(torch.randn(p.shape, generator=g) / p.shape[1] ** 0.5)

    def forward(self, ids: torch.Tensor, caches: list[dict[str, torch.Tensor]]) -> torch.Tensor:
        x = self.emb(ids)
        for blk, cache in zip(self.blocks, caches):
            x = blk(x, cache)
        return self.norm(x[:, -1]) @ self.emb.weight.T


@torch.no_grad()
def greedy_decode(model: TinyDecoder, prompt: torch.Tensor, n_new: int) -> list[int]:
    """Greedy decoding of ``n_new`` tokens after ``prompt`` (1, T) with a KV cache; returns the new token ids."""
    caches: list[dict[str, torch.Tensor]] = [{} for _ in model.blocks]
    logits = model(prompt, caches)
    out = []
    for _ in range(n_new):
        nxt = int(torch.argmax(logits, dim=-1)[0])
        out.append(nxt)
        logits = model(torch.tensor([[nxt]], device=prompt.device), caches)
    return out
