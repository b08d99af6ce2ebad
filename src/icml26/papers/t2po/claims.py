"""The [P15] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``).

All four claims read the same runs (one cold start and three arms per seed and environment), shared through
``ctx.shared`` by the run group ``runs`` and cached under the cache folder keyed by every field of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.t2po._checks import (
    check_fewer_collapses,
    check_fewer_low_info_turns,
    check_fewer_think_tokens,
    check_higher_success,
)
from icml26.papers.t2po._train import TrainConfig


@dataclass(frozen=True)
class ComparisonConfig:
    runs: tuple[TrainConfig, ...] = field(default_factory=lambda: (TrainConfig(),))
    baselines: tuple[str, ...] = ("grpo", "gigpo")
    ablations: tuple[str, ...] = ("gigpo_tti", "gigpo_tds")  # GiGPO with one intervention each: findings only


SMOKE = ComparisonConfig(runs=(TrainConfig(demo_episodes=96, sft_steps=20, sft_batch=32, iterations=2, prompts=2,
                                           group=4, eval_every=2, eval_samples=1),), ablations=())
SMALL = ComparisonConfig(runs=(TrainConfig(),))
FULL = ComparisonConfig(runs=(TrainConfig(sft_steps=600, iterations=300, prompts=16, group=8, eval_samples=8),
                              TrainConfig(env="maze", max_turns=10, sft_steps=600, iterations=300, prompts=16, group=8,
                                          eval_samples=8)))


BUDGETS = {"smoke": Budget(SMOKE, seeds=1, expected_s=5),
           "small": Budget(SMALL, seeds=3, expected_s=280),
           "full": Budget(FULL, seeds=10, expected_s=7200)}


CLAIMS = [
    Claim("higher_success", check=check_higher_success, budgets=BUDGETS),
    Claim("fewer_low_info_turns", check=check_fewer_low_info_turns, budgets=BUDGETS),
    Claim("fewer_think_tokens", check=check_fewer_think_tokens, budgets=BUDGETS),
    Claim("fewer_collapses", check=check_fewer_collapses, budgets=BUDGETS),
]
