"""The [P17] recipe at toy scale: pretrain -> mid-train on one data arm -> shared SFT -> evaluate.

One base model is pretrained per run (the paper starts every recipe from one base checkpoint); for each seed, every
arm starts from it, mid-trains on its own documents for the same
token budget (``"ctx_env_half"``: half of it; ``"none"``: no mid-training), then post-trains on the same
environmentally-native SFT set, and is evaluated on the same held-out bugs (training templates) and held-out-template
bugs with the agent loop, and on code completion of held-out-template functions (after mid-training, before SFT),
asked in each of the three formats the training texts show code in (plain, numbered, the file viewer's).
Task pools are disjoint per use (different task seeds); the held-out templates never appear in any training text.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.common import validation as V
from icml26.papers.agent_native._agent import FORMATS, completion_accuracy, resolve
from icml26.papers.agent_native._data import (
    contextual_trajectory,
    environmental_rollouts,
    pretrain_documents,
    static_documents,
)
from icml26.papers.agent_native._model import ModelSpec, make_model, train_on_tokens
from icml26.papers.agent_native._repo import Function, Task, heldout_templates, make_task
from icml26.papers.agent_native._sandbox import TestCache

__all__ = ["ARMS", "RunConfig", "arm_documents", "pretrain_base", "run_seed", "run_seeds"]

log = logging.getLogger(__name__)
ARMS = ("none", "static", "ctx", "env", "ctx_env", "ctx_env_half")
_POOLS = {"pre": 0, "mt": 1, "sft": 2, "eval": 3, "heldout": 4, "complete": 5}


@dataclass(frozen=True)
class RunConfig:
    """[P17] recipe at toy scale: sizes of one seed's run (tasks per pool, token budgets) and the model."""

    n_modules: int = 2
    n_funcs: int = 2
    pretrain_tasks: int = 600
    pretrain_tokens: int = 800_000
    mt_tasks: int = 600
    mt_tokens: int = 240_000  # the budget B of every full-budget arm
    sft_tasks: int = 200
    sft_tokens: int = 60_000
    eval_tasks: int = 30  # each of: held-out bugs (training templates), held-out templates
    complete_funcs: int = 60
    max_actions: int = 10
    window: int = 5
    p_wrong: float = 0.3
    arms: tuple[str, ...] = ARMS
    model: ModelSpec = field(default_factory=ModelSpec)
    paper_scale: bool = False  # the `full` budget: the paper's scale, not runnable here


def _tasks(cfg: RunConfig, seed: int, pool: str, n: int, heldout: bool = False) -> list[Task]:
    base = (seed * 10 + _POOLS[pool]) * 1_000_003
    return [make_task(seed=base + i, n_modules=cfg.n_modules, n_funcs=cfg.n_funcs, heldout=heldout) for i in range(n)]


def _heldout_functions(n: int, seed: int) -> list[Function]:
    g = np.random.default_rng([seed, _POOLS["complete"]])
    held = sorted(heldout_templates())
    out = []
    for i in range(n):
        t = held[i % len(held)]
        out.append(Function("alpha", tuple((k, int(g.integers(2, 10))) for k in t), (0, 1, 2)))
    return out


def arm_documents(arm: str, tasks: list[Task], *, seed: int, cfg: RunConfig, cache: TestCache) -> list[str]:
    """The mid-training documents of ``arm`` built from ``tasks`` ([P17] data arms; ``ctx_env`` pools both)."""
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
    if arm == "none":
        return []
    if arm == "static":
        return [d for t in tasks for d in static_documents(t)]
    ctx = [contextual_trajectory(t, window=cfg.window).to_text() for t in tasks] if arm != "env" else []
    env = [] if arm == "ctx" else [tr.to_text() for tr in environmental_rollouts(
        tasks, seed=seed, p_wrong=cfg.p_wrong, window=cfg.window, cache=cache)]
    docs = ctx + env
    order = np.random.default_rng([seed, 11]).permutation(len(docs))
    return [docs[i] for i in order]


def pretrain_base(cfg: RunConfig, seed: int) -> dict[str, Any]:
    """The pretrained base model's weights (one per run, like the paper's one base checkpoint) and its stats."""
    seed = V.seed(seed)
    base = make_model(cfg.model, seed=seed)
    pre = [d for t in _tasks(cfg, seed, "pre", cfg.pretrain_tasks) for d in pretrain_documents(t)]
    stats = train_on_tokens(base, pre, tokens=cfg.pretrain_tokens, spec=cfg.model, seed=seed)
    return {"weights": {k: v.clone() for k, v in base.state_dict().items()}, "loss": stats["loss"]}


def run_seed(item: tuple[RunConfig, int, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per arm for ``(cfg, seed, base)``: resolve rates (held-out bugs, held-out templates), completion
    accuracy per prompt format (``completion``: the model's best format), tokens used. The seed draws the mid-training, SFT and evaluation tasks and the training order."""
    cfg, seed, pre = item
    seed = V.seed(seed)
    cache = TestCache()
    spec = cfg.model
    base = make_model(spec, seed=seed)
    base.load_state_dict(pre["weights"])
    mt_tasks = _tasks(cfg, seed, "mt", cfg.mt_tasks)
    sft_docs = [t.to_text() for t in environmental_rollouts(_tasks(cfg, seed, "sft", cfg.sft_tasks), seed=seed + 1,
                                                              p_wrong=cfg.p_wrong, window=cfg.window, cache=cache)]
    ev_in = _tasks(cfg, seed, "eval", cfg.eval_tasks)
    ev_ho = _tasks(cfg, seed, "heldout", cfg.eval_tasks, heldout=True)
    funcs = _heldout_functions(cfg.complete_funcs, seed)
    docs: dict[str, list[str]] = {}
    rows = []
    for arm in cfg.arms:
        kind = "ctx_env" if arm == "ctx_env_half" else arm
        if kind not in docs:
            docs[kind] = arm_documents(kind, mt_tasks, seed=seed, cfg=cfg, cache=cache)
        model = copy.deepcopy(base)
        budget = 0 if arm == "none" else cfg.mt_tokens // (2 if arm == "ctx_env_half" else 1)
        mt = train_on_tokens(model, docs[kind], tokens=budget, spec=spec, seed=seed + 2) if budget else {"tokens": 0.0}
        by_fmt = {fmt: completion_accuracy(model, funcs, fmt=fmt) for fmt in FORMATS}
        acc = max(by_fmt.values())  # each model in the prompt format it completes best (the arms' formats differ)
        sft = train_on_tokens(model, sft_docs, tokens=cfg.sft_tokens, spec=spec, seed=seed + 3, actions_only=True)
        r_all, _ = resolve(model, ev_in + ev_ho, max_actions=cfg.max_actions, window=cfg.window, cache=cache)
        r_in, r_ho = r_all[:len(ev_in)], r_all[len(ev_in):]
        rows.append({"seed": seed, "arm": arm, "mt_tokens": mt["tokens"], "mt_budget": budget,
                     "mt_pool": len(docs[kind]), "resolve_bugs": float(np.mean(r_in)),
                     "resolve_templates": float(np.mean(r_ho)), "resolve": float(np.mean(r_in + r_ho)),
                     "n_eval": len(r_in) + len(r_ho), "completion": acc,
                     **{f"completion_{fmt}": v for fmt, v in by_fmt.items()}, "sft_loss": sft["loss"],
                     "pretrain_loss": pre["loss"], "sft_docs": len(sft_docs)})
        log.info("agent_native seed %d arm %s: resolve %.3f (bugs %.3f, templates %.3f), completion %.3f", seed, arm,
                 rows[-1]["resolve"], rows[-1]["resolve_bugs"], rows[-1]["resolve_templates"], acc)
    for r in rows:
        r["tests_executed"] = cache.executed
    return rows


def run_seeds(cfg: RunConfig, seeds: tuple[int, ...], mapper: Any = None) -> list[dict[str, Any]]:
    """[P17] recipe: every arm's rows for every seed (one pretrained base from the first seed; seeds through ``mapper``)."""
    if not seeds:
        raise ValueError("seeds must not be empty")
    pre = pretrain_base(cfg, seeds[0])
    items = [(cfg, s, pre) for s in seeds]
    out = mapper(run_seed, items) if mapper is not None else [run_seed(x) for x in items]
    return [r for rs in out for r in rs]
