"""The [P25] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.accordion._checks import (
    check_fold_kv,
    check_gap_vanishes,
    check_summary_completeness,
    check_throughput,
)
from icml26.papers.accordion._policy import PolicySpec
from icml26.papers.accordion._rl import RLSpec
from icml26.papers.accordion._runs import RunConfig
from icml26.papers.accordion._sft import SFTSpec
from icml26.papers.accordion._task import AccumulatorTask


@dataclass(frozen=True, kw_only=True)
class KVConfig:
    """``fold_kv``: the ``rl`` group's runs, and how many 6-step rollouts a mode the tokens/s timing generates."""

    run: RunConfig = field(default_factory=RunConfig)
    timing_rollouts: int = 64


@dataclass(frozen=True, kw_only=True)
class ThroughputConfig:
    """``throughput``: the runs whose RL policies are timed, the KV budget (cached tokens) and the repeats a seed."""

    run: RunConfig = field(default_factory=RunConfig)
    kv_budget: int = 64 * 172  # 64 concurrent well-formed 6-step Unfold rollouts
    repeats: int = 3


SMALL = RunConfig(rl=RLSpec(iterations=32), eval_problems=96, eval_samples=2)
SMOKE = RunConfig(task=AccumulatorTask(modulus=5, updates_per_step=3, min_steps=2, max_steps=3),
                  policy=PolicySpec(n_layer=1, n_head=2, d_model=16),
                  sft=SFTSpec(n_problems=64, steps=20, batch_size=8),
                  rl=RLSpec(iterations=2, prompts=2, group_size=4), eval_problems=8, eval_samples=1)
FULL = RunConfig(full_scale=True)

CLAIMS = [
    Claim("gap_vanishes", check=check_gap_vanishes, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3),
        "small": Budget(SMALL, seeds=3, expected_s=290),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("summary_completeness", check=check_summary_completeness, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3),
        "small": Budget(SMALL, seeds=3, expected_s=280),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("fold_kv", check=check_fold_kv, budgets={
        "smoke": Budget(KVConfig(run=SMOKE, timing_rollouts=4), seeds=1, expected_s=3),
        "small": Budget(KVConfig(run=SMALL), seeds=3, expected_s=280),
        "full": Budget(KVConfig(run=FULL), seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("throughput", check=check_throughput, budgets={
        "smoke": Budget(ThroughputConfig(run=SMOKE, kv_budget=4 * 25, repeats=1), seeds=1, expected_s=3),
        "small": Budget(ThroughputConfig(run=SMALL), seeds=3, expected_s=280),
        "full": Budget(ThroughputConfig(run=FULL), seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
]
