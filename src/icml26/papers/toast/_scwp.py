"""[P35] Structured Coupled Weight Pruning (SCWP): per-head dimension masks, kept through fine-tuning, re-packed.

Every pruned head keeps the same number of dimensions, ``keep = ⌊d (1 − sparsity)⌋``, chosen by
:func:`~icml26.papers.toast._importance.head_importance`. A pruned Q/K dimension zeroes that row of W_Q and W_K (and
their biases), a pruned V/O dimension that row of W_V (and its bias) and that column of W_O. The masks are re-applied
after every optimiser step (:meth:`StructuredCoupledPruner.attach`), so fine-tuning never revives a pruned weight.
Because every head keeps the same count, the surviving weights re-pack into smaller dense projections with head
dimension ``keep`` (:meth:`StructuredCoupledPruner.repacked`); the attention scale stays the original 1/√d, so the
re-packed model computes what the masked one does. Block 0 is left dense by default, as in the authors' release.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common.validation import choice, real
from icml26.papers.toast._arch import AttnView, vit_blocks
from icml26.papers.toast._importance import COUPLINGS, SCORES, TIED, head_importance

__all__ = ["ROLES", "StructuredCoupledPruner", "keep_count"]

ROLES: tuple[str, ...] = ("q", "k", "v", "o")


def keep_count(n: int, ratio: float) -> int:
    """Items kept out of ``n`` when a fraction ``ratio`` is removed: ⌊n (1 − ratio)⌋ (guarded against rounding)."""
    return int(math.floor(n * (1.0 - ratio) + 1e-9))


def _head_rows(attn: AttnView, role: str, h: int) -> Tensor:
    d = attn.head_dim
    if role == "o":
        return attn.linear("o").weight.detach()[:, h * d:(h + 1) * d].T
    off = attn.offset(role)
    return attn.linear(role).weight.detach()[off + h * d:off + (h + 1) * d]


def _top(scores: Tensor, keep: int) -> Tensor:
    """Indices of the ``keep`` largest scores, ties broken by the lower index, sorted ascending."""
    return torch.sort(torch.argsort(scores, descending=True, stable=True)[:keep]).values


class StructuredCoupledPruner:
    """SCWP masks for every attention block of a ViT ([P35], coupled head-wise structured pruning of MHSA).

    Args:
        model: a transformers ViT or a :class:`PlainViT`; pruned in place when the pruner is made.
        sparsity: fraction of each head's dimensions removed, in [0, 1) (the paper's schedules use 0.9).
        score: row score, ``gm`` (the paper's), ``l1`` or ``l2``.
        coupling: ``coupled`` (the paper's) or an ablation (see :mod:`._importance`).
        skip_first_block: leave block 0 dense (the authors' default).

    Attributes:
        kept: ``{block: {role: LongTensor}}``, the kept dimension indices (0..H·d) of Q, K, V and O per pruned block.
        head_keep: dimensions kept per head, one entry per block (``d`` where a block is not pruned).
    """

    def __init__(self, model: nn.Module, sparsity: float, *, score: str = "gm", coupling: str = "coupled",
                 skip_first_block: bool = True) -> None:
        blocks = vit_blocks(model)
        self.sparsity = real(sparsity, "sparsity", lo=0.0, hi=1.0, hi_open=True)
        self.score = choice(score, "score", SCORES)
        self.coupling = choice(coupling, "coupling", COUPLINGS)
        if not isinstance(skip_first_block, bool):
            raise TypeError(f"skip_first_block must be a bool, got {type(skip_first_block).__name__}")
        self.model = model
        self.kept: dict[int, dict[str, Tensor]] = {}
        self.head_keep: list[int] = []
        self._masks: dict[int, tuple[Tensor, Tensor]] = {}
        for b in blocks:
            d = b.attn.head_dim
            if skip_first_block and b.index == 0:
                self.head_keep.append(d)
                continue
            keep = keep_count(d, self.sparsity)
            if keep < 1:
                raise ValueError(f"sparsity {self.sparsity:g} keeps no dimension of a head of size {d}")
            self.kept[b.index] = self._block_kept(b.attn, keep)
            self.head_keep.append(keep)
            self._add_masks(b.attn, self.kept[b.index])
        self.apply()

    def _block_kept(self, attn: AttnView, keep: int) -> dict[str, Tensor]:
        d = attn.head_dim
        per_role: dict[str, list[Tensor]] = {r: [] for r in ROLES}
        for h in range(attn.num_heads):
            sc = head_importance(*(_head_rows(attn, r, h) for r in ROLES), score=self.score, coupling=self.coupling)
            for r in ROLES:
                per_role[r].append(_top(getattr(sc, r), keep) + h * d)
        return {r: torch.cat(v) for r, v in per_role.items()}

    def _mask_for(self, p: Tensor) -> Tensor:
        if id(p) not in self._masks:
            self._masks[id(p)] = (p, torch.ones_like(p, dtype=torch.bool))
        return self._masks[id(p)][1]

    def _add_masks(self, attn: AttnView, kept: dict[str, Tensor]) -> None:
        width = attn.num_heads * attn.head_dim
        for r in ROLES:
            lin = attn.linear(r)
            pruned = torch.ones(width, dtype=torch.bool)
            pruned[kept[r]] = False
            if r == "o":
                self._mask_for(lin.weight)[:, pruned] = False
                continue
            rows = torch.nonzero(pruned).flatten() + attn.offset(r)
            self._mask_for(lin.weight)[rows] = False
            if lin.bias is not None:
                self._mask_for(lin.bias)[rows] = False

    def apply(self) -> None:
        """Zero every pruned weight (in place); call after anything that may have moved them."""
        with torch.no_grad():
            for p, m in self._masks.values():
                p.masked_fill_(~m, 0.0)

    def attach(self, optimizer: torch.optim.Optimizer) -> Any:
        """Re-apply the masks after every ``optimizer.step()``; returns the hook handle (``.remove()`` detaches)."""
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
        return optimizer.register_step_post_hook(self._after_step)

    def _after_step(self, optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        self.apply()

    @property
    def masks(self) -> list[tuple[Tensor, Tensor]]:
        """``(parameter, keep mask)`` pairs, one per masked parameter (True = kept)."""
        return list(self._masks.values())

    @property
    def pruned_fraction(self) -> float:
        """Fraction of the masked parameters' entries that are pruned."""
        total = sum(m.numel() for _, m in self._masks.values())
        return sum(int((~m).sum()) for _, m in self._masks.values()) / max(1, total)

    def repacked(self) -> nn.Module:
        """A copy of the model whose pruned attention projections are dense and smaller (head dimension ``keep``).

        Needs a tied coupling (Q/K and V/O masks equal) and a model without Token Channel Selection attached.
        The copy computes what the masked model computes (up to float rounding).
        """
        if self.coupling not in TIED:
            raise ValueError(f"re-packing needs a tied coupling {TIED}, this pruner uses {self.coupling!r}")
        from icml26.papers.toast._tcs import SelectedLinear

        if any(isinstance(m, SelectedLinear) for m in self.model.modules()):
            raise ValueError("remove Token Channel Selection (ToastHandle.remove()) before re-packing")
        self.apply()
        dense = copy.deepcopy(self.model)
        for b in vit_blocks(dense):
            if b.index in self.kept:
                _repack_attention(b.attn, self.kept[b.index], self.head_keep[b.index])
        return dense


def _rows(lin: nn.Linear, rows: Tensor) -> tuple[Tensor, Tensor | None]:
    w = lin.weight.detach()[rows].clone()
    return w, (None if lin.bias is None else lin.bias.detach()[rows].clone())


def _linear(w: Tensor, b: Tensor | None) -> nn.Linear:
    with torch.random.fork_rng(devices=[]):  # the layer's default init is overwritten: keep the global RNG as it was
        lin = nn.Linear(w.shape[1], w.shape[0], bias=b is not None)
    with torch.no_grad():
        lin.weight.copy_(w)
        if b is not None:
            lin.bias.copy_(b)
    return lin


def _repack_attention(attn: AttnView, kept: dict[str, Tensor], keep: int) -> None:
    if not (torch.equal(kept["q"], kept["k"]) and torch.equal(kept["v"], kept["o"])):
        raise ValueError("re-packing needs Q/K and V/O masks that are equal")
    parts = {r: _rows(attn.linear(r), kept[r] + attn.offset(r)) for r in ("q", "k", "v")}
    o = attn.linear("o")
    o_new = _linear(o.weight.detach()[:, kept["o"]].clone(), None if o.bias is None else o.bias.detach().clone())
    if attn.fused:
        w = torch.cat([parts[r][0] for r in ("q", "k", "v")])
        bs = [parts[r][1] for r in ("q", "k", "v")]
        attn.set_linear("qkv", _linear(w, None if bs[0] is None else torch.cat(bs)))  # type: ignore[arg-type]
    else:
        for r in ("q", "k", "v"):
            attn.set_linear(r, _linear(*parts[r]))
    attn.set_linear("o", o_new)
    setattr(attn.module, "head_dim", keep)  # noqa: B010 - nn.Module's __setattr__ is typed for tensors and modules
