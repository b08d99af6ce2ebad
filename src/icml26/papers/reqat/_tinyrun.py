"""The tiny-model reproduction of [P11]'s training comparison (notes §4), one seed at a time, at an equal budget.

From one imperfect base model (trained on traces with corrupted steps), with B optimiser steps of the same batch size
for every method on the clean fine-tuning set D_FT:

- ``ft``: full-precision fine-tuning, B₁ steps then B₂ more (B = B₁ + B₂); ``ft_ptq``: ``ft`` then RTN W4A4KV4.
- ``qat``: W4A4KV4 QAT (straight-through estimator) from the base for B steps.
- ``taq``: TAQ, the first B₁ steps of ``ft``, then B₂ steps of QAT on D_TAQ ⊆ D_FT (the same traces again).
- ``reqat``: TAQ with Q-FIT at the start of the QAT stage and the SEM loss during it (the paper's TQS).

Every method is scored on the same held-out problems with the same sampling seed (answer accuracy of sampled traces).
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from torch import nn

from icml26.common.cache import cache_root, materialise
from icml26.papers.reqat._model import quantize_model
from icml26.papers.reqat._qfit import qfit
from icml26.papers.reqat._tiny import accuracy, clone, fit, tiny_reasoner
from icml26.papers.reqat._traces import make_problems, traces_dataset

__all__ = ["base_state", "run_seed"]

#: bumped when what the cached files hold changes
FORMAT = 1


def _model(cfg: Any, seed: int) -> nn.Module:
    return tiny_reasoner(d_model=cfg.d_model, n_layer=cfg.n_layer, n_head=cfg.n_head, block_size=cfg.block,
                         seed=seed)


def _problems(cfg: Any, n: int, seed: int, exclude: frozenset[tuple[int, ...]] = frozenset()) -> list[Any]:
    return make_problems(n, seed=seed, min_terms=cfg.min_terms, max_terms=cfg.max_terms, low=cfg.low, high=cfg.high,
                         exclude=exclude)


def _splits(cfg: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """Pretraining, fine-tuning and test problems: fixed by the config (seeds 1, 2, 3), pairwise disjoint."""
    test = _problems(cfg, cfg.n_test, 3)
    held = frozenset(p.terms for p in test)
    ft = _problems(cfg, cfg.n_ft, 2, held)
    pre = _problems(cfg, cfg.n_pre, 1, held | frozenset(p.terms for p in ft))
    return pre, ft, test


def _train_base(cfg: Any, seed: int) -> dict[str, torch.Tensor]:
    pre, _, _ = _splits(cfg)
    data = traces_dataset(pre, length=cfg.block, corrupt=cfg.corrupt, seed=seed)
    m = _model(cfg, seed)
    fit(m, data, steps=cfg.base_steps, lr=cfg.lr_base, batch_size=cfg.batch, seed=seed)
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def _key(cfg: Any, seed: int, what: str) -> dict[str, Any]:
    return {"what": what, "format": FORMAT, "seed": seed, "config": asdict(cfg)}


def base_state(cfg: Any, seed: int) -> dict[str, torch.Tensor]:
    """The base model's weights: trained from ``seed``, or read from the cache folder (``$ICML26_CACHE_DIR``,
    keyed by every config field and the seed) where there is one."""
    root = cache_root(None)
    if root is None:
        return _train_base(cfg, seed)

    def build(folder: Path) -> None:
        torch.save(_train_base(cfg, seed), folder / "base.pt")

    digest = _digest(_key(cfg, seed, "base"))
    folder = materialise(root / "reqat" / f"base-{digest}", key=_key(cfg, seed, "base"), build=build)
    buf = io.BytesIO((folder / "base.pt").read_bytes())
    return torch.load(buf, weights_only=True)


def _digest(key: dict[str, Any]) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def _score(cfg: Any, m: nn.Module, test: list[Any], seed: int) -> float:
    acc = accuracy(m, test, samples=cfg.samples, temperature=cfg.temperature, top_p=cfg.top_p, max_len=cfg.block,
                   seed=seed)
    return sum(acc) / len(acc)


def _quantised(m: nn.Module, cfg: Any, shifts: list[torch.Tensor] | None = None) -> Any:
    return quantize_model(m, cfg.scheme, weights=True, activations=True, kv=True, k_shift=shifts)


def _methods(cfg: Any, base: dict[str, torch.Tensor], seed: int) -> dict[str, float]:
    """Train every method from the base for seed ``seed`` and score it (accuracy of sampled answers)."""
    _, ft_problems, test = _splits(cfg)
    d_ft = traces_dataset(ft_problems, length=cfg.block)
    d_taq = d_ft.subset(max(1, round(cfg.taq_fraction * len(d_ft))))
    b2 = cfg.stage2_steps
    b1 = cfg.budget_steps - b2
    kw = {"lr": cfg.lr, "batch_size": cfg.batch}
    start = _model(cfg, 0)
    start.load_state_dict(base)
    out: dict[str, float] = {"base": _score(cfg, start, test, seed)}
    stage1 = clone(start)
    fit(stage1, d_ft, steps=b1, seed=seed, **kw)
    ft = clone(stage1)
    fit(ft, d_ft, steps=b2, seed=seed + 1, **kw)
    out["ft"] = _score(cfg, ft, test, seed)
    with _quantised(ft, cfg):
        out["ft_ptq"] = _score(cfg, ft, test, seed)
    qat = clone(start)
    with _quantised(qat, cfg):
        fit(qat, d_ft, steps=cfg.budget_steps, seed=seed, **kw)
        out["qat"] = _score(cfg, qat, test, seed)
    if cfg.ablation:
        taq = clone(stage1)
        with _quantised(taq, cfg):
            fit(taq, d_taq, steps=b2, seed=seed + 1, **kw)
            out["taq"] = _score(cfg, taq, test, seed)
    reqat = clone(stage1)
    calib = d_ft.x[: cfg.calib]
    calib = calib[:, : int((calib > 0).sum(1).min())]  # no padding in the calibration statistics
    fitted = qfit(reqat, calib, scheme=cfg.scheme, grid=cfg.qfit_grid)
    with _quantised(reqat, cfg, fitted.shifts):
        fit(reqat, d_taq, steps=b2, seed=seed + 1, sem_lambda=cfg.sem_lambda, **kw)
        out["reqat"] = _score(cfg, reqat, test, seed)
    return out


def run_seed(item: tuple[Any, dict[str, torch.Tensor], int]) -> list[dict[str, Any]]:
    """One seed of the comparison: rows ``{"seed", "method", "accuracy", "sequences"}`` (cached under the cache
    folder by config and seed where there is one)."""
    cfg, base, seed = item
    root = cache_root(None)
    if root is None:
        acc = _methods(cfg, base, seed)
    else:
        key = _key(cfg, seed, "methods")

        def build(folder: Path) -> None:
            (folder / "accuracy.json").write_text(json.dumps(_methods(cfg, base, seed)), encoding="utf-8")

        folder = materialise(root / "reqat" / f"methods-{_digest(key)}", key=key, build=build)
        acc = json.loads((folder / "accuracy.json").read_text(encoding="utf-8"))
    seqs = {"base": 0}
    return [{"seed": seed, "method": m, "accuracy": a,
             "sequences": seqs.get(m, cfg.budget_steps * cfg.batch)} for m, a in acc.items()]
