"""Fixed channel subsets that the [P35] TCS experiments compare against, at the same ratio in the same layers.

- ``random``: a seeded random subset of the layer's input channels, the same for every input;
- ``magnitude``: the channels whose weight columns in the consuming layer have the largest L2 norm (static
  magnitude pruning of the layer's inputs);
- ``calibrated``: the channels with the largest TCS importance averaged over a calibration set (the training
  images): TCS's own score, made static. It separates what the per-input choice adds from what the score adds.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from icml26.papers.toast._arch import use_eager_attention, vit_blocks
from icml26.papers.toast._tcs import _ClsAttention, _importance, _kept
from icml26.papers.toast._train import logits

__all__ = ["calibrated_channels", "calibrated_importance", "magnitude_channels", "random_channels"]


def random_channels(model: nn.Module, ratios: Sequence[float], *, site: str, seed: int) -> dict[tuple[int, str], Tensor]:
    """A random kept subset for every block with a nonzero ratio (``site``: ``fc1`` or ``fc2``)."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for b in vit_blocks(model):
        if ratios[b.index] > 0:
            n = int(getattr(b.mlp, site).in_features)
            out[(b.index, site)] = _kept(torch.rand(n, generator=gen), ratios[b.index])
    return out


def magnitude_channels(model: nn.Module, ratios: Sequence[float], *, site: str) -> dict[tuple[int, str], Tensor]:
    """The input channels with the largest weight-column norms of the layer at ``site``."""
    out = {}
    for b in vit_blocks(model):
        if ratios[b.index] > 0:
            w = getattr(b.mlp, site).weight.detach()
            out[(b.index, site)] = _kept(torch.linalg.vector_norm(w, dim=0), ratios[b.index])
    return out


class _Inputs:
    """Forward pre-hook keeping a layer's latest input."""

    def __init__(self) -> None:
        self.x: Tensor | None = None

    def __call__(self, module: nn.Module, args: tuple[Tensor, ...]) -> None:
        self.x = args[0].detach()


def calibrated_importance(model: nn.Module, block_ids: Sequence[int], x: Tensor, *, site: str, cls_weight: float,
                          batch_size: int = 64) -> dict[int, Tensor]:
    """TCS importance (all patches, per batch of ``batch_size``) summed over the images ``x``, per block."""
    blocks = [b for b in vit_blocks(model) if b.index in block_ids]
    caps = {b.index: (_ClsAttention(), _Inputs()) for b in blocks}
    hooks = [h for b in blocks for h in (b.attn.module.register_forward_hook(caps[b.index][0]),
                                         getattr(b.mlp, site).register_forward_pre_hook(caps[b.index][1]))]
    was = use_eager_attention(model)
    sums: dict[int, Tensor] = {}
    gen = torch.Generator().manual_seed(0)  # all patches are used: the generator draws nothing
    try:
        with torch.no_grad():
            for i in range(0, len(x), batch_size):
                logits(model, x[i:i + batch_size])
                for bi, (att, inp) in caps.items():
                    assert inp.x is not None
                    imp = _importance(inp.x, att.cls_attn, cls_weight, 1.0, False, gen) * len(inp.x)
                    sums[bi] = imp if bi not in sums else sums[bi] + imp
    finally:
        for h in hooks:
            h.remove()
        if was is not None and was != "eager":
            model.set_attn_implementation(was)  # type: ignore[operator]
    return sums


def calibrated_channels(importance: dict[int, Tensor], ratios: Sequence[float], *, site: str
                        ) -> dict[tuple[int, str], Tensor]:
    """The channels of highest calibrated importance (:func:`calibrated_importance`) at each block's ratio."""
    return {(bi, site): _kept(imp, ratios[bi]) for bi, imp in importance.items() if ratios[bi] > 0}
