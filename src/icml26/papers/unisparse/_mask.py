"""The block mask every selector of [P30] returns, and the argument checks the whole package shares.

A :class:`BlockMask` says, per query head and query block i, which key blocks j <= i are attended (causal prefill):
``blocks[h, i, j]``. Tokens of the diagonal block see the keys up to their own position; tokens of an earlier
selected block see all of its keys. The sequence is cut into ``ceil(n / block)`` blocks, the last one possibly short.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import int_at_least, real_array

__all__ = ["BlockMask", "as_heads", "check_block", "check_qk", "causal_blocks", "select_by_mass"]


def as_heads(x: Any, name: str) -> Tensor:
    """``x`` as a finite real ``(heads, n, d)`` tensor (numpy arrays are converted; floating tensors kept as is).

    Raises a ``TypeError`` (complex, strings, objects) or ``ValueError`` (wrong ndim, empty, NaN/inf) naming ``name``.
    """
    if isinstance(x, Tensor):
        if x.is_complex():
            raise TypeError(f"{name} must be a real tensor, got dtype {x.dtype}")
        if not x.is_floating_point():
            x = x.to(torch.float32)
        if x.ndim != 3:
            raise ValueError(f"{name} must be 3-dimensional (heads, n, d), got shape {tuple(x.shape)}")
        if x.numel() == 0:
            raise ValueError(f"{name} must not be empty, got shape {tuple(x.shape)}")
        if not bool(torch.isfinite(x).all()):
            raise ValueError(f"{name} must be finite (got NaN or inf)")
        return x
    return torch.from_numpy(real_array(x, name, ndim=3, dtype=np.float32))


def check_block(block: object) -> int:
    """A block size: an int in [1, 4096]."""
    return int_at_least(block, "block", 1, hi=4096)


def check_qk(q: Any, k: Any) -> tuple[Tensor, Tensor]:
    """Queries ``(hq, n, d)`` and keys ``(hkv, n, d)`` with ``hq`` a multiple of ``hkv``; keys repeated per query head
    (grouped-query attention: query head h reads key head ``h // (hq // hkv)``), both float32."""
    qt, kt = as_heads(q, "q"), as_heads(k, "k")
    if qt.shape[1:] != kt.shape[1:]:
        raise ValueError(f"q and k must share (n, d), got q {tuple(qt.shape)} and k {tuple(kt.shape)}")
    if qt.shape[0] % kt.shape[0]:
        raise ValueError(f"the heads of q ({qt.shape[0]}) must be a multiple of the heads of k ({kt.shape[0]})")
    kt = kt.repeat_interleave(qt.shape[0] // kt.shape[0], dim=0)
    return qt.float(), kt.float()


def causal_blocks(nb: int, *, device: torch.device | str = "cpu") -> Tensor:
    """``(nb, nb)`` bool: the key blocks j <= i a causal query block i may attend."""
    return torch.ones(nb, nb, dtype=torch.bool, device=device).tril()


@dataclass(frozen=True)
class BlockMask:
    """Which key blocks each (query head, query block) attends: the output of every mask selector of [P30].

    Attributes:
        blocks: ``(heads, nb, nb)`` bool tensor, ``nb = ceil(n / block)``; only ``j <= i`` may be set, and every query
            block selects at least one key block.
        block: tokens per block (the paper's S).
        n: the sequence length.
    """

    blocks: Tensor
    block: int
    n: int

    def __post_init__(self) -> None:
        b = check_block(self.block)
        n = int_at_least(self.n, "n", 1)
        m = self.blocks
        if not isinstance(m, Tensor) or m.dtype != torch.bool:
            raise TypeError(f"blocks must be a bool tensor, got {type(m).__name__} {getattr(m, 'dtype', '')}")
        nb = math.ceil(n / b)
        if m.ndim != 3 or m.shape[1:] != (nb, nb) or m.shape[0] < 1:
            raise ValueError(f"blocks must have shape (heads, {nb}, {nb}) for n={n}, block={b}, got {tuple(m.shape)}")
        if bool(m.triu(1).any()):
            raise ValueError("blocks selects a key block after its query block (j > i): prefill attention is causal")
        if not bool(m.any(dim=-1).all()):
            raise ValueError("blocks leaves a query block without any key block")
        object.__setattr__(self, "block", b)
        object.__setattr__(self, "n", n)

    @classmethod
    def full(cls, heads: int, n: int, *, block: int) -> BlockMask:
        """Every causal block of ``heads`` heads: block-sparse attention with it is full causal attention ([P30])."""
        h = int_at_least(heads, "heads", 1)
        nb = math.ceil(int_at_least(n, "n", 1) / check_block(block))
        return cls(causal_blocks(nb).expand(h, nb, nb).clone(), block, n)

    @property
    def heads(self) -> int:
        """Number of query heads."""
        return int(self.blocks.shape[0])

    @property
    def nb(self) -> int:
        """Number of blocks per side."""
        return int(self.blocks.shape[1])

    def density_per_head(self) -> Tensor:
        """Selected / causal blocks per head, ``(heads,)`` float64 (the block density of [P30]'s speed-up)."""
        return self.blocks.sum(dim=(1, 2)).double() / (self.nb * (self.nb + 1) / 2)

    @property
    def density(self) -> float:
        """Selected / causal blocks over all heads."""
        return float(self.density_per_head().mean())

    def to_csr(self) -> tuple[Tensor, Tensor]:
        """``(row_ptr, cols)`` int32: the key blocks of row ``h * nb + i`` are ``cols[row_ptr[r]:row_ptr[r + 1]]``,
        ascending (the layout of the native and Triton kernels of [P30]'s block-sparse attention)."""
        m = self.blocks.cpu()
        counts = m.sum(dim=-1).flatten()
        row_ptr = torch.zeros(counts.numel() + 1, dtype=torch.int64)
        row_ptr[1:] = torch.cumsum(counts, 0)
        cols = torch.nonzero(m)[:, 2]
        return row_ptr.to(torch.int32), cols.to(torch.int32).contiguous()

    def token_mask(self) -> Tensor:
        """``(heads, n, n)`` bool: query token r may attend key token c (block selected and c <= r). For tests and
        small n only: it is quadratic in n ([P30]'s block mask at token level)."""
        idx = torch.arange(self.n) // self.block
        allowed = self.blocks[:, idx][:, :, idx]
        return allowed & torch.ones(self.n, self.n, dtype=torch.bool).tril()


def select_by_mass(scores: Tensor, *, tau: float, sink: bool = True) -> Tensor:
    """Per query block, the fewest key blocks whose share of the row's score reaches ``tau`` (cumulative top-p).

    [P30] block selection as reconstructed here (it follows XAttention and FlexPrefill): ``scores`` ``(heads, nb, nb)``
    are non-negative block scores (only ``j <= i`` is read); each row is normalised to sum 1; the diagonal block and,
    with ``sink``, block 0 are always kept and count towards the mass; the others are added by decreasing score
    until the kept share reaches ``tau``. ``tau >= 1`` keeps every causal block. Ties are broken by block index.
    """
    nb = scores.shape[-1]
    causal = causal_blocks(nb, device=scores.device)
    if tau >= 1.0:
        return causal.expand_as(scores).clone()
    s = torch.where(causal, scores.clamp_min(0), torch.zeros((), dtype=scores.dtype))
    s = s / s.sum(dim=-1, keepdim=True).clamp_min(torch.finfo(s.dtype).tiny)
    forced = torch.eye(nb, dtype=torch.bool, device=scores.device)
    if sink:
        forced[:, 0] = True
    priority = torch.where(forced, 2.0, torch.where(causal, s, -1.0))
    order = torch.argsort(priority, dim=-1, descending=True, stable=True)
    mass = torch.gather(s, -1, order)
    before = torch.cumsum(mass, dim=-1) - mass
    keep_sorted = (before < tau) & (torch.gather(priority, -1, order) >= 0)
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    return (keep | forced.expand_as(keep)) & causal
