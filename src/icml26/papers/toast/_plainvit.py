"""A plain-torch ViT (DeiT-style: class token, learned positions, pre-norm blocks) with timm's attribute layout.

The attribute names follow timm's ``VisionTransformer`` (``patch_embed.proj``, ``cls_token``, ``pos_embed``,
``blocks[i].norm1/attn.qkv/attn.proj/norm2/mlp.fc1/mlp.fc2``, ``norm``, ``head``), so the [P35] tools read a timm
ViT the same way (untested here: timm is not installed). Attention is computed explicitly (no fused kernel) and
returns its probabilities beside its output, since Token Channel Selection weights patches by the class token's
attention. ``attn.head_dim`` and ``attn.scale`` are attributes, so that a re-packed block with fewer dimensions per
head keeps the original scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from icml26.common.validation import positive_int
from icml26.common.validation import seed as check_seed

__all__ = ["PlainViT", "PlainViTConfig", "seeded_init_"]


@dataclass(frozen=True)
class PlainViTConfig:
    """Shape of a :class:`PlainViT` ([P35] experiments: a DeiT-style ViT at a small size)."""

    image_size: int = 8
    patch_size: int = 2
    in_chans: int = 1
    embed_dim: int = 64
    depth: int = 4
    num_heads: int = 4
    mlp_ratio: int = 4
    num_classes: int = 10


class Attention(nn.Module):
    """Multi-head self-attention with a fused ``qkv`` projection; returns ``(output, probabilities)``."""

    def __init__(self, dim: int, num_heads: int) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        b, n, _ = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, self.num_heads * self.head_dim)
        return self.proj(out), attn


class Mlp(nn.Module):
    """The feed-forward network ``fc2(GELU(fc1(x)))``."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    """A pre-norm transformer block: ``x + attn(norm1(x))``, then ``x + mlp(norm2(x))``."""

    def __init__(self, dim: int, num_heads: int, hidden: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, num_heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = Mlp(dim, hidden)

    def forward(self, x: Tensor) -> Tensor:
        a, _ = self.attn(self.norm1(x))
        x = x + a
        return x + self.mlp(self.norm2(x))


class PatchEmbed(nn.Module):
    """Non-overlapping patches projected by a strided convolution."""

    def __init__(self, cfg: PlainViTConfig) -> None:
        super().__init__()
        self.patch_size = cfg.patch_size
        self.num_patches = (cfg.image_size // cfg.patch_size) ** 2
        self.proj = nn.Conv2d(cfg.in_chans, cfg.embed_dim, kernel_size=cfg.patch_size, stride=cfg.patch_size)

    def forward(self, x: Tensor) -> Tensor:
        return self.proj(x).flatten(2).transpose(1, 2)


class PlainViT(nn.Module):
    """A DeiT-style ViT classifier in plain torch, the [P35] methods' second architecture beside transformers' ViT.

    ``forward(pixel_values)`` returns the logits ``(B, num_classes)`` from the final class token. Parameters are
    drawn from a ``torch.Generator`` seeded with ``seed`` (:func:`seeded_init_`); the global RNGs are untouched.
    """

    def __init__(self, config: PlainViTConfig, *, seed: int) -> None:
        super().__init__()
        s = check_seed(seed)
        for name in ("image_size", "patch_size", "in_chans", "embed_dim", "depth", "num_heads", "mlp_ratio",
                     "num_classes"):
            positive_int(getattr(config, name), f"config.{name}")
        if config.image_size % config.patch_size or config.embed_dim % config.num_heads:
            raise ValueError("config: image_size must be a multiple of patch_size and embed_dim of num_heads")
        self.config = config
        c = config.embed_dim
        with torch.random.fork_rng(devices=[]):  # the layers' default init draws from the global RNG: restore it
            self.patch_embed = PatchEmbed(config)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, c))
            self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches + 1, c))
            self.blocks = nn.ModuleList(Block(c, config.num_heads, config.mlp_ratio * c) for _ in range(config.depth))
            self.norm = nn.LayerNorm(c, eps=1e-6)
            self.head = nn.Linear(c, config.num_classes)
        seeded_init_(self, seed=s)

    def forward(self, pixel_values: Tensor) -> Tensor:
        x = self.patch_embed(pixel_values)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x)[:, 0])


def seeded_init_(model: nn.Module, *, seed: int, std: float = 0.02) -> nn.Module:
    """Re-draw every parameter of ``model`` from ``torch.Generator(seed)`` (in place; [P35] experiments' init).

    LayerNorm weights 1, every other 1-D parameter (biases) 0, the rest N(0, std²) clipped at ±2 std (the ViT/DeiT
    truncated-normal init). Parameters are visited in sorted name order, so the draw does not depend on module order.
    """
    g = torch.Generator().manual_seed(check_seed(seed))
    norms = {id(m.weight) for m in model.modules() if isinstance(m, nn.LayerNorm) and m.weight is not None}
    with torch.no_grad():
        for _, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            if id(p) in norms:
                p.fill_(1.0)
            elif p.ndim == 1:
                p.zero_()
            else:
                p.copy_((torch.randn(p.shape, generator=g) * std).clamp_(-2 * std, 2 * std))
    return model
