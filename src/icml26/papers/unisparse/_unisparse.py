"""UniSparse block selection [P30]: composite tokens, multi-granularity compressed attention, top-p block selection.

For each head, queries and keys are cut into blocks of S = ``block`` tokens. A composite token is the mean of c
consecutive tokens of one block (the paper's sequence-level compression: q̃_{i,t'} = (1/c_q) Σ_{m<c_q} q_{i,t'c_q+m}).
At each granularity the compressed attention Ã = softmax(Q̃ K̃ᵀ / √d) (causal at composite level) is summed into
block scores s_ij (mean over the composite queries of block i of the mass on the composite keys of block j); the
granularities are combined by their maximum, and each query block keeps the fewest key blocks whose share of the
score reaches τ (sink block 0 and the diagonal block always kept). Reconstructed from the abstract and a third-party
summary: the combination rule (max), the always-kept blocks and the log-count term of partial composites are ours.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

from icml26.common.validation import int_at_least, real
from icml26.papers.unisparse._mask import BlockMask, check_block, check_qk, select_by_mass

__all__ = ["composite_block_scores", "composite_tokens", "unisparse_block_scores", "unisparse_mask"]


def composite_tokens(x: Tensor, *, block: int, c: int) -> tuple[Tensor, Tensor]:
    """Composite tokens of [P30] (sequence-level compression): the mean of each run of ``c`` tokens inside a block.

    Args:
        x: ``(heads, n, d)``.
        block: tokens per block S; ``c`` must divide it.
        c: tokens per composite (c_q or c_k).

    Returns:
        ``(heads, nb * S / c, d)`` composites (zero where a composite lies wholly past ``n``) and ``(nb * S / c,)``
        float token counts (the last block's composites may hold fewer than ``c`` tokens, or none).
    """
    h, n, d = x.shape
    nb = math.ceil(n / block)
    pad = nb * block - n
    xp = torch.nn.functional.pad(x, (0, 0, 0, pad)) if pad else x
    sums = xp.reshape(h, nb * block // c, c, d).sum(dim=2)
    counts = torch.nn.functional.pad(torch.ones(n, dtype=x.dtype, device=x.device), (0, pad))
    counts = counts.reshape(-1, c).sum(dim=1)
    return sums / counts.clamp_min(1)[None, :, None], counts


def composite_block_scores(q: Tensor, k: Tensor, *, block: int, cq: int, ck: int) -> Tensor:
    """Block scores s_ij of one granularity (c_q, c_k) of [P30]: ``(heads, nb, nb)``, each row a distribution over
    the key blocks j <= i.

    Ã = softmax over composite keys of (q̃ · k̃ / √d + log count_k), causal at composite level (a composite key is
    visible when its first token is not after the composite query's last token); s_ij = Σ_{k̃ in block j} Ã, averaged
    over the composite queries of block i (weighted by their token counts). q, k: ``(heads, n, d)`` with equal heads.
    """
    h, n, d = q.shape
    nb = math.ceil(n / block)
    qc, nq = composite_tokens(q, block=block, c=cq)
    kc, nk = composite_tokens(k, block=block, c=ck)
    q_last = torch.clamp(torch.arange(1, qc.shape[1] + 1, device=q.device) * cq, max=n) - 1
    k_first = torch.arange(kc.shape[1], device=q.device) * ck
    visible = (k_first[None, :] <= q_last[:, None]) & (nk[None, :] > 0)
    bias = torch.where(visible, torch.log(nk.clamp_min(1))[None, :], float("-inf"))
    wq = (nq / nq.reshape(nb, -1).sum(dim=1).repeat_interleave(block // cq)).reshape(nb, block // cq)
    out = torch.empty(h, nb, nb, dtype=q.dtype, device=q.device)
    for head in range(h):  # one head at a time: the compressed logits are (n/c_q) x (n/c_k)
        logits = (qc[head] @ kc[head].T) / math.sqrt(d) + bias
        a = torch.softmax(logits, dim=-1).nan_to_num_(0.0)  # a composite query wholly past n has no visible key
        per_block = a.reshape(-1, nb, block // ck).sum(dim=-1).reshape(nb, block // cq, nb)
        out[head] = (per_block * wq[:, :, None]).sum(dim=1)
    return out


def _granularity_sizes(block: int, cq: int, ck: int, granularities: Any) -> list[tuple[int, int]]:
    if isinstance(granularities, (str, bytes)) or not hasattr(granularities, "__iter__"):
        raise TypeError(f"granularities must be a sequence of ints, got {type(granularities).__name__}")
    gs = [int_at_least(g, "granularities", 1) for g in granularities]
    if not gs:
        raise ValueError("granularities must hold at least one pooling multiple")
    sizes = []
    for g in gs:
        a, b = cq * g, ck * g
        if block % a or block % b:
            raise ValueError(f"granularities: {g} x (cq={cq}, ck={ck}) = ({a}, {b}) must divide block={block}")
        sizes.append((a, b))
    return sizes


def unisparse_block_scores(q: Any, k: Any, *, block: int = 64, cq: int = 16, ck: int = 16,
                           granularities: Any = (1, 4)) -> Tensor:
    """The multi-granularity block scores of [P30]: the maximum over granularities g of the composite block scores at
    pooling (c_q·g, c_k·g), each row renormalised to sum 1. ``(hq, nb, nb)`` float32; arguments as in
    :func:`unisparse_mask` (the combination by maximum is our reconstruction)."""
    qt, kt = check_qk(q, k)
    b = check_block(block)
    cq_, ck_ = int_at_least(cq, "cq", 1, hi=b), int_at_least(ck, "ck", 1, hi=b)
    sizes = _granularity_sizes(b, cq_, ck_, granularities)
    scores = torch.stack([composite_block_scores(qt, kt, block=b, cq=a, ck=c) for a, c in sizes]).amax(dim=0)
    return scores / scores.sum(dim=-1, keepdim=True).clamp_min(torch.finfo(scores.dtype).tiny)


def unisparse_mask(q: Any, k: Any, *, block: int = 64, cq: int = 16, ck: int = 16, tau: float = 0.9,
                   granularities: Any = (1, 4)) -> BlockMask:
    """UniSparse's block mask [P30]: composite tokens at several granularities, compressed attention, and per query
    block the fewest key blocks holding a share ``tau`` of the block score.

    Args:
        q: ``(hq, n, d)`` queries of one sequence (after RoPE).
        k: ``(hkv, n, d)`` keys, ``hq`` a multiple of ``hkv``.
        block: tokens per block S (the paper uses 64 or 128).
        cq: query tokens per composite c_q at the finest granularity (divides ``block``).
        ck: key tokens per composite c_k at the finest granularity (divides ``block``).
        tau: the cumulative share of block score to keep, in (0, 1]; ``tau = 1`` keeps every causal block, and
            block-sparse attention with that mask is full attention.
        granularities: pooling multiples g: granularity g pools c_q·g query and c_k·g key tokens (each must divide
            ``block``); ``(1, 4)`` with c = 16, S = 64 gives composites of 16 and 64 tokens.

    Returns:
        A :class:`BlockMask` with ``hq`` heads.
    """
    t = real(tau, "tau", lo=0.0, hi=1.0, lo_open=True)
    qt, _ = check_qk(q, k)
    scores = unisparse_block_scores(q, k, block=block, cq=cq, ck=ck, granularities=granularities)
    return BlockMask(select_by_mass(scores, tau=t), int(block), int(qt.shape[1]))
