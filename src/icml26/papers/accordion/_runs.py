"""One seed of the [P25] reproduction, end to end: cold-start SFT, evaluation, mixed RL, evaluation; cached.

:func:`seed_run` returns a JSON-able record (the evaluations of both checkpoints in both modes, the KV accounting on
the longest programs, the SFT losses and the RL curves) and the RL policy. The record and the policy's weights are
cached under ``<cache>/accordion/run-<digest>/`` keyed by every field of the run's config and the seed (the SFT
checkpoint under its own key), so the claims of one run group that are run one at a time train once.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from icml26.common.cache import cache_root, materialise
from icml26.common.nn import TinyGPT
from icml26.papers.accordion._eval import evaluate_policy, mode_summary
from icml26.papers.accordion._policy import PolicySpec, make_policy
from icml26.papers.accordion._rl import RLSpec, train_mixed
from icml26.papers.accordion._sft import SFTSpec, sft_policy
from icml26.papers.accordion._task import AccumulatorTask, make_problems

__all__ = ["RunConfig", "kv_rows", "policy_from", "record_and_weights", "run_seeds", "seed_run"]

CACHE_VERSION = 1
Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """What one seed of the reproduction does (all of it is the cache key)."""

    task: AccumulatorTask = field(default_factory=AccumulatorTask)
    policy: PolicySpec = field(default_factory=PolicySpec)
    sft: SFTSpec = field(default_factory=SFTSpec)
    rl: RLSpec = field(default_factory=RLSpec)
    eval_problems: int = 256
    eval_samples: int = 2
    full_scale: bool = False  # the paper's scale: unsupported here


def kv_rows(rows: list[dict[str, Any]], steps: int) -> dict[str, float]:
    """Mean peak KV and the share of finished rollouts per mode, over the rollouts of ``steps``-step programs (the
    peak over finished rollouts only, NaN when none finished)."""
    out: dict[str, float] = {}
    for mode in ("fold", "unfold"):
        rs = [r for r in rows if r["mode"] == mode and r["steps"] == steps]
        done = [r for r in rs if r["finished"]]
        out[f"{mode}_finished"] = len(done) / len(rs) if rs else float("nan")
        out[f"{mode}_peak"] = sum(r["peak_kv"] for r in done) / len(done) if done else float("nan")
        out[f"{mode}_rollouts"] = float(len(rs))
    return out


def _evaluate(model: TinyGPT, cfg: RunConfig, seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    problems = make_problems(cfg.task, cfg.eval_problems, split="eval", seed=seed + 7919)
    rows = evaluate_policy(model, cfg.task, problems, samples=cfg.eval_samples, seed=seed + 104729)
    return rows, {**mode_summary(rows), "kv": kv_rows(rows, cfg.task.max_steps),
                  "by_steps": {str(s): mode_summary([r for r in rows if r["steps"] == s])
                               for s in range(cfg.task.min_steps, cfg.task.max_steps + 1)}}


def _train(cfg: RunConfig, seed: int, cache_dir: str | Path | None) -> tuple[dict[str, Any], TinyGPT]:
    sft, losses = sft_policy(cfg.task, cfg.policy, cfg.sft, seed=seed, cache_dir=cache_dir)
    _, sft_eval = _evaluate(sft, cfg, seed)
    model = copy.deepcopy(sft)
    hist = train_mixed(model, cfg.task, cfg.rl, seed=seed + 1)
    _, rl_eval = _evaluate(model, cfg, seed)
    record = {"seed": seed, "sft_losses": losses, "sft": sft_eval, "rl": rl_eval, "history": dataclasses.asdict(hist),
              "n_params": model.n_params()}
    return record, model


def _build(cfg: RunConfig, seed: int, cache_dir: str | Path | None, folder: Path) -> None:
    record, model = _train(cfg, seed, cache_dir)
    (folder / "record.json").write_text(json.dumps(record), encoding="utf-8")
    torch.save(model.state_dict(), folder / "rl.pt")


def seed_run(cfg: RunConfig, seed: int, *, cache_dir: str | Path | None = None) -> tuple[dict[str, Any], TinyGPT]:
    """The record and the RL policy of one seed of the [P25] reproduction (cached; see the module docstring)."""
    root = cache_root(cache_dir)
    if root is None:
        return _train(cfg, seed, None)
    key = {"config": dataclasses.asdict(cfg), "seed": seed, "torch": torch.__version__, "version": CACHE_VERSION}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    folder = materialise(root / "accordion" / f"run-{digest}", key=key,
                         build=functools.partial(_build, cfg, seed, cache_dir))
    model = make_policy(cfg.policy, vocab_size=cfg.task.vocab_size, block_size=cfg.task.block_size, seed=seed)
    model.load_state_dict(torch.load(folder / "rl.pt", weights_only=True))
    return json.loads((folder / "record.json").read_text(encoding="utf-8")), model.eval()


def record_and_weights(item: tuple[RunConfig, int]) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """:func:`seed_run`'s record and the RL policy's weights for ``(cfg, seed)`` (module-level, for ``ctx.map``)."""
    record, model = seed_run(item[0], item[1])
    return record, model.state_dict()


def run_seeds(cfg: RunConfig, seeds: tuple[int, ...], mapper: Mapper | None
              ) -> list[tuple[dict[str, Any], dict[str, torch.Tensor]]]:
    """Records and RL weights of ``seeds`` (through ``mapper`` when the runner gives one), shared by the run group."""
    items = [(cfg, s) for s in seeds]
    return list(mapper(record_and_weights, items)) if mapper is not None else [record_and_weights(x) for x in items]


def policy_from(cfg: RunConfig, weights: dict[str, torch.Tensor]) -> TinyGPT:
    """The RL policy rebuilt from its weights."""
    model = make_policy(cfg.policy, vocab_size=cfg.task.vocab_size, block_size=cfg.task.block_size, seed=0)
    model.load_state_dict(weights)
    return model.eval()
