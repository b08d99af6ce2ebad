"""The [P07] experiments: train ERM, the constrained scheme and deep supervision on each stand-in task, then measure
per-layer test losses, the in-distribution metric, the metric under a mid-layer perturbation and out of distribution.

A run is (task, method, seed). The seed fixes the data split, the noise, the dictionary, the initial weights and
the minibatch order, the same for every method (so methods pair up by seed). Trained weights and training curves
are cached under ``<cache>/descent_tf/`` (``$ICML26_CACHE_DIR``), keyed by every field of the task's config, the
training fields, the method, the seed and the library versions, and checked on every use
(:func:`icml26.common.cache.materialise`); without a cache folder runs train in memory.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.cache import cache_root, materialise
from icml26.papers.descent_tf._layers import LayerwiseModel, perturbed_state
from icml26.papers.descent_tf._models import lista_model, sequence_model
from icml26.papers.descent_tf._tasks import digit_rows, digits_split, gaussian_dictionary, moving_digits, sparse_codes
from icml26.papers.descent_tf._trainer import DescentConstrainedTrainer, TrainHistory

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.descent_tf.claims import DescentConfig

log = logging.getLogger(__name__)

FORMAT = 1  # bump when what a cached run holds changes
TASKS = ("denoise", "rows", "sparse")
#: which way each task's metric is better: NMSE lower, accuracy higher
KIND = {"denoise": "nmse", "rows": "accuracy", "sparse": "nmse"}


class ScaledMSE:
    """Per-sample mean squared error divided by a fixed energy (the training targets' mean square): an NMSE."""

    def __init__(self, scale: float) -> None:
        self.scale = float(scale)

    def __call__(self, pred: Tensor, target: Tensor) -> Tensor:
        return (pred - target).pow(2).flatten(1).mean(1) / self.scale


def cross_entropy(pred: Tensor, target: Tensor) -> Tensor:
    """Per-sample cross-entropy of class scores (B, C) against labels (B,)."""
    return F.cross_entropy(pred, target, reduction="none")


@dataclass
class TaskData:
    """One seed's data of one task: train, in-distribution test and out-of-distribution test sets, and the loss."""

    train: tuple[np.ndarray, np.ndarray]
    test: tuple[np.ndarray, np.ndarray]
    ood: tuple[np.ndarray, np.ndarray]
    loss: Any
    dictionary: np.ndarray | None = None


def task_data(task: str, cfg: DescentConfig, seed: int) -> TaskData:
    """The data of ``task`` for ``seed`` (notes §4: noise/speed shifts, pixel noise and image shifts, denser codes)."""
    if task == "denoise":
        c = cfg.denoise
        tr, _, te, _ = digits_split(test_size=c.test_size, seed=seed)
        tr = tr[:c.train_limit] if c.train_limit else tr
        train = moving_digits(tr, frames=c.frames, speed=c.speed, sigma=c.sigma, seed=seed + 1)
        test = moving_digits(te, frames=c.frames, speed=c.speed, sigma=c.sigma, seed=seed + 2)
        ood = moving_digits(te, frames=c.frames, speed=c.ood_speed, sigma=c.ood_sigma, seed=seed + 2)
        return TaskData(train, test, ood, ScaledMSE(float(np.mean(train[1] ** 2))))
    if task == "rows":
        r = cfg.rows
        tr, ytr, te, yte = digits_split(test_size=r.test_size, seed=seed)
        tr, ytr = (tr[:r.train_limit], ytr[:r.train_limit]) if r.train_limit else (tr, ytr)
        return TaskData((digit_rows(tr, noise=0.0, shift=0, seed=seed), ytr),
                        (digit_rows(te, noise=0.0, shift=0, seed=seed), yte),
                        (digit_rows(te, noise=r.ood_noise, shift=r.ood_shift, seed=seed + 3), yte), cross_entropy)
    if task == "sparse":
        s = cfg.sparse
        A = gaussian_dictionary(s.m, s.n, seed=seed)
        train = sparse_codes(A, count=s.train_size, density=s.density, noise=s.noise, seed=seed + 1)
        test = sparse_codes(A, count=s.test_size, density=s.density, noise=s.noise, seed=seed + 2)
        ood = sparse_codes(A, count=s.test_size, density=s.ood_density, noise=s.ood_noise, seed=seed + 3)
        return TaskData(train, test, ood, ScaledMSE(float(np.mean(train[1] ** 2))), dictionary=A)
    raise ValueError(f"task must be one of {TASKS}, got {task!r}")


def build(task: str, cfg: DescentConfig, seed: int, data: TaskData) -> tuple[LayerwiseModel, nn.Module]:
    """The freshly initialised model and readout of ``task`` (same for every method of one seed)."""
    if task == "denoise":
        c = cfg.denoise
        return sequence_model(encoder=c.encoder, d_in=64, d_out=64, seq_len=c.frames, n_layers=c.n_layers,
                              d_model=c.d_model, n_heads=c.n_heads, pool="none", seed=seed)
    if task == "rows":
        r = cfg.rows
        return sequence_model(encoder="tinygpt", d_in=8, d_out=10, seq_len=8, n_layers=r.n_layers,
                              d_model=r.d_model, n_heads=r.n_heads, pool="last", seed=seed)
    assert data.dictionary is not None
    return lista_model(data.dictionary, n_layers=cfg.sparse.n_layers, sparsity=cfg.sparse.sparsity)


def _task_cfg(task: str, cfg: DescentConfig) -> Any:
    return {"denoise": cfg.denoise, "rows": cfg.rows, "sparse": cfg.sparse}[task]


def _trainer(task: str, cfg: DescentConfig, method: str, seed: int, data: TaskData) -> DescentConstrainedTrainer:
    model, readout = build(task, cfg, seed, data)
    t = _task_cfg(task, cfg)
    return DescentConstrainedTrainer(model, readout, data.loss, method=method, epsilon=cfg.epsilon,
                                     dual_lr=cfg.dual_lr, lr=t.lr, seed=seed)


def cache_key(task: str, cfg: DescentConfig, method: str, seed: int) -> dict[str, Any]:
    """Everything that determines a trained run: the task's config, the training fields, method, seed, versions."""
    return {"format": FORMAT, "task": task, "config": dataclasses.asdict(_task_cfg(task, cfg)), "method": method,
            "seed": seed, "epsilon": cfg.epsilon, "dual_lr": cfg.dual_lr, "torch": torch.__version__,
            "transformers": _version("transformers")}


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _fit(tr: DescentConstrainedTrainer, task: str, cfg: DescentConfig, data: TaskData) -> TrainHistory:
    t = _task_cfg(task, cfg)
    return tr.fit(*data.train, epochs=t.epochs, batch_size=t.batch_size)


def _save(tr: DescentConstrainedTrainer, folder: Path) -> None:
    torch.save({"model": tr.model.state_dict(), "readout": tr.readouts[-1].state_dict(),
                "lambdas": tr.lambdas, "slacks": tr.slacks}, folder / "weights.pt")
    (folder / "history.json").write_text(json.dumps(tr.history.to_dict()), encoding="utf-8")


def trained(task: str, cfg: DescentConfig, method: str, seed: int, data: TaskData) -> DescentConstrainedTrainer:
    """The trainer of run (task, method, seed) after training: from the cache when there is one, else trained now."""
    tr = _trainer(task, cfg, method, seed, data)
    root = cache_root()
    if root is None:
        _fit(tr, task, cfg, data)
        return tr
    key = cache_key(task, cfg, method, seed)
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]

    def build_run(tmp: Path) -> None:
        fresh = _trainer(task, cfg, method, seed, data)
        _fit(fresh, task, cfg, data)
        _save(fresh, tmp)

    folder = materialise(root / "descent_tf" / f"{task}-{method}-s{seed}-{digest}", key=key, build=build_run)
    state = torch.load(folder / "weights.pt", weights_only=True)
    tr.model.load_state_dict(state["model"])
    tr.readouts[-1].load_state_dict(state["readout"])
    tr.lambdas, tr.slacks = state["lambdas"], state["slacks"]
    tr.history = TrainHistory.from_dict(json.loads((folder / "history.json").read_text(encoding="utf-8")))
    return tr


def _metric(tr: DescentConstrainedTrainer, kind: str, x: np.ndarray, y: np.ndarray) -> float:
    if kind == "accuracy":
        return float((tr.predict(x).argmax(-1).numpy() == y).mean())
    return float(tr.evaluate(x, y)[-1])


def run_one(item: tuple[str, str, int, DescentConfig]) -> dict[str, Any]:
    """Train (or load) run (task, method, seed) and measure it: one row ([P07] experiments)."""
    task, method, seed, cfg = item
    data = task_data(task, cfg, seed)
    tr = trained(task, cfg, method, seed, data)
    kind = KIND[task]
    L = tr.n_layers
    layer = max(1, L // 2)
    with perturbed_state(tr.model, layer=layer, scale=cfg.perturb_scale,  # type: ignore[arg-type]
                         generator=torch.Generator().manual_seed(10_000 + seed)):
        perturbed = _metric(tr, kind, *data.test)
    test, ood = tr.evaluate(*data.test).tolist(), tr.evaluate(*data.ood).tolist()
    log.info("descent_tf: %s %s seed %d done", task, method, seed)
    acc = kind == "accuracy"
    return {"task": task, "method": method, "seed": seed, "kind": kind, "n_layers": L, "layer_loss": test,
            "ood_layer_loss": ood, "id": _metric(tr, kind, *data.test) if acc else test[-1], "perturbed": perturbed,
            "ood": _metric(tr, kind, *data.ood) if acc else ood[-1], "perturb_layer": layer,
            "lambda_final": tr.lambdas.tolist(), "history": tr.history.to_dict()}


def all_rows(cfg: DescentConfig, seeds: tuple[int, ...]) -> list[dict[str, Any]]:
    """Every (task, method, seed) run of ``cfg`` (shared by the claims of the group ``runs``)."""
    return [run_one((task, method, s, cfg)) for task in cfg.tasks for s in seeds for method in cfg.methods]
