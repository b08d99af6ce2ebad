"""The [P14] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.dfo._checks import check_residual_minimisation, check_singular_robustness, check_smooth_velocities
from icml26.papers.dfo._experiments import PROBLEMS, REGIMES


@dataclass(frozen=True)
class Config:
    """Problems x regimes x tolerances evolved to ``t_end`` on ``n_points`` collocation points (RK2, dt = 1e-2)."""

    problems: tuple[str, ...] = PROBLEMS
    regimes: tuple[str, ...] = REGIMES
    tols: tuple[float, ...] = (1e-4,)
    t_end: float = 2.0
    n_points: int = 128


_SMOKE_REGIMES = ("duplicated", "near_vanishing")
_RES_TOLS = (1e-8, 1e-4)  # residual sweep: a small tol, where truncation drops (almost) nothing, and the default

CLAIMS = [
    Claim("residual_minimisation", check=check_residual_minimisation, budgets={
        "smoke": Budget(Config(regimes=_SMOKE_REGIMES, tols=_RES_TOLS, t_end=0.5, n_points=64), seeds=1, expected_s=3),
        "small": Budget(Config(tols=_RES_TOLS), seeds=3, expected_s=80),
    }),
    Claim("smooth_velocities", check=check_smooth_velocities, budgets={
        "smoke": Budget(Config(regimes=("near_duplicate",), t_end=0.5, n_points=64), seeds=1, expected_s=2),
        "small": Budget(Config(regimes=("duplicated", "near_duplicate")), seeds=5, expected_s=60),
    }),
    Claim("singular_robustness", check=check_singular_robustness, budgets={
        "smoke": Budget(Config(regimes=_SMOKE_REGIMES, t_end=0.5, n_points=64), seeds=1, expected_s=3),
        "small": Budget(Config(tols=(1e-6, 1e-4, 1e-2)), seeds=3, expected_s=120),
    }),
]
