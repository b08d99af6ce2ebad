"""Tiny models shared by the [P35] tests (loaded by path: test file names repeat across papers)."""

from __future__ import annotations

import torch

from icml26.papers.toast import PlainViT, PlainViTConfig
from icml26.papers.toast._plainvit import seeded_init_


def plain(depth: int = 3, width: int = 32, heads: int = 4, seed: int = 0) -> PlainViT:
    """An untrained PlainViT on 8×8 one-channel images (17 tokens), eval mode."""
    return PlainViT(PlainViTConfig(embed_dim=width, depth=depth, num_heads=heads), seed=seed).eval()


def hf(depth: int = 3, width: int = 32, heads: int = 4, seed: int = 0, pooler: bool = False) -> torch.nn.Module:
    """An untrained transformers ViTForImageClassification (or ViTModel with a pooler) of the same shape."""
    from transformers import ViTConfig, ViTForImageClassification, ViTModel

    cfg = ViTConfig(image_size=8, patch_size=2, num_channels=1, hidden_size=width, num_hidden_layers=depth,
                    num_attention_heads=heads, intermediate_size=4 * width, num_labels=10)
    with torch.random.fork_rng(devices=[]):
        model = ViTModel(cfg, add_pooling_layer=True) if pooler else ViTForImageClassification(cfg)
    return seeded_init_(model, seed=seed, std=0.2).eval()


def out(model: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Logits (or the last hidden state of a ViTModel)."""
    if isinstance(model, PlainViT):
        return model(x)
    o = model(pixel_values=x)
    return o.logits if hasattr(o, "logits") else o.last_hidden_state


def images(n: int = 6, seed: int = 0) -> torch.Tensor:
    return torch.randn(n, 1, 8, 8, generator=torch.Generator().manual_seed(seed))
