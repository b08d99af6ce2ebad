"""Latency of a ViT before and after ToaSt at the paper's DeiT-S shape ([P35] throughput claim).

Speed does not depend on the weights' values, so the model is transformers' ``ViTForImageClassification`` at
DeiT-S's shape (224², patch 16, width 384, 12 blocks, 6 heads, FFN 1536) with seeded random weights. ToaSt is
SCWP re-packed into smaller dense projections plus TCS in ``gather`` mode (only the kept weight columns are
multiplied) with the paper's schedule; the dense model runs transformers' default (SDPA) attention, and the same
model with ``eager`` attention (what TCS needs to read the attention map) is timed beside it as a finding. Rounds
alternate the order of the models; each time is one forward pass of the batch, after one warm-up pass each.
"""

from __future__ import annotations

import copy
import time
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

from icml26.papers.toast._macs import vit_macs
from icml26.papers.toast._plainvit import seeded_init_
from icml26.papers.toast._scwp import StructuredCoupledPruner
from icml26.papers.toast._tcs import apply_toast

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.toast.claims import ThroughputConfig

__all__ = ["deit_shaped", "throughput_times"]


def deit_shaped(cfg: ThroughputConfig, *, seed: int) -> nn.Module:
    """The transformers ViT classifier at the configured shape, seeded random weights, eval mode."""
    from transformers import ViTConfig, ViTForImageClassification

    hf = ViTConfig(image_size=cfg.image_size, patch_size=cfg.patch_size, num_channels=3, hidden_size=cfg.embed_dim,
                   num_hidden_layers=cfg.depth, num_attention_heads=cfg.num_heads,
                   intermediate_size=cfg.mlp_ratio * cfg.embed_dim, num_labels=cfg.num_classes,  # type: ignore[call-arg]
                   qkv_bias=True)
    with torch.random.fork_rng(devices=[]):
        model = ViTForImageClassification(hf)
    return seeded_init_(model, seed=seed).eval()


def _timed(model: nn.Module, x: torch.Tensor, cuda: bool) -> float:
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.no_grad():
        model(pixel_values=x)
    if cuda:
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def throughput_times(task: tuple[ThroughputConfig, int]) -> dict[str, Any]:
    """Paired latencies of the dense model and of ToaSt, and the two MAC counts."""
    cfg, seed = task
    cuda = cfg.device == "cuda"
    dense = deit_shaped(cfg, seed=seed)
    pruner = StructuredCoupledPruner(copy.deepcopy(dense), cfg.sparsity)
    toast = pruner.repacked()
    handle = apply_toast(toast, list(cfg.fc1_ratios), list(cfg.fc2_ratios), mode="gather", sample_ratio=0.02,
                         seed=seed)
    eager = copy.deepcopy(dense)
    eager.set_attn_implementation("eager")  # type: ignore[operator]
    models = {"dense": dense, "toast": toast, "dense_eager": eager}
    if cuda:
        for m in models.values():
            m.to("cuda")
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(cfg.batch, 3, cfg.image_size, cfg.image_size, generator=g).to("cuda" if cuda else "cpu")
    for m in models.values():
        _timed(m, x, cuda)
    rows = []
    names = list(models)
    for r in range(cfg.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        rows.append({"round": r, **{f"{n}_s": _timed(models[n], x, cuda) for n in order}})
    handle.remove()
    macs_toast = vit_macs(dense, head_keep=pruner.head_keep, fc1_ratios=list(cfg.fc1_ratios),
                          fc2_ratios=list(cfg.fc2_ratios)).total
    return {"times": rows, "macs_dense": vit_macs(dense).total, "macs_toast": macs_toast,
            "device": torch.cuda.get_device_name() if cuda else "cpu"}
