"""Where the [P35] tools find the parts of a ViT: one view per block over transformers' ViT and :class:`PlainViT`.

Two layouts are read (by their attributes; transformers is never imported here):

- transformers >= 5 ``ViTForImageClassification`` / ``ViTModel``: ``vit.layers[i].attention.{q,k,v,o}_proj``,
  ``.mlp.fc1/fc2``; the attention returns ``(output, probabilities)`` when its implementation is ``eager``.
- :class:`~icml26.papers.toast._plainvit.PlainViT` (timm's names): ``blocks[i].attn.qkv`` (fused, rows Q | K | V),
  ``.attn.proj``, ``.mlp.fc1/fc2``; its attention always returns ``(output, probabilities)``.

Anything else is a ``TypeError`` naming ``model``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torch import nn

__all__ = ["AttnView", "BlockView", "ModelInfo", "model_info", "use_eager_attention", "vit_blocks"]


@dataclass
class AttnView:
    """One block's attention: the projections holding Q, K, V (row ``offset`` into a fused weight) and O."""

    module: nn.Module
    num_heads: int
    fused: bool

    def linear(self, role: str) -> nn.Linear:
        """The ``nn.Linear`` that holds ``role`` (``q``, ``k``, ``v`` or ``o``)."""
        if self.fused:
            return self.module.proj if role == "o" else self.module.qkv  # type: ignore[return-value]
        return getattr(self.module, f"{role}_proj")

    @property
    def head_dim(self) -> int:
        """Dimensions per head now (fewer after re-packing)."""
        return int(getattr(self.module, "head_dim"))

    def offset(self, role: str) -> int:
        """First row of ``role`` in its weight (0 except in a fused ``qkv``)."""
        if not self.fused or role == "o":
            return 0
        return {"q": 0, "k": 1, "v": 2}[role] * self.num_heads * self.head_dim

    def set_linear(self, role: str, layer: nn.Linear) -> None:
        """Put ``layer`` in ``role``'s place (for a fused ``qkv``, ``role`` is ``qkv``)."""
        if self.fused:
            setattr(self.module, "proj" if role == "o" else "qkv", layer)
        else:
            setattr(self.module, f"{role}_proj", layer)


@dataclass
class BlockView:
    """One transformer block: its index, its attention and the module holding ``fc1`` and ``fc2``."""

    index: int
    attn: AttnView
    mlp: nn.Module

    @property
    def fc1(self) -> nn.Module:
        return self.mlp.fc1  # type: ignore[return-value]

    @property
    def fc2(self) -> nn.Module:
        return self.mlp.fc2  # type: ignore[return-value]


@dataclass(frozen=True)
class ModelInfo:
    """What the MAC count needs beyond the blocks: tokens, patch embedding and classifier shapes."""

    kind: str  # "transformers" or "plain"
    num_patches: int
    num_prefix_tokens: int
    patch_size: int
    in_chans: int
    num_classes: int  # 0 when the model has no classification head
    pooler: int  # output width of transformers' pooler (0: none)


def _hf_root(model: nn.Module) -> Any:
    root = getattr(model, "vit", model)
    layers = getattr(root, "layers", None)
    if isinstance(layers, nn.ModuleList) and len(layers) and hasattr(getattr(layers[0], "attention", None), "q_proj") \
            and hasattr(root, "embeddings"):
        return root
    return None


def _is_plain(model: nn.Module) -> bool:
    blocks = getattr(model, "blocks", None)
    return isinstance(blocks, nn.ModuleList) and len(blocks) > 0 and hasattr(getattr(blocks[0], "attn", None), "qkv") \
        and hasattr(model, "patch_embed")


def vit_blocks(model: nn.Module) -> list[BlockView]:
    """The blocks of a supported ViT, in order ([P35] applies SCWP and TCS block by block)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch nn.Module (a transformers ViT or a PlainViT), got {type(model).__name__}")
    root = _hf_root(model)
    if root is not None:
        return [BlockView(i, AttnView(layer.attention, int(layer.attention.num_attention_heads), fused=False), layer.mlp)
                for i, layer in enumerate(root.layers)]
    if _is_plain(model):
        return [BlockView(i, AttnView(blk.attn, int(blk.attn.num_heads), fused=True), blk.mlp)
                for i, blk in enumerate(model.blocks)]  # type: ignore[arg-type]
    raise TypeError(f"model must be a transformers ViTForImageClassification/ViTModel (transformers >= 5) or a "
                    f"PlainViT, got {type(model).__name__}")


def model_info(model: nn.Module) -> ModelInfo:
    """Token count, patch and classifier shapes of a supported ViT."""
    vit_blocks(model)  # the type check
    root = _hf_root(model)
    if root is not None:
        pe = root.embeddings.patch_embeddings
        head = getattr(model, "classifier", None)
        pooler = getattr(root, "pooler", None)
        return ModelInfo("transformers", int(pe.num_patches), 1, int(pe.projection.kernel_size[0]),
                         int(pe.projection.in_channels),
                         int(head.out_features) if isinstance(head, nn.Linear) else 0,
                         int(pooler.dense.out_features) if pooler is not None else 0)
    pe = model.patch_embed
    head = getattr(model, "head", None)
    return ModelInfo("plain", int(pe.num_patches), 1, int(pe.proj.kernel_size[0]), int(pe.proj.in_channels),  # type: ignore[union-attr]
                     int(head.out_features) if isinstance(head, nn.Linear) else 0, 0)


def use_eager_attention(model: nn.Module) -> str | None:
    """Make a transformers ViT return its attention probabilities (the ``eager`` implementation); returns the
    implementation it had, to restore (``None`` for a PlainViT, whose attention always returns them)."""
    root = _hf_root(model)
    if root is None:
        return None
    cfg = getattr(model, "config", None)
    was = getattr(cfg, "_attn_implementation", None)
    if was != "eager":
        model.set_attn_implementation("eager")  # type: ignore[operator]
    return was
