"""The [P09] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.mfedpba._checks import (
    check_advantage_grows_with_imbalance,
    check_both_alignments_contribute,
    check_outperforms_baselines,
)
from icml26.papers.mfedpba._experiments import Federation

SMOKE_FED = Federation(n_clients=4, rounds=2, local_epochs=1, batch_size=64)
FULL_FED = Federation(n_clients=20, rounds=100, local_epochs=2)


@dataclass(frozen=True)
class CompareConfig:
    fed: Federation = Federation()
    unimodal_fraction: float = 0.5
    baselines: tuple[str, ...] = ("local", "fedproto", "logit_avg")  # heterogeneous architectures
    same_arch_baselines: tuple[str, ...] = ("fedavg",)  # FedAvg needs one architecture for all clients


@dataclass(frozen=True)
class ImbalanceConfig:
    fed: Federation = Federation()
    fractions: tuple[float, ...] = (0.2, 0.5, 0.8)
    baselines: tuple[str, ...] = ("local", "fedproto", "logit_avg")


@dataclass(frozen=True)
class AblationConfig:
    fed: Federation = Federation()
    unimodal_fraction: float = 0.5
    ablations: tuple[str, ...] = ("mfedpba_no_gw", "mfedpba_uniform")


CLAIMS = [
    Claim("outperforms_baselines", check=check_outperforms_baselines, budgets={
        "smoke": Budget(CompareConfig(fed=SMOKE_FED), seeds=1, expected_s=4),
        "small": Budget(CompareConfig(), seeds=5, expected_s=90),
        "full": Budget(CompareConfig(fed=FULL_FED), seeds=10, expected_s=7200),
    }),
    Claim("advantage_grows_with_imbalance", check=check_advantage_grows_with_imbalance, budgets={
        "smoke": Budget(ImbalanceConfig(fed=SMOKE_FED, fractions=(0.25, 0.75)), seeds=1, expected_s=5),
        "small": Budget(ImbalanceConfig(), seeds=5, expected_s=180),
        "full": Budget(ImbalanceConfig(fed=FULL_FED, fractions=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0)), seeds=10,
                       expected_s=14400),
    }),
    Claim("both_alignments_contribute", check=check_both_alignments_contribute, budgets={
        "smoke": Budget(AblationConfig(fed=SMOKE_FED), seeds=1, expected_s=3),
        "small": Budget(AblationConfig(), seeds=5, expected_s=60),
        "full": Budget(AblationConfig(fed=FULL_FED), seeds=10, expected_s=3600),
    }),
]
