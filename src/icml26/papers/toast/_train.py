"""Building, training and evaluating the small ViTs of the [P35] experiments; trained weights cached on disk.

:func:`trained_vit` trains a ViT on the digits (:mod:`._data`) once per (:class:`TrainSpec`, seed) and keeps its
weights under ``<cache>/toast/`` (``cache_dir``, else ``$ICML26_CACHE_DIR``), keyed by every field of the spec, the
seed and the torch/transformers versions and checked on every use (:func:`icml26.common.cache.materialise`); with no
cache folder it trains in memory. :func:`fit` is the training loop of both training and fine-tuning: AdamW, a linear
warm-up over the first 10 % of the steps then a cosine decay to zero, batches from a seeded generator, and, given a
:class:`StructuredCoupledPruner`, its masks re-applied after every optimiser step.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from icml26.common.cache import cache_root, materialise
from icml26.common.validation import choice, positive_int, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.toast._data import ImageSplit, digits_split
from icml26.papers.toast._plainvit import PlainViT, PlainViTConfig, seeded_init_
from icml26.papers.toast._scwp import StructuredCoupledPruner

__all__ = ["ARCHS", "TrainSpec", "accuracy", "build_vit", "fit", "logits", "split_for", "trained_vit"]

ARCHS: tuple[str, ...] = ("transformers", "plain")


@dataclass(frozen=True)
class TrainSpec:
    """A small ViT on the digits and how it is trained ([P35] experiments; every field is part of the cache key)."""

    arch: str = "transformers"
    embed_dim: int = 64
    depth: int = 4
    num_heads: int = 4
    mlp_ratio: int = 4
    patch_size: int = 2
    epochs: int = 30
    lr: float = 1.5e-3
    batch_size: int = 64
    weight_decay: float = 0.05
    test_size: int = 360
    train_limit: int = 0
    split_seed: int = 0


def build_vit(spec: TrainSpec, *, seed: int) -> nn.Module:
    """A randomly initialised ViT for 8×8 one-channel images ([P35] experiments), drawn from ``seed`` (global RNGs
    kept): transformers' ``ViTForImageClassification`` or a :class:`PlainViT`, per ``spec.arch``."""
    arch = choice(spec.arch, "spec.arch", ARCHS)
    s = check_seed(seed)
    if arch == "plain":
        cfg = PlainViTConfig(image_size=8, patch_size=spec.patch_size, in_chans=1, embed_dim=spec.embed_dim,
                             depth=spec.depth, num_heads=spec.num_heads, mlp_ratio=spec.mlp_ratio, num_classes=10)
        return PlainViT(cfg, seed=s)
    from transformers import ViTConfig, ViTForImageClassification

    hf = ViTConfig(image_size=8, patch_size=spec.patch_size, num_channels=1, hidden_size=spec.embed_dim,
                   num_hidden_layers=spec.depth, num_attention_heads=spec.num_heads,
                   intermediate_size=spec.mlp_ratio * spec.embed_dim, num_labels=10,  # type: ignore[call-arg]
                   hidden_dropout_prob=0.0,
                   attention_probs_dropout_prob=0.0, qkv_bias=True)
    with torch.random.fork_rng(devices=[]):  # the constructor's own init draws from the global RNG: restore it
        model = ViTForImageClassification(hf)
    return seeded_init_(model, seed=s)


def logits(model: nn.Module, x: Tensor) -> Tensor:
    """Class scores of a transformers ViT or a PlainViT for images ``x`` ([P35] experiments)."""
    out = model(x) if isinstance(model, PlainViT) else model(pixel_values=x)
    return out if isinstance(out, Tensor) else out.logits


def _images(x: Any, y: Any) -> tuple[Tensor, Tensor]:
    """Images (B, C, H, W) as float32 and labels (B,) as int64, checked (a ValueError/TypeError naming them)."""
    xa = real_array(x.detach().cpu().numpy() if isinstance(x, Tensor) else x, "x", ndim=4, dtype=np.float32)
    ya = y.detach().cpu().numpy() if isinstance(y, Tensor) else y
    if isinstance(ya, np.ndarray) and ya.dtype.kind in "biu":
        ya = ya.astype(np.int64)
    else:
        ya = real_array(ya, "y", ndim=1)
        if np.any(ya != np.round(ya)):
            raise ValueError("y must hold integer class labels")
        ya = ya.astype(np.int64)
    if ya.ndim != 1 or ya.size == 0 or ya.size != xa.shape[0]:
        raise ValueError(f"y must be a non-empty 1-D label vector with one label per image ({xa.shape[0]}), "
                         f"got shape {ya.shape}")
    if ya.min() < 0:
        raise ValueError("y must hold class labels >= 0")
    return torch.from_numpy(np.ascontiguousarray(xa)), torch.from_numpy(ya)


def accuracy(model: nn.Module, x: Any, y: Any, *, batch_size: int = 64) -> float:
    """Top-1 accuracy in percent ([P35] experiments), in order in batches of ``batch_size`` (TCS selects per batch)."""
    bs = positive_int(batch_size, "batch_size")
    x, y = _images(x, y)
    was = model.training
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(y), bs):
            correct += int((logits(model, x[i:i + bs]).argmax(-1) == y[i:i + bs]).sum())
    model.train(was)
    return 100.0 * correct / len(y)


def fit(model: nn.Module, x: Any, y: Any, *, epochs: int, lr: float, batch_size: int, weight_decay: float,
        seed: int, pruner: StructuredCoupledPruner | None = None) -> list[float]:
    """Train ``model`` for ``epochs`` epochs (AdamW, warm-up then cosine); returns the mean loss of each epoch.

    With ``pruner``, its masks are re-applied after every optimiser step ([P35] SCWP fine-tuning).
    """
    x, y = _images(x, y)
    ep, bs = positive_int(epochs, "epochs"), positive_int(batch_size, "batch_size")
    lr_, wd = real(lr, "lr", lo=0.0, lo_open=True), real(weight_decay, "weight_decay", lo=0.0)
    gen = torch.Generator().manual_seed(check_seed(seed))
    per_epoch = math.ceil(len(y) / bs)
    total, warm = ep * per_epoch, max(1, round(0.1 * ep * per_epoch))
    opt = torch.optim.AdamW(model.parameters(), lr=lr_, weight_decay=wd)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda t: (t + 1) / warm if t < warm else 0.5 * (1 + math.cos(math.pi * (t - warm) / max(1, total - warm))))
    hook = pruner.attach(opt) if pruner is not None else None
    losses = []
    model.train()
    for _ in range(ep):
        perm, run = torch.randperm(len(y), generator=gen), 0.0
        for i in range(per_epoch):
            idx = perm[i * bs:(i + 1) * bs]
            loss = F.cross_entropy(logits(model, x[idx]), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            run += float(loss.detach()) * len(idx)
        losses.append(run / len(y))
    if hook is not None:
        hook.remove()
    model.eval()
    return losses


def split_for(spec: TrainSpec) -> ImageSplit:
    """The digits split a :class:`TrainSpec` trains and tests on."""
    return digits_split(test_size=spec.test_size, train_limit=spec.train_limit, seed=spec.split_seed)


def _versions() -> dict[str, str]:
    import importlib.metadata

    try:
        tf = importlib.metadata.version("transformers")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - the plain ViT needs no transformers
        tf = "none"
    return {"torch": torch.__version__, "transformers": tf, "format": "1"}


def _train_into(spec: TrainSpec, seed: int, folder: Path | None) -> nn.Module:
    data = split_for(spec)
    model = build_vit(spec, seed=seed)
    losses = fit(model, data.x_train, data.y_train, epochs=spec.epochs, lr=spec.lr, batch_size=spec.batch_size,
                 weight_decay=spec.weight_decay, seed=seed)
    if folder is not None:
        torch.save(model.state_dict(), folder / "model.pt")
        (folder / "train.json").write_text(json.dumps({"losses": losses}), encoding="utf-8")
    return model


def _build(spec: TrainSpec, seed: int, folder: Path) -> None:
    _train_into(spec, seed, folder)


def trained_vit(spec: TrainSpec, *, seed: int, cache_dir: str | Path | None = None) -> nn.Module:
    """A ViT trained on the digits by ``spec`` from ``seed`` (eval mode; [P35] experiments), cached under
    ``<cache>/toast/`` (``cache_dir``, else ``$ICML26_CACHE_DIR``)."""
    if not isinstance(spec, TrainSpec):
        raise TypeError(f"spec must be a TrainSpec, got {type(spec).__name__}")
    s = check_seed(seed)
    root = cache_root(cache_dir)
    if root is None:
        return _train_into(spec, s, None)
    key = {**dataclasses.asdict(spec), "seed": s, **_versions()}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    folder = materialise(root / "toast" / f"vit-{digest}", key=key, build=functools.partial(_build, spec, s))
    model = build_vit(spec, seed=s)
    model.load_state_dict(torch.load(folder / "model.pt", weights_only=True))
    return model.eval()
