"""Synthetic queries, keys and values with the attention structure of a long-context LLM ([P30]'s setting): an
attention sink, a local band and planted needles. For tests, the GPU speed check and the benchmark."""

from __future__ import annotations

import math

import torch
from torch import Tensor

from icml26.common.validation import int_at_least, real
from icml26.common.validation import seed as check_seed

__all__ = ["structured_qkv"]


def structured_qkv(heads: int, n: int, d: int, *, seed: int, sink: float = 3.0, local: float = 2.5,
                   needles: int = 8, needle_strength: float = 4.0) -> tuple[Tensor, Tensor, Tensor]:
    """``(q, k, v)``, each ``(heads, n, d)`` float32, drawn from a generator seeded with ``seed``.

    Structure (the patterns sparse prefill attention of [P30] exploits): every query shares a direction with the
    first 4 keys (a sink, weight ``sink``); queries and keys carry a smooth positional code, so that nearby tokens
    score high (a local band, weight ``local``); per head, ``needles`` key positions carry a direction that the
    queries of one random later span of 64 tokens also carry (weight ``needle_strength``). The rest is N(0, 1/d).
    Queries are scaled by √d, so that a logit q·k/√d of two tokens sharing a pattern is about the product of the
    weights (``sink`` squared for the sink).
    """
    h, nn_, dd = (int_at_least(v, k, 1) for k, v in (("heads", heads), ("n", n), ("d", d)))
    g = torch.Generator().manual_seed(check_seed(seed))
    s, lo, ns = real(sink, "sink", lo=0.0), real(local, "local", lo=0.0), real(needle_strength, "needle_strength", lo=0.0)
    m = int_at_least(needles, "needles", 0)
    scale = 1.0 / math.sqrt(dd)
    q = torch.randn(h, nn_, dd, generator=g) * scale
    k = torch.randn(h, nn_, dd, generator=g) * scale
    v = torch.randn(h, nn_, dd, generator=g)
    w = torch.nn.functional.normalize(torch.randn(h, 1, dd, generator=g), dim=-1)
    q = q + s * w
    k[:, :4] += s * w
    freqs = torch.rand(dd // 2, generator=g) * (2 * math.pi / 256)
    phase = torch.arange(nn_)[:, None] * freqs[None, :]
    code = torch.cat([phase.cos(), phase.sin()], dim=-1) / math.sqrt(dd // 2)
    code = torch.nn.functional.pad(code, (0, dd - code.shape[-1]))
    q, k = q + lo * code, k + lo * code
    for head in range(h):
        for _ in range(m):
            pos = int(torch.randint(0, nn_, (1,), generator=g))
            u = torch.nn.functional.normalize(torch.randn(dd, generator=g), dim=0)
            start = int(torch.randint(pos, nn_, (1,), generator=g))
            k[head, pos] += ns * u
            q[head, start:start + 64] += ns * u
    return q * math.sqrt(dd), k, v  # logits q·k/√d in the units of the weights above
