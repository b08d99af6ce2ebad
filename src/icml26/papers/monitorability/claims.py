"""The [P02] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.monitorability._checks import (
    check_compute_scaling,
    check_cot_beats_action,
    check_cot_beats_action_real,
    check_estimator_recovers,
    check_followup_helps,
    check_longer_cot,
)
from icml26.papers.monitorability._organism import OrganismConfig


@dataclass(frozen=True)
class SuiteConfig:
    """The organism's suite: tasks to fit the monitors on, tasks to score them on, samples per task (and arm)."""

    organism: OrganismConfig = field(default_factory=OrganismConfig)
    archetypes: tuple[str, ...] = ("intervention", "process", "outcome")
    train_tasks: int = 300
    test_tasks: int = 300
    samples: int = 4
    n_boot: int = 300


@dataclass(frozen=True)
class LengthConfig:
    suite: SuiteConfig = field(default_factory=SuiteConfig)
    lengths: tuple[int, ...] = (1, 2, 4, 8, 16)


@dataclass(frozen=True)
class ComputeConfig:
    suite: SuiteConfig = field(default_factory=SuiteConfig)
    reads: tuple[int, ...] = (1, 3, 9, 27)
    keep: float = 0.25


@dataclass(frozen=True)
class EstimatorConfig:
    """The planted intervention experiment (known TPR and TNR) and the organism's intervention eval."""

    suite: SuiteConfig = field(default_factory=lambda: SuiteConfig(archetypes=("intervention",), train_tasks=500,
                                                                   test_tasks=1000, samples=4))
    prompts: int = 1000
    samples: int = 8
    tpr: float = 0.8
    tnr: float = 0.9
    effect: float = 0.6
    null_share: float = 0.5
    base_rate: float = 0.25
    n_boot: int = 200


@dataclass(frozen=True)
class RealConfig:
    """The real-LM intervention eval: ``model`` is ``tiny`` (a random Llama, smoke), ``smollm2-135m`` or
    ``checkpoint`` (``$ICML26_MONITORABILITY_CHECKPOINT``, a local transformers folder)."""

    model: str = "smollm2-135m"
    train_tasks: int = 10
    test_tasks: int = 14
    samples: int = 2
    filter: str = "none"
    max_new_tokens: int = 32
    temperature: float = 0.7
    batch: int = 28
    judge: bool = True
    n_boot: int = 300


SMALL_SUITE = SuiteConfig()
SMOKE_SUITE = SuiteConfig(train_tasks=40, test_tasks=40, samples=2, n_boot=50)
FULL_SUITE = SuiteConfig(train_tasks=3000, test_tasks=3000, samples=8, n_boot=2000)
SMOKE_EST = EstimatorConfig(suite=SuiteConfig(archetypes=("intervention",), train_tasks=60, test_tasks=60, samples=2,
                                              n_boot=50), prompts=200, samples=4, n_boot=50)
FULL_EST = EstimatorConfig(suite=SuiteConfig(archetypes=("intervention",), train_tasks=3000, test_tasks=5000,
                                             samples=8), prompts=5000, samples=16, n_boot=1000)

CLAIMS = [
    Claim("estimator_recovers", check=check_estimator_recovers, budgets={
        "smoke": Budget(SMOKE_EST, seeds=1, expected_s=2),
        "small": Budget(EstimatorConfig(), seeds=5, expected_s=40),
        "full": Budget(FULL_EST, seeds=20, expected_s=1200)}),
    Claim("cot_beats_action", check=check_cot_beats_action, budgets={
        "smoke": Budget(SMOKE_SUITE, seeds=1, expected_s=2),
        "small": Budget(SMALL_SUITE, seeds=5, expected_s=60),
        "full": Budget(FULL_SUITE, seeds=20, expected_s=1800)}),
    Claim("longer_cot", check=check_longer_cot, budgets={
        "smoke": Budget(LengthConfig(suite=SMOKE_SUITE, lengths=(1, 4)), seeds=1, expected_s=3),
        "small": Budget(LengthConfig(), seeds=4, expected_s=150),
        "full": Budget(LengthConfig(suite=FULL_SUITE, lengths=(1, 2, 4, 8, 16, 32)), seeds=20, expected_s=3600)}),
    Claim("compute_scaling", check=check_compute_scaling, budgets={
        "smoke": Budget(ComputeConfig(suite=SMOKE_SUITE, reads=(1, 3)), seeds=1, expected_s=3),
        "small": Budget(ComputeConfig(), seeds=4, expected_s=150),
        "full": Budget(ComputeConfig(suite=FULL_SUITE, reads=(1, 3, 9, 27, 81)), seeds=20, expected_s=3600)}),
    Claim("followup_helps", check=check_followup_helps, budgets={
        "smoke": Budget(SMOKE_SUITE, seeds=1, expected_s=2),
        "small": Budget(SMALL_SUITE, seeds=5, expected_s=60),
        "full": Budget(FULL_SUITE, seeds=20, expected_s=1800)}),
    Claim("cot_beats_action_real", check=check_cot_beats_action_real, budgets={
        "smoke": Budget(RealConfig(model="tiny", train_tasks=2, test_tasks=3, samples=2, max_new_tokens=2, batch=12,
                                   n_boot=30), seeds=1, expected_s=4),
        "small": Budget(RealConfig(), seeds=3, expected_s=280, requires=("models",)),
        "full": Budget(RealConfig(model="checkpoint", train_tasks=500, test_tasks=500, samples=8, filter="crossfit",
                                  max_new_tokens=1024,
                                  batch=8, n_boot=2000), seeds=5, expected_s=36000, requires=("models",))}),
]
