"""The sparse-attention baselines [P30] compares with, behind its mask API: each returns a :class:`BlockMask`.

- :func:`streaming_mask` — StreamingLLM: sink blocks and a local window (static).
- :func:`vertical_slash_mask` — MInference's vertical-slash pattern, estimated from the last ``last_q`` queries.
- :func:`xattention_mask` — XAttention: antidiagonal scores of stride-S tiles, then a cumulative threshold.
- :func:`flexprefill_mask` — FlexPrefill: per head, query-aware block selection or vertical-slash, decided by the
  Jensen-Shannon distance between estimated and true block attention of the last query block; threshold γ.
- :func:`random_block_mask` — uniformly random blocks at a given density (sink and diagonal kept).

All are our block-level re-implementations from the baselines' papers (the token-level vertical and slash lines of
MInference and FlexPrefill are widened to the blocks they cross, so that one block-sparse kernel runs them all).
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

from icml26.common.validation import int_at_least, real
from icml26.common.validation import seed as check_seed
from icml26.papers.unisparse._mask import BlockMask, causal_blocks, check_block, check_qk, select_by_mass

__all__ = ["flexprefill_mask", "random_block_mask", "streaming_mask", "vertical_slash_mask", "xattention_mask"]


def _forced(h: int, nb: int, *, sink: bool = True) -> Tensor:
    m = torch.eye(nb, dtype=torch.bool)
    if sink:
        m[:, 0] = True
    return m.expand(h, nb, nb).clone()


def streaming_mask(q: Any, k: Any, *, block: int = 64, sink_blocks: int = 1, window_blocks: int = 4) -> BlockMask:
    """StreamingLLM as a block mask (baseline of [P30]): the first ``sink_blocks`` blocks and the last
    ``window_blocks`` blocks up to the diagonal (``window_blocks = 1``: the diagonal only)."""
    qt, _ = check_qk(q, k)
    b = check_block(block)
    s, w = int_at_least(sink_blocks, "sink_blocks", 0), int_at_least(window_blocks, "window_blocks", 1)
    nb = math.ceil(qt.shape[1] / b)
    i, j = torch.arange(nb)[:, None], torch.arange(nb)[None, :]
    m = ((j < s) | (i - j < w)) & (j <= i)
    return BlockMask(m.expand(qt.shape[0], nb, nb).clone(), b, qt.shape[1])


def _lines_to_blocks(vert: Tensor, slash: Tensor, nb: int, b: int) -> Tensor:
    """Blocks crossed by vertical lines (key columns, ``(h, n)`` bool) and slash lines (offsets q − k, ``(h, n)``)."""
    h, n = vert.shape
    pad = nb * b - n
    vb = torch.nn.functional.pad(vert, (0, pad)).reshape(h, nb, b).any(dim=-1)  # key block holds a column
    # an offset o crosses the block diagonals floor(o / b) and ceil(o / b)
    o = torch.arange(n)
    hits = slash.to(torch.float32)
    diag = torch.zeros(h, nb + 1).scatter_add_(1, (o // b).expand(h, n), hits)
    diag = diag.scatter_add_(1, ((o + b - 1) // b).expand(h, n), hits) > 0
    i, j = torch.arange(nb)[:, None], torch.arange(nb)[None, :]
    by_diag = diag[:, (i - j).clamp(0, nb)]
    return (vb[:, None, :] | by_diag) & (j <= i)


def _probe_attention(qt: Tensor, kt: Tensor, last_q: int) -> tuple[Tensor, Tensor]:
    """Softmax attention of the last ``last_q`` queries over all keys (causal): ``(h, p, n)`` and their positions."""
    n, d = qt.shape[1], qt.shape[2]
    pos = torch.arange(n - min(last_q, n), n)
    logits = qt[:, pos] @ kt.transpose(1, 2) / math.sqrt(d)
    logits = logits.masked_fill(torch.arange(n)[None, None, :] > pos[None, :, None], float("-inf"))
    return torch.softmax(logits, dim=-1), pos


def _line_scores(a: Tensor, pos: Tensor) -> tuple[Tensor, Tensor]:
    """Vertical (per key column) and slash (per offset q − k) sums of probe attention ``a`` ``(h, p, n)``."""
    h, _, n = a.shape
    vert = a.sum(dim=1)
    offs = (pos[:, None] - torch.arange(n)[None, :]).clamp_min(0)  # masked entries carry 0 mass
    slash = torch.zeros(h, n, dtype=a.dtype).scatter_add_(1, offs.flatten().expand(h, -1), a.flatten(1))
    return vert, slash


def vertical_slash_mask(q: Any, k: Any, *, block: int = 64, vertical: int = 256, slash: int = 1024,
                        last_q: int = 64) -> BlockMask:
    """MInference's vertical-slash pattern as a block mask (baseline of [P30]): the attention of the last ``last_q``
    queries picks the ``vertical`` key columns and the ``slash`` diagonals (offsets q − k) with the largest summed
    attention; every block they cross is kept, with the sink and diagonal blocks."""
    qt, kt = check_qk(q, k)
    b = check_block(block)
    n = qt.shape[1]
    nv, ns = int_at_least(vertical, "vertical", 0, hi=n), int_at_least(slash, "slash", 0, hi=n)
    a, pos = _probe_attention(qt, kt, int_at_least(last_q, "last_q", 1))
    vs, ss = _line_scores(a, pos)
    vert = torch.zeros_like(vs, dtype=torch.bool).scatter_(1, vs.topk(nv, dim=1).indices, True)
    sl = torch.zeros_like(ss, dtype=torch.bool).scatter_(1, ss.topk(ns, dim=1).indices, True)
    nb = math.ceil(n / b)
    m = _lines_to_blocks(vert, sl, nb, b) | _forced(qt.shape[0], nb)
    return BlockMask(m, b, n)


def _tile_block_scores(probs: Tensor, nb: int, tiles_per_block: int, weights: Tensor) -> Tensor:
    """Tile-level attention ``(h, T, T)`` summed over the key tiles of block j, averaged over the query tiles of
    block i (weights: tokens per query tile)."""
    h = probs.shape[0]
    per_block = probs.reshape(h, -1, nb, tiles_per_block).sum(dim=-1).reshape(h, nb, tiles_per_block, nb)
    w = weights.reshape(nb, tiles_per_block)
    return (per_block * (w / w.sum(dim=1, keepdim=True))[None, :, :, None]).sum(dim=2)


def xattention_mask(q: Any, k: Any, *, block: int = 64, stride: int = 8, tau: float = 0.9) -> BlockMask:
    """XAttention as a block mask (baseline of [P30]): each stride × stride tile is scored by the mean of q·k/√d
    along its antidiagonal (query t·S + S−1−s with key u·S + s); softmax over key tiles, summed into blocks, and the
    fewest blocks holding a share ``tau`` per query block (sink and diagonal kept)."""
    qt, kt = check_qk(q, k)
    b = check_block(block)
    st = int_at_least(stride, "stride", 1, hi=b)
    if b % st:
        raise ValueError(f"stride ({st}) must divide block ({b})")
    t = real(tau, "tau", lo=0.0, hi=1.0, lo_open=True)
    h, n, d = qt.shape
    nb = math.ceil(n / b)
    pad = nb * b - n
    qp, kp = (torch.nn.functional.pad(x, (0, 0, 0, pad)) for x in (qt, kt))
    tiles = nb * b // st
    q_ad = qp.reshape(h, tiles, st, d).flip(2).reshape(h, tiles, st * d)  # reversed within the tile: antidiagonal
    k_ad = kp.reshape(h, tiles, st * d)
    counts = torch.nn.functional.pad(torch.ones(n), (0, pad)).reshape(tiles, st).sum(dim=1)
    visible = torch.ones(tiles, tiles, dtype=torch.bool).tril() & (counts[None, :] > 0)
    logits = (q_ad @ k_ad.transpose(1, 2)) / (math.sqrt(d) * st)
    probs = torch.softmax(logits.masked_fill(~visible, float("-inf")), dim=-1)
    scores = _tile_block_scores(probs, nb, b // st, counts)
    return BlockMask(select_by_mass(scores, tau=t), b, n)


def _block_means(x: Tensor, b: int) -> Tensor:
    h, n, d = x.shape
    nb = math.ceil(n / b)
    pad = nb * b - n
    counts = torch.nn.functional.pad(torch.ones(n), (0, pad)).reshape(nb, b).sum(dim=1)
    return torch.nn.functional.pad(x, (0, 0, 0, pad)).reshape(h, nb, b, d).sum(dim=2) / counts[None, :, None]


def _cumulative(scores: Tensor, gamma: float) -> Tensor:
    """Per row of ``scores`` ``(h, n)``, the fewest entries whose share of the row's sum reaches ``gamma``."""
    s = scores / scores.sum(dim=1, keepdim=True).clamp_min(1e-30)
    order = torch.argsort(s, dim=1, descending=True, stable=True)
    mass = torch.gather(s, 1, order)
    keep = (torch.cumsum(mass, dim=1) - mass) < gamma
    return torch.zeros_like(keep).scatter(1, order, keep)


def flexprefill_mask(q: Any, k: Any, *, block: int = 64, gamma: float = 0.9, delta: float = 0.1) -> BlockMask:
    """FlexPrefill as a block mask (baseline of [P30]): from the last query block, the true attention over key blocks
    and the one estimated from block-mean queries and keys; a head whose Jensen-Shannon distance is below ``delta``
    takes query-aware selection (block-mean scores, the fewest blocks holding a share ``gamma`` per query block), the
    others the vertical-slash lines holding a share ``gamma`` of the last block's attention."""
    qt, kt = check_qk(q, k)
    b = check_block(block)
    g = real(gamma, "gamma", lo=0.0, hi=1.0, lo_open=True)
    dl = real(delta, "delta", lo=0.0)
    h, n, d = qt.shape
    nb = math.ceil(n / b)
    a, pos = _probe_attention(qt, kt, min(b, n))
    pad = nb * b - n
    true_blocks = torch.nn.functional.pad(a.mean(dim=1), (0, pad)).reshape(h, nb, b).sum(dim=-1)
    qm, km = _block_means(qt, b), _block_means(kt, b)
    block_logits = (qm @ km.transpose(1, 2)) / math.sqrt(d)
    block_logits = block_logits.masked_fill(~causal_blocks(nb), float("-inf"))
    est = torch.softmax(block_logits[:, -1], dim=-1)
    mid = (true_blocks + est) / 2
    js = 0.5 * ((true_blocks * (true_blocks.clamp_min(1e-30) / mid.clamp_min(1e-30)).log()).sum(-1)
                + (est * (est.clamp_min(1e-30) / mid.clamp_min(1e-30)).log()).sum(-1))
    query_aware = js.clamp_min(0).sqrt() < dl
    qa = select_by_mass(torch.softmax(block_logits, dim=-1).nan_to_num(0.0), tau=g)
    vs, ss = _line_scores(a, pos)
    vsl = _lines_to_blocks(_cumulative(vs, g), _cumulative(ss, g), nb, b) | _forced(h, nb)
    m = torch.where(query_aware[:, None, None], qa, vsl)
    return BlockMask(m, b, n)


def random_block_mask(q: Any, k: Any, *, block: int = 64, density: float = 0.3, seed: int) -> BlockMask:
    """Random blocks (baseline of [P30]): the sink and diagonal blocks, then blocks drawn uniformly without
    replacement per head until ``density`` of the causal blocks are selected (or only the forced ones, if more)."""
    qt, _ = check_qk(q, k)
    b = check_block(block)
    p = real(density, "density", lo=0.0, hi=1.0)
    gen = torch.Generator().manual_seed(check_seed(seed))
    h, n = qt.shape[0], qt.shape[1]
    nb = math.ceil(n / b)
    forced = _forced(h, nb)
    causal = causal_blocks(nb)
    extra = max(0, round(p * nb * (nb + 1) / 2) - int(forced[0].sum()))
    keys = torch.rand(h, nb, nb, generator=gen).masked_fill(~causal | forced, -1.0).flatten(1)
    idx = keys.topk(min(extra, int((causal & ~forced[0]).sum())), dim=1).indices
    chosen = torch.zeros_like(keys, dtype=torch.bool).scatter_(1, idx, True).reshape(h, nb, nb)
    return BlockMask(chosen | forced, b, n)
