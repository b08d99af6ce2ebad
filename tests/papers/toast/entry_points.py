"""The public entry points of [P35] for the bad-input conformance test.

The functions that change a model in place (pruning, attaching TCS, training) get a fresh tiny model per call, so
that one valid call does not change what the next call receives.
"""

from typing import Any

import numpy as np
import torch

from icml26.papers.toast import (
    PlainViT,
    PlainViTConfig,
    StructuredCoupledPruner,
    TrainSpec,
    ViTSpec,
    accuracy,
    apply_toast,
    build_vit,
    channel_importance,
    digits_split,
    fit,
    head_importance,
    kept_channels,
    vit_macs,
)
from support.badinput import Entry

_CFG = PlainViTConfig(embed_dim=16, depth=2, num_heads=2)
_g = np.random.default_rng(0)
_Q, _K, _V, _O = (_g.normal(size=(4, 6)) for _ in range(4))
_X = _g.normal(size=(2, 5, 6)).astype(np.float32)
_A = _g.dirichlet(np.ones(5), size=2).astype(np.float32)
_SPEC = ViTSpec(embed_dim=8, depth=2, num_heads=2, head_dim=4, mlp_hidden=16, num_patches=4, patch_size=2,
                in_chans=1, num_classes=3)
_IMG = torch.randn(4, 1, 8, 8, generator=torch.Generator().manual_seed(0)).numpy()
_LAB = np.array([0, 1, 2, 3])


def _fresh() -> PlainViT:
    return PlainViT(_CFG, seed=0)


def prune_fresh(**kw: Any) -> StructuredCoupledPruner:
    return StructuredCoupledPruner(_fresh(), **kw)


def toast_fresh(**kw: Any) -> None:
    apply_toast(_fresh(), **kw).remove()


def fit_fresh(**kw: Any) -> list[float]:
    return fit(_fresh(), **kw)


def accuracy_fresh(**kw: Any) -> float:
    return accuracy(_fresh(), **kw)


ENTRY_POINTS = [
    Entry("head_importance", head_importance, valid={"q": _Q, "k": _K, "v": _V, "o_t": _O, "score": "gm",
                                                     "coupling": "coupled"},
          kinds={"q": "array", "k": "array", "v": "array", "o_t": "array", "score": "str", "coupling": "str"}),
    Entry("StructuredCoupledPruner", prune_fresh, valid={"sparsity": 0.5, "score": "l1", "coupling": "average"},
          kinds={"sparsity": "real", "score": "str", "coupling": "str"}),
    Entry("channel_importance", channel_importance,
          valid={"tokens": _X, "cls_attn": _A, "cls_weight": 2.0, "sample_ratio": 0.5, "seed": 0},
          kinds={"tokens": "array", "cls_attn": "array", "cls_weight": "nonneg", "sample_ratio": "posreal",
                 "seed": "seed"},
          skip={"sample_ratio:inf": "refused as above 1, which names it too"}),
    Entry("kept_channels", kept_channels, valid={"importance": np.array([0.3, 0.1, 0.5]), "ratio": 0.5},
          kinds={"importance": "array", "ratio": "real"},
          skip={"importance:extra_dim": "a (1, C) importance is the per-image form, valid"}),
    Entry("apply_toast", toast_fresh,
          valid={"fc1_ratios": np.array([0.0, 0.3]), "fc2_ratios": np.array([0.0, 0.5]), "cls_weight": 2.0,
                 "sample_ratio": 0.5, "mode": "gather", "seed": 0},
          kinds={"fc1_ratios": "array", "fc2_ratios": "array", "cls_weight": "nonneg", "sample_ratio": "posreal",
                 "mode": "str", "seed": "seed"}),
    Entry("vit_macs", vit_macs,
          valid={"spec": _SPEC, "head_keep": np.array([4, 2]), "fc1_ratios": np.array([0.0, 0.25]),
                 "fc2_ratios": np.array([0.0, 0.5])},
          kinds={"head_keep": "array", "fc1_ratios": "array", "fc2_ratios": "array"}),
    Entry("PlainViT", PlainViT, valid={"config": _CFG, "seed": 0}, kinds={"seed": "seed"}),
    Entry("build_vit", build_vit, valid={"spec": TrainSpec(arch="plain", embed_dim=8, depth=1, num_heads=2), "seed": 0},
          kinds={"seed": "seed"}),
    Entry("digits_split", digits_split, valid={"test_size": 100, "train_limit": 50, "seed": 0},
          kinds={"test_size": "int", "train_limit": "int", "seed": "seed"}),
    Entry("fit", fit_fresh, valid={"x": _IMG, "y": _LAB, "epochs": 1, "lr": 1e-3, "batch_size": 2,
                                   "weight_decay": 0.0, "seed": 0},
          kinds={"x": "array", "y": "array", "epochs": "int", "lr": "posreal", "batch_size": "int",
                 "weight_decay": "nonneg", "seed": "seed"}),
    Entry("accuracy", accuracy_fresh, valid={"x": _IMG, "y": _LAB, "batch_size": 2},
          kinds={"x": "array", "y": "array", "batch_size": "int"}),
]
