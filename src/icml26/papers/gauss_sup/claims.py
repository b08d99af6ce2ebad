"""The [P33] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.gauss_sup._checks import check_concentration, check_log_n_approx, check_ptas


@dataclass(frozen=True)
class ConcentrationConfig:
    sizes: tuple[int, ...] = (5, 10, 20, 50, 100, 200)
    restarts: int = 3


@dataclass(frozen=True)
class PTASConfig:
    sizes: tuple[int, ...] = (6, 10, 20)
    eps: tuple[float, ...] = (0.2, 0.1)
    restarts: int = 3


@dataclass(frozen=True)
class LogNConfig:
    sizes: tuple[int, ...] = (20, 50, 100)
    m_sets: tuple[int, ...] = (5, 20)
    p: float = 0.2
    restarts: int = 2


CLAIMS = [
    Claim("concentration", check=check_concentration, budgets={
        "smoke": Budget(ConcentrationConfig(sizes=(5, 12), restarts=1), seeds=2, expected_s=4),
        "small": Budget(ConcentrationConfig(), seeds=3, expected_s=240),
    }),
    Claim("ptas", check=check_ptas, budgets={
        "smoke": Budget(PTASConfig(sizes=(6, 8), eps=(0.2,), restarts=1), seeds=1, expected_s=2),
        "small": Budget(PTASConfig(), seeds=3, expected_s=150),
    }),
    Claim("log_n_approx", check=check_log_n_approx, budgets={
        "smoke": Budget(LogNConfig(sizes=(12,), m_sets=(6,), p=0.3, restarts=1), seeds=1, expected_s=2),
        "small": Budget(LogNConfig(), seeds=3, expected_s=200),
    }),
]
