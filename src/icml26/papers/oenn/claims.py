"""The [P12] claims: configs per budget and the CLAIMS table (checks in ``_checks_*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.oenn._checks_basis import check_commutant, check_equivariance
from icml26.papers.oenn._checks_learning import check_sbm, check_uat

SMALL_CASES = ("C6-const-d2", "C6-twisted-d2", "Q3-const-d2", "square-flat-d2", "K4-O2-d2", "K4-SO2-d2")
FULL_CASES = ("C4-const-d1", *SMALL_CASES, "Petersen-const-d2")


@dataclass(frozen=True)
class CommutantConfig:
    cases: tuple[str, ...] = SMALL_CASES  # each with and without gauge


@dataclass(frozen=True)
class EquivarianceConfig:
    cases: tuple[str, ...] = SMALL_CASES
    samples: int = 5  # sampled symmetries per case and seed
    channels: int = 2
    layers: int = 3


@dataclass(frozen=True)
class UATConfig:
    case: str = "C6-twisted-d2"
    widths: tuple[int, ...] = (4, 8, 16, 32)
    n_train: int = 1000
    n_test: int = 1000
    iterations: int = 400  # full-batch L-BFGS iterations per fit (at most)
    terms: int = 8  # gated features of the target
    gain: float = 2.0  # κ of the target's radial gate


@dataclass(frozen=True)
class SBMConfig:
    n_nodes: int = 400
    homophily: float = 0.15  # expected; the bar is on the measured value (<= 0.2)
    mean_degree: float = 8.0
    n_features: int = 16
    signal: float = 0.5
    hidden: int = 32
    layers: int = 2
    epochs: int = 200
    lr: float = 0.01
    weight_decay: float = 5e-4


CLAIMS = [
    Claim("complete_characterization", check=check_commutant, budgets={
        "smoke": Budget(CommutantConfig(cases=("C4-const-d1", "C6-twisted-d2")), seeds=1, expected_s=3),
        "small": Budget(CommutantConfig(), seeds=1, expected_s=60),
        "full": Budget(CommutantConfig(cases=FULL_CASES), seeds=1, expected_s=600),
    }),
    Claim("exact_equivariance", check=check_equivariance, budgets={
        "smoke": Budget(EquivarianceConfig(cases=("C6-twisted-d2",), samples=2), seeds=1, expected_s=3),
        "small": Budget(EquivarianceConfig(), seeds=3, expected_s=60),
        "full": Budget(EquivarianceConfig(cases=FULL_CASES, samples=20), seeds=5, expected_s=600),
    }),
    Claim("universal_approximation", check=check_uat, budgets={
        "smoke": Budget(UATConfig(widths=(4, 32), n_train=128, n_test=128, iterations=20), seeds=1, expected_s=3),
        "small": Budget(UATConfig(), seeds=3, expected_s=100),
        "full": Budget(UATConfig(iterations=2000, n_train=8000, n_test=4000), seeds=10, expected_s=3600),
    }),
    Claim("heterophilic_sbm", check=check_sbm, budgets={
        "smoke": Budget(SBMConfig(n_nodes=60, epochs=20, hidden=8), seeds=1, expected_s=3),
        "small": Budget(SBMConfig(), seeds=5, expected_s=120),
        "full": Budget(SBMConfig(n_nodes=2000, epochs=400), seeds=10, expected_s=1800),
    }),
]
