"""The [P18] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``).

All four claims read the same two-route runs (one per seed, shared through ``ctx.shared`` by the run group
``two_route``): a 10%-noisy CVaR_0.2 expert, state/action demonstrations only, DistributionalIRL with its default
hyper-parameters against MaxEnt IRL and behaviour cloning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.dist_irl._checks import (
    check_fsd_decreases,
    check_iteration_complexity,
    check_reward_shape,
    check_risk_averse_imitation,
)
from icml26.papers.dist_irl._experiments import ExperimentConfig


@dataclass(frozen=True)
class DirlConfig:
    """Sizes of the shared run (see ExperimentConfig; ``fsd_step`` stays 500 at every budget)."""

    exp: ExperimentConfig = field(default_factory=ExperimentConfig)


SMOKE = DirlConfig(ExperimentConfig(n_demos=60, n_iter=200, n_quantiles=12, n_checkpoints=6))
SMALL = DirlConfig(ExperimentConfig(n_iter=2000, n_checkpoints=16))
FULL = DirlConfig(ExperimentConfig(n_demos=500, n_iter=20000, n_quantiles=51, n_checkpoints=16))

# one group: whichever claim runs first pays the shared runs (5 seeds x 6 fits at small)
BUDGETS = {
    "smoke": Budget(SMOKE, seeds=1, expected_s=5),
    "small": Budget(SMALL, seeds=5, expected_s=240),
    "full": Budget(FULL, seeds=10, expected_s=3600),
}

CLAIMS = [
    Claim("reward_shape", check=check_reward_shape, budgets=BUDGETS),
    Claim("risk_averse_imitation", check=check_risk_averse_imitation, budgets=BUDGETS),
    Claim("fsd_decreases", check=check_fsd_decreases, budgets=BUDGETS),
    Claim("iteration_complexity", check=check_iteration_complexity, budgets=BUDGETS),
]
