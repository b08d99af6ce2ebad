"""Multiply-accumulate count of a ViT under a [P35] schedule (the "FLOPs" of the paper, ToMe and DiffRate).

For a block with N tokens, width C, H heads keeping d_qk / d_vo dimensions each, FFN width F, and TCS keeping c1 of
fc1's C inputs and c2 of fc2's F inputs (c = ⌊n (1 − r)⌋, at least one, as TCS selects):

    Q, K: 2 N C H d_qk    V: N C H d_vo    O: N H d_vo C    QKᵀ: H N² d_qk    AV: H N² d_vo
    fc1: N c1 F           fc2: N c2 C

plus the patch embedding N_p C (p² c_in) and the classifier C K. Dense (d = C/H, c1 = C, c2 = F) this is the usual
4NC² + 2N²C + 2NCF per block; DeiT-S at 224² gives 4.599 G, and the paper's 2.7 G schedule 2.656 G.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from torch import nn

from icml26.common.validation import positive_int, real_array
from icml26.papers.toast._arch import model_info, vit_blocks
from icml26.papers.toast._scwp import keep_count
from icml26.papers.toast._tcs import SelectedLinear

__all__ = ["MacCount", "ViTSpec", "vit_macs", "vit_spec"]


@dataclass(frozen=True)
class ViTSpec:
    """The shapes a ViT's MAC count depends on ([P35] FLOPs accounting)."""

    embed_dim: int
    depth: int
    num_heads: int
    head_dim: int
    mlp_hidden: int
    num_patches: int
    patch_size: int
    in_chans: int = 3
    num_classes: int = 1000
    num_prefix_tokens: int = 1
    pooler: int = 0

    def __post_init__(self) -> None:
        for name in ("embed_dim", "depth", "num_heads", "head_dim", "mlp_hidden", "num_patches", "patch_size",
                     "in_chans"):
            positive_int(getattr(self, name), name)
        for name in ("num_classes", "num_prefix_tokens", "pooler"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be an int >= 0, got {v!r}")

    @property
    def num_tokens(self) -> int:
        return self.num_patches + self.num_prefix_tokens


@dataclass(frozen=True)
class MacCount:
    """MACs per part; ``blocks[i]`` maps ``q, k, v, o, qk, av, fc1, fc2`` to block i's counts ([P35])."""

    patch_embed: int
    classifier: int
    blocks: list[dict[str, int]] = field(default_factory=list)

    @property
    def mhsa(self) -> int:
        return sum(b[k] for b in self.blocks for k in ("q", "k", "v", "o", "qk", "av"))

    @property
    def ffn(self) -> int:
        return sum(b["fc1"] + b["fc2"] for b in self.blocks)

    @property
    def total(self) -> int:
        return self.patch_embed + self.classifier + self.mhsa + self.ffn


def vit_spec(model: nn.Module) -> ViTSpec:
    """The :class:`ViTSpec` of a transformers ViT or a PlainViT, as built (before any re-packing) ([P35])."""
    blocks = vit_blocks(model)
    info = model_info(model)
    a = blocks[0].attn
    fc1 = blocks[0].fc1
    c = int(a.linear("o").out_features)
    hidden = int(fc1.out_features)  # type: ignore[arg-type]
    return ViTSpec(embed_dim=c, depth=len(blocks), num_heads=a.num_heads, head_dim=c // a.num_heads,
                   mlp_hidden=hidden, num_patches=info.num_patches, patch_size=info.patch_size,
                   in_chans=info.in_chans, num_classes=info.num_classes, num_prefix_tokens=info.num_prefix_tokens,
                   pooler=info.pooler)


def _per_block(x: Any, name: str, depth: int, *, ints: bool, hi: float) -> list[float]:
    if x is None:
        return []
    a = real_array(x, name, ndim=1)
    if a.size != depth:
        raise ValueError(f"{name} needs one value per block ({depth}), got {a.size}")
    if ints and (np.any(a != np.round(a)) or np.any(a < 1) or np.any(a > hi)):
        raise ValueError(f"{name} must hold whole numbers in [1, {hi:g}], got {a.tolist()}")
    if not ints and (np.any(a < 0) or np.any(a >= hi)):
        raise ValueError(f"{name} must lie in [0, {hi:g}), got {a.tolist()}")
    return [float(v) for v in a]


def vit_macs(spec: ViTSpec | nn.Module, *, head_keep: Sequence[int] | Any | None = None,
             fc1_ratios: Sequence[float] | Any | None = None, fc2_ratios: Sequence[float] | Any | None = None,
             vo_keep: Sequence[int] | Any | None = None) -> MacCount:
    """MACs of one image through a ViT under a ToaSt schedule ([P35] FLOPs accounting; formula in the module doc).

    Args:
        spec: a :class:`ViTSpec`, or a model (read with :func:`vit_spec`).
        head_keep: dimensions kept per head in each block's Q/K (e.g. ``StructuredCoupledPruner.head_keep``);
            ``None``: all.
        fc1_ratios: per block, the TCS ratio of fc1's inputs dropped (``None``: 0).
        fc2_ratios: per block, the TCS ratio of the hidden units (fc2's inputs) dropped (``None``: 0).
        vo_keep: dimensions kept per head in V/O when they differ from ``head_keep`` (default: ``head_keep``).
    """
    if isinstance(spec, nn.Module):
        if any(isinstance(m, SelectedLinear) for m in spec.modules()):
            raise ValueError("spec: pass the ratios, not a model with channel selection attached")
        spec = vit_spec(spec)
    if not isinstance(spec, ViTSpec):
        raise TypeError(f"spec must be a ViTSpec or a ViT model, got {type(spec).__name__}")
    depth = spec.depth
    dqk = _per_block(head_keep, "head_keep", depth, ints=True, hi=spec.head_dim) or [spec.head_dim] * depth
    dvo = _per_block(vo_keep, "vo_keep", depth, ints=True, hi=spec.head_dim) or dqk
    r1 = _per_block(fc1_ratios, "fc1_ratios", depth, ints=False, hi=1.0) or [0.0] * depth
    r2 = _per_block(fc2_ratios, "fc2_ratios", depth, ints=False, hi=1.0) or [0.0] * depth
    n, c, h, f = spec.num_tokens, spec.embed_dim, spec.num_heads, spec.mlp_hidden
    blocks = []
    for i in range(depth):
        q, v = int(dqk[i]), int(dvo[i])
        c1, c2 = max(1, keep_count(c, r1[i])), max(1, keep_count(f, r2[i]))
        blocks.append({"q": n * c * h * q, "k": n * c * h * q, "v": n * c * h * v, "o": n * h * v * c,
                       "qk": h * n * n * q, "av": h * n * n * v, "fc1": n * c1 * f, "fc2": n * c2 * c})
    patch = spec.num_patches * c * spec.patch_size ** 2 * spec.in_chans
    return MacCount(patch_embed=patch, classifier=c * spec.num_classes + c * spec.pooler, blocks=blocks)
