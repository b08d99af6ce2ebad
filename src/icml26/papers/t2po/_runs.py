"""One seed of [P15]'s comparison: the cold start, then every arm trained from it, each cached on disk.

The cold-start policy is keyed by the fields it depends on (environment, policy, demos, SFT) and the seed; each
arm's run by every field of :class:`TrainConfig`, the arm and the seed. Both live under
``<cache>/t2po/`` (``$ICML26_CACHE_DIR``, which ``icml26 reproduce`` sets inside its ``--out``); without a cache
folder everything is recomputed. A run's summary row holds what the claims compare (:func:`summarise`).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.common.cache import cached_value
from icml26.common.nn import TinyGPT
from icml26.papers.t2po._demos import demo_dataset, fit_demos
from icml26.papers.t2po._policy import make_policy
from icml26.papers.t2po._train import ARMS, TrainConfig, rl_run, task_set, vocab_of

__all__ = ["COLD_START_FIELDS", "run_seed", "summarise", "train_agent"]

FORMAT = 2  # bumped when what the cached files hold changes
COLD_START_FIELDS = ("env", "n", "max_turns", "maze_rooms", "maze_loops", "block_size", "d_model", "n_layer",
                     "n_head", "demo_episodes", "demo_max_think", "demo_idle", "sft_steps", "sft_lr",
                     "sft_batch")


def _key(cfg: TrainConfig, seed: int, what: str, names: tuple[str, ...] | None = None) -> dict[str, Any]:
    d = asdict(cfg)
    return {"format": FORMAT, "what": what, "seed": seed, **({k: d[k] for k in names} if names else d)}



def _cold_start(cfg: TrainConfig, seed: int) -> dict[str, torch.Tensor]:
    vocab = vocab_of(cfg, seed)
    tasks = task_set(cfg, seed)
    rng = np.random.default_rng([seed, 1])
    picks = [tasks[int(j)] for j in rng.integers(len(tasks), size=cfg.demo_episodes)]
    x, m = demo_dataset(picks[0].make, [t.options for t in picks], vocab, seed=seed, max_think=cfg.demo_max_think,
                        idle=cfg.demo_idle, block_size=cfg.block_size)
    model = make_policy(vocab, block_size=cfg.block_size, d_model=cfg.d_model, n_layer=cfg.n_layer,
                        n_head=cfg.n_head, seed=seed)
    fit_demos(model, x, m, steps=cfg.sft_steps, lr=cfg.sft_lr, batch_size=cfg.sft_batch, seed=seed)
    return model.state_dict()


def _arm(cfg: TrainConfig, arm: str, seed: int, start: dict[str, torch.Tensor]) -> dict[str, Any]:
    model = make_policy(vocab_of(cfg, seed), block_size=cfg.block_size, d_model=cfg.d_model, n_layer=cfg.n_layer,
                        n_head=cfg.n_head, seed=seed)
    model.load_state_dict(start)
    return rl_run(model, cfg, arm, seed=seed)


def summarise(cfg: TrainConfig, arm: str, seed: int, run: dict[str, Any]) -> dict[str, Any]:
    """The row the claims compare: final evaluation success; low-information turns and kept think tokens per
    turn averaged over the training rollouts; the evaluation curve's largest drop below its running maximum and
    whether it reaches ``collapse_drop`` (a collapse); and the curves themselves."""
    ev = [e["success"] for e in run["evals"]]
    peak = np.maximum.accumulate(ev)
    drop = float(np.max(peak - ev))
    tr = run["train"]
    mean = {k: float(np.mean([r[k] for r in tr])) for k in ("low_info", "think", "resample", "tokens", "overflow",
                                                            "grad_norm", "kl", "success", "forced")}
    forced = [r["forced_logp"] for r in tr if r["forced"] > 0]
    return {"env": cfg.env, "arm": arm, "seed": seed, "final_success": ev[-1], "initial_success": ev[0],
            "low_info": mean["low_info"], "think": mean["think"], "resample": mean["resample"],
            "tokens": mean["tokens"], "overflow": mean["overflow"], "train_success": mean["success"],
            "grad_norm": mean["grad_norm"], "max_grad_norm": float(max(r["grad_norm"] for r in tr)),
            "kl": mean["kl"], "forced": mean["forced"], "forced_logp": float(np.mean(forced)) if forced else 0.0,
            "drawdown": drop, "collapsed": drop >= cfg.collapse_drop,
            "eval_low_info": run["evals"][-1]["low_info"], "eval_think": run["evals"][-1]["think"],
            "curve_iterations": [e["iteration"] for e in run["evals"]], "curve_success": ev,
            "train_low_info": [r["low_info"] for r in tr], "train_think": [r["think"] for r in tr],
            "train_success_curve": [r["success"] for r in tr]}


def run_seed(item: tuple[TrainConfig, tuple[str, ...], int]) -> list[dict[str, Any]]:
    """Every arm of one seed ([P15] comparison): the cold start once, each arm from it; one summary row per arm."""
    cfg, arms, seed = item
    start = cached_value("t2po", _key(cfg, seed, "cold", COLD_START_FIELDS), "policy.pt",
                         lambda: _cold_start(cfg, seed))
    rows = []
    for arm in arms:
        run = cached_value("t2po", {**_key(cfg, seed, "rl"), "arm": arm}, "run.json",
                           lambda a=arm: _arm(cfg, a, seed, start))
        rows.append(summarise(cfg, arm, seed, run))
    return rows


def train_agent(cfg: TrainConfig, arm: str, *, seed: int) -> tuple[TinyGPT, dict[str, Any]]:
    """Train one arm of [P15]'s comparison from scratch: the noisy-expert cold start, then ``cfg.iterations``
    RL iterations (``arm`` in :data:`ARMS`: ``grpo``, ``gigpo``, ``t2po`` = GiGPO + TTI + TDS, or an ablation
    ``gigpo_tti`` / ``gigpo_tds``). Returns the
    trained policy and the run's curves (``"train"``: per iteration, ``"evals"``: the evaluation points). Nothing
    is cached."""
    if not isinstance(cfg, TrainConfig):
        raise TypeError(f"cfg must be a TrainConfig, got {type(cfg).__name__}")
    arm = validation.choice(arm, "arm", ARMS)
    seed = validation.seed(seed)
    task_set(cfg, seed)  # refuses an unknown environment before any training
    model = make_policy(vocab_of(cfg, seed), block_size=cfg.block_size, d_model=cfg.d_model, n_layer=cfg.n_layer,
                        n_head=cfg.n_head, seed=seed)
    model.load_state_dict(_cold_start(cfg, seed))
    return model, rl_run(model, cfg, arm, seed=seed)
