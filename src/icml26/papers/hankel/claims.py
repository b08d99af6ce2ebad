"""The [P03] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.hankel._checks import check_faster_than_baselines, check_kappa_free_rate, check_recovery_rate


@dataclass(frozen=True)
class RateConfig:
    n: int = 511
    rank: int = 10
    ratio: float = 0.3
    kappas: tuple[float, ...] = (1.0, 10.0, 1e2, 1e3, 1e4)
    tol: float = 1e-10
    max_iter: int = 1000


@dataclass(frozen=True)
class GridConfig:
    n: int = 511
    rank: int = 10
    kappas: tuple[float, ...] = (1.0, 1e2, 1e4)
    ratios: tuple[float, ...] = (0.2, 0.3)
    damped: tuple[bool, ...] = (False, True)
    tol: float = 1e-10
    max_iter: int = 1000
    judge_time: bool = True  # smoke: one trial gives no CI on time, so the time half stays undecided


@dataclass(frozen=True)
class RecoveryConfig:
    n: int = 255
    rank: int = 8
    kappa: float = 1.0
    ratios: tuple[float, ...] = (0.10, 0.15, 0.20, 0.25, 0.30, 0.40)
    success: float = 1e-3  # relative error that counts as recovered
    max_iter: int = 500


CLAIMS = [
    Claim("kappa_free_rate", check=check_kappa_free_rate, budgets={
        "smoke": Budget(RateConfig(n=127, rank=4, kappas=(1.0, 100.0), max_iter=300), seeds=1, expected_s=2),
        "small": Budget(RateConfig(), seeds=5, expected_s=60),
        "full": Budget(RateConfig(n=4095, rank=20), seeds=10, expected_s=900),
    }),
    Claim("faster_than_baselines", check=check_faster_than_baselines, budgets={
        "smoke": Budget(GridConfig(n=127, rank=4, kappas=(1.0, 100.0), ratios=(0.3,), damped=(False,), max_iter=300,
                                   judge_time=False), seeds=1, expected_s=3),
        "small": Budget(GridConfig(), seeds=3, expected_s=240),
        "full": Budget(GridConfig(kappas=(1.0, 10.0, 1e2, 1e3, 1e4), max_iter=2000), seeds=10, expected_s=3600),
    }),
    Claim("recovery_rate", check=check_recovery_rate, budgets={
        "smoke": Budget(RecoveryConfig(n=127, rank=4, ratios=(0.15, 0.3), max_iter=200), seeds=1, expected_s=2),
        "small": Budget(RecoveryConfig(), seeds=10, expected_s=120),
        "full": Budget(RecoveryConfig(n=511, rank=10), seeds=50, expected_s=1800),
    }),
]
