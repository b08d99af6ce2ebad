"""How much of full attention a block mask keeps ([P30]'s accuracy argument, measured directly).

- :func:`block_attention_mass` — the full causal softmax attention summed into blocks, once per (q, k);
- :func:`mass_recall` — the share of attention mass inside a mask's blocks, averaged over query tokens;
- :func:`output_error` — ‖O_sparse − O_full‖ / ‖O_full‖ per head.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor

from icml26.papers.unisparse._mask import BlockMask, check_block, check_qk

__all__ = ["block_attention_mass", "mass_recall", "output_error"]


def block_attention_mass(q: Any, k: Any, *, block: int) -> Tensor:
    """``(hq, nb, nb)`` float64: entry (h, i, j) is the full causal attention mass of the query tokens of block i on
    the key tokens of block j, summed over those queries (each query's row sums to 1, so row i sums to the tokens of
    block i). The yardstick of [P30]'s block selection; computed one query block at a time (memory O(n · block))."""
    qt, kt = check_qk(q, k)
    b = check_block(block)
    h, n, d = qt.shape
    nb = math.ceil(n / b)
    pad = nb * b - n
    out = torch.zeros(h, nb, nb, dtype=torch.float64)
    keys = torch.arange(n)
    for i in range(nb):
        rows = torch.arange(i * b, min(n, (i + 1) * b))
        logits = (qt[:, rows].double() @ kt[:, : rows[-1] + 1].double().transpose(1, 2)) / math.sqrt(d)
        logits = logits.masked_fill(keys[None, None, : rows[-1] + 1] > rows[None, :, None], float("-inf"))
        p = torch.softmax(logits, dim=-1).sum(dim=1)  # (h, keys up to the block's last query)
        p = torch.nn.functional.pad(p, (0, n + pad - p.shape[1]))
        out[:, i] = p.reshape(h, nb, b).sum(dim=-1)
    return out


def mass_recall(mask: BlockMask, mass: Tensor) -> Tensor:
    """Per head, the share of full attention mass that ``mask`` keeps, averaged over query tokens ([P30] blocks):
    ``Σ_{selected (i, j)} mass[h, i, j] / n`` with ``mass`` from :func:`block_attention_mass`. ``(hq,)`` float64."""
    if not isinstance(mask, BlockMask):
        raise TypeError(f"mask must be a BlockMask, got {type(mask).__name__}")
    if not isinstance(mass, Tensor) or mass.shape != mask.blocks.shape:
        raise ValueError(f"mass must be a tensor of shape {tuple(mask.blocks.shape)} (block_attention_mass of the "
                         f"same q, k and block)")
    return (mass.double() * mask.blocks.to(mass.device)).sum(dim=(1, 2)) / mask.n


def output_error(sparse: Tensor, full: Tensor) -> Tensor:
    """``‖O_sparse − O_full‖_F / ‖O_full‖_F`` per head (``(h,)`` float64), the output error of [P30]'s sparse
    attention against full attention."""
    if not (isinstance(sparse, Tensor) and isinstance(full, Tensor)) or sparse.shape != full.shape or sparse.ndim != 3:
        raise ValueError("sparse and full must be tensors of one (heads, n, d) shape")
    diff = (sparse.double() - full.double()).flatten(1).norm(dim=1)
    return diff / full.double().flatten(1).norm(dim=1).clamp_min(1e-300)
