"""The [P31] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.prim._checks import (
    check_cross_modal_degrades_least,
    check_prefill_speedup,
    check_retains_full_accuracy,
    check_superior_tradeoff,
)
from icml26.papers.prim._lm import AVLMConfig
from icml26.papers.prim._train import TrainConfig


@dataclass(frozen=True)
class SweepConfig:
    train: TrainConfig = field(default_factory=TrainConfig)
    n_eval: int = 900
    budgets: tuple[float, ...] = (0.5, 0.25, 0.125)
    retention_budget: float = 0.5


@dataclass(frozen=True)
class SpeedConfig:
    model: AVLMConfig = field(default_factory=AVLMConfig)
    n_clips: int = 64
    budget: float = 0.25
    rounds: int = 20


SMOKE = SweepConfig(train=TrainConfig(n_train=96, steps=8), n_eval=24, budgets=(0.5, 0.125))
SMALL = SweepConfig()
FULL = SweepConfig(train=TrainConfig(n_train=20000, steps=6000), n_eval=5000)

CLAIMS = [
    Claim("superior_tradeoff", check=check_superior_tradeoff, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=6),
        "small": Budget(SMALL, seeds=3, expected_s=280),
        "full": Budget(FULL, seeds=5, expected_s=3600),
    }),
    Claim("retains_full_accuracy", check=check_retains_full_accuracy, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=6),
        "small": Budget(SMALL, seeds=3, expected_s=280),
        "full": Budget(FULL, seeds=5, expected_s=3600),
    }),
    Claim("cross_modal_degrades_least", check=check_cross_modal_degrades_least, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=6),
        "small": Budget(SMALL, seeds=3, expected_s=280),
        "full": Budget(FULL, seeds=5, expected_s=3600),
    }),
    Claim("prefill_speedup", check=check_prefill_speedup, budgets={
        "smoke": Budget(SpeedConfig(n_clips=8, rounds=3), seeds=1, expected_s=2),
        "small": Budget(SpeedConfig(), seeds=1, expected_s=30),
        "full": Budget(SpeedConfig(n_clips=512, rounds=50), seeds=1, expected_s=300),
    }),
]
