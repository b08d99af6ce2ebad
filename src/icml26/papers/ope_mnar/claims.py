"""The [P36] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``).

All four run on :class:`MNARSimulator` (S ∈ ℝ², A ∈ {0, 1}, T = 3, ≈ 42% of rewards missing, large rewards hidden)
with the truth from Monte Carlo rollouts of the target policy, missingness included; ``reps`` datasets per seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.ope_mnar._checks import (
    check_consistency,
    check_identification,
    check_mar_biased,
    check_missingness_policy,
)


@dataclass(frozen=True)
class OPEConfig:
    """Sample sizes, replicates per seed, Monte Carlo rollouts for the truth (notes: n = 500..4000, 100 reps, 10⁶)."""

    ns: tuple[int, ...] = (500, 1000, 2000, 4000)
    reps: int = 20
    n_mc: int = 1_000_000


SMOKE = OPEConfig(ns=(250, 500, 1000, 2000), reps=6, n_mc=150_000)
SMALL = OPEConfig(ns=(500, 1000, 2000, 4000), reps=40, n_mc=1_000_000)
FULL = OPEConfig(ns=(500, 1000, 2000, 4000, 8000, 16000), reps=40, n_mc=4_000_000)

#: expected seconds at small per claim (smoke: 3 s each; full: 20 min each)
_SMALL_S = {"consistency": 60, "mar_biased": 120, "missingness_policy": 45, "identification": 60}
_CHECKS = {"consistency": check_consistency, "mar_biased": check_mar_biased,
           "missingness_policy": check_missingness_policy, "identification": check_identification}

CLAIMS = [
    Claim(cid, check=check, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=3), "small": Budget(SMALL, seeds=5, expected_s=_SMALL_S[cid]),
        "full": Budget(FULL, seeds=5, expected_s=1200)})
    for cid, check in _CHECKS.items()
]
