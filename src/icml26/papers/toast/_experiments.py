"""One seed of each [P35] experiment: module-level functions of ``(config, seed)`` (they may run in a worker).

Every function starts from the ViT that :func:`._train.trained_vit` trains for the seed (cached on disk), so the
claims of one run share their training; a pruned-and-fine-tuned model is cached the same way (:func:`finetuned`),
keyed by the training spec, the pruning spec and the seed. The dense control of the budget claim is the same
fine-tuning at sparsity 0: the same epochs, learning rate and batches as the pruned model's.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

from icml26.common.cache import cache_root, materialise
from icml26.papers.toast._baselines import (
    calibrated_channels,
    calibrated_importance,
    magnitude_channels,
    random_channels,
)
from icml26.papers.toast._macs import vit_macs, vit_spec
from icml26.papers.toast._scwp import StructuredCoupledPruner
from icml26.papers.toast._tcs import apply_static_selection, apply_toast
from icml26.papers.toast._train import TrainSpec, _versions, accuracy, build_vit, fit, split_for, trained_vit

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.toast.claims import BudgetConfig, CouplingConfig, TcsConfig

__all__ = ["PruneSpec", "budget_rows", "coupling_rows", "finetuned", "last_blocks", "tcs_rows"]


@dataclass(frozen=True)
class PruneSpec:
    """SCWP then fine-tuning with the masks kept (sparsity 0: plain fine-tuning, the dense control)."""

    sparsity: float
    score: str = "gm"
    coupling: str = "coupled"
    epochs: int = 8
    lr: float = 5e-4


def last_blocks(depth: int, n: int, ratio: float) -> list[float]:
    """A per-block schedule with ``ratio`` in the last ``n`` blocks and 0 elsewhere."""
    return [ratio if i >= depth - n else 0.0 for i in range(depth)]


def _finetune(spec: TrainSpec, prune: PruneSpec, seed: int) -> tuple[nn.Module, dict[str, Any]]:
    model = trained_vit(spec, seed=seed)
    data = split_for(spec)
    pruner = StructuredCoupledPruner(model, prune.sparsity, score=prune.score, coupling=prune.coupling) \
        if prune.sparsity > 0 else None
    oneshot = accuracy(model, data.x_test, data.y_test)
    fit(model, data.x_train, data.y_train, epochs=prune.epochs, lr=prune.lr, batch_size=spec.batch_size,
        weight_decay=spec.weight_decay, seed=seed, pruner=pruner)
    head_keep = pruner.head_keep if pruner is not None else [vit_spec(model).head_dim] * spec.depth
    info = {"oneshot": oneshot, "finetuned": accuracy(model, data.x_test, data.y_test), "head_keep": head_keep}
    return model, info


def _write(spec: TrainSpec, prune: PruneSpec, seed: int, folder: Path) -> None:
    model, info = _finetune(spec, prune, seed)
    torch.save(model.state_dict(), folder / "model.pt")
    (folder / "result.json").write_text(json.dumps(info), encoding="utf-8")


def finetuned(spec: TrainSpec, prune: PruneSpec, seed: int) -> tuple[nn.Module, dict[str, Any]]:
    """The seed's trained ViT pruned by ``prune`` and fine-tuned (masks kept), with its one-shot and fine-tuned
    test accuracies and ``head_keep``; cached under ``<cache>/toast/`` when there is a cache folder."""
    root = cache_root()
    if root is None:
        return _finetune(spec, prune, seed)
    key = {"spec": dataclasses.asdict(spec), "prune": dataclasses.asdict(prune), "seed": seed, **_versions()}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    folder = materialise(root / "toast" / f"ft-{digest}", key=key, build=functools.partial(_write, spec, prune, seed))
    model = build_vit(spec, seed=seed)
    model.load_state_dict(torch.load(folder / "model.pt", weights_only=True))
    return model.eval(), json.loads((folder / "result.json").read_text(encoding="utf-8"))


def _acc_with(model: nn.Module, data: Any, keep: dict[tuple[int, str], torch.Tensor]) -> float:
    with apply_static_selection(model, keep):
        return accuracy(model, data.x_test, data.y_test)


def tcs_rows(task: tuple[TcsConfig, int]) -> list[dict[str, Any]]:
    """TCS and the fixed-subset baselines on fc2 of the last blocks, at each ratio: test accuracy per method."""
    cfg, seed = task
    model = trained_vit(cfg.model, seed=seed)
    data = split_for(cfg.model)
    base = {"seed": seed}
    rows = [{**base, "ratio": 0.0, "method": "dense", "accuracy": accuracy(model, data.x_test, data.y_test)}]
    opts = {"cls_weight": cfg.cls_weight, "seed": seed}
    where = [i for i, r in enumerate(last_blocks(cfg.model.depth, cfg.blocks, 1.0)) if r > 0]
    calib = calibrated_importance(model, where, data.x_train, site="fc2", cls_weight=cfg.cls_weight)
    for r in cfg.ratios:
        sched = last_blocks(cfg.model.depth, cfg.blocks, r)
        with apply_toast(model, None, sched, sample_ratio=cfg.sample_ratio, **opts):
            rows.append({**base, "ratio": r, "method": "tcs", "accuracy": accuracy(model, data.x_test, data.y_test)})
        rand = [_acc_with(model, data, random_channels(model, sched, site="fc2", seed=1000 * seed + d))
                for d in range(cfg.random_draws)]
        rows.append({**base, "ratio": r, "method": "random", "accuracy": sum(rand) / len(rand)})
        rows.append({**base, "ratio": r, "method": "magnitude",
                     "accuracy": _acc_with(model, data, magnitude_channels(model, sched, site="fc2"))})
        rows.append({**base, "ratio": r, "method": "calibrated",
                     "accuracy": _acc_with(model, data, calibrated_channels(calib, sched, site="fc2"))})
    sched = last_blocks(cfg.model.depth, cfg.blocks, cfg.judged_ratio)
    for name, extra in (("tcs_all_patches", {"sample_ratio": 1.0}),
                        ("tcs_per_sample", {"sample_ratio": cfg.sample_ratio, "per_sample": True})):
        with apply_toast(model, None, sched, **extra, **opts):  # type: ignore[arg-type]
            rows.append({**base, "ratio": cfg.judged_ratio, "method": name,
                         "accuracy": accuracy(model, data.x_test, data.y_test)})
    return rows


def coupling_rows(task: tuple[CouplingConfig, int]) -> list[dict[str, Any]]:
    """SCWP with each coupling, the same fine-tuning after: one-shot and fine-tuned test accuracy per coupling."""
    cfg, seed = task
    rows = []
    for coupling in ("coupled", *cfg.variants):
        prune = PruneSpec(cfg.sparsity, "gm", coupling, cfg.ft_epochs, cfg.ft_lr)
        _, info = finetuned(cfg.model, prune, seed)
        rows.append({"seed": seed, "coupling": coupling, "oneshot": info["oneshot"], "finetuned": info["finetuned"]})
    return rows


def budget_rows(task: tuple[BudgetConfig, int]) -> list[dict[str, Any]]:
    """Dense, dense fine-tuned (the control), SCWP fine-tuned and SCWP + TCS (ToaSt): accuracies and MACs."""
    cfg, seed = task
    data = split_for(cfg.model)
    dense = trained_vit(cfg.model, seed=seed)
    _, control = finetuned(cfg.model, PruneSpec(0.0, epochs=cfg.ft_epochs, lr=cfg.ft_lr), seed)
    model, info = finetuned(cfg.model, PruneSpec(cfg.sparsity, "gm", "coupled", cfg.ft_epochs, cfg.ft_lr), seed)
    with apply_toast(model, cfg.fc1_ratios, cfg.fc2_ratios, cls_weight=cfg.cls_weight, sample_ratio=cfg.sample_ratio,
                     seed=seed):
        toast = accuracy(model, data.x_test, data.y_test)
    macs = vit_macs(model, head_keep=info["head_keep"], fc1_ratios=cfg.fc1_ratios, fc2_ratios=cfg.fc2_ratios)
    return [{"seed": seed, "dense": accuracy(dense, data.x_test, data.y_test), "dense_ft": control["finetuned"],
             "scwp": info["finetuned"], "toast": toast, "macs_dense": vit_macs(model).total, "macs_toast": macs.total,
             "mhsa_dense": vit_macs(model).mhsa, "mhsa_toast": macs.mhsa, "ffn_toast": macs.ffn}]
