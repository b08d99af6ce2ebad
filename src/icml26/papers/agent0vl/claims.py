"""The [P16] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``).

All four claims read the same runs (per seed: one cold start, both verifiers scored on it, every arm evolved from
it), shared through ``ctx.shared`` by the run group ``runs`` and cached under the cache folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.agent0vl._checks import (
    check_self_evolution_gain,
    check_text_only_gains_less,
    check_tool_grounded_verification,
    check_zero_reward_recovery,
)
from icml26.papers.agent0vl._runs import RunConfig
from icml26.papers.agent0vl._serc import SERCConfig


@dataclass(frozen=True)
class ComparisonConfig:
    run: RunConfig = field(default_factory=RunConfig)


SMOKE = ComparisonConfig(RunConfig(n_train=32, n_test=24, sft_steps=60, eval_samples=1,
                                   loop=SERCConfig(steps=2, batch=4, group=4)))
SMALL = ComparisonConfig(RunConfig())
FULL = ComparisonConfig(RunConfig(n_train=4000, n_test=500, sft_steps=2000, eval_samples=4,
                                  loop=SERCConfig(steps=60, batch=16, group=8),
                                  arms=("serc", "text_only", "text_trusting", "oracle", "no_repair")))

BUDGETS = {"smoke": Budget(SMOKE, seeds=1, expected_s=4),
           "small": Budget(SMALL, seeds=5, expected_s=240),
           "full": Budget(FULL, seeds=10, expected_s=7200)}

CLAIMS = [
    Claim("self_evolution_gain", check=check_self_evolution_gain, budgets=BUDGETS),
    Claim("tool_grounded_verification", check=check_tool_grounded_verification, budgets=BUDGETS),
    Claim("zero_reward_recovery", check=check_zero_reward_recovery, budgets=BUDGETS),
    Claim("text_only_gains_less", check=check_text_only_gains_less, budgets=BUDGETS),
]
