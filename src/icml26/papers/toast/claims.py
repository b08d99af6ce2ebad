"""The [P35] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.toast._checks import check_budget, check_coupling, check_tcs
from icml26.papers.toast._checks_speed import check_throughput
from icml26.papers.toast._train import TrainSpec

#: smoke: the plain-torch ViT (no transformers import), two blocks of width 32, 15 epochs on 600 images
SMOKE_VIT = TrainSpec(arch="plain", embed_dim=32, depth=2, num_heads=2, epochs=15, lr=2e-3, batch_size=32,
                      train_limit=600, test_size=200)
#: small: transformers' ViTForImageClassification, 4 blocks of width 64 (4 heads of 16), FFN 256, 17 tokens
SMALL_VIT = TrainSpec()
#: full: a wider and deeper ViT trained twice as long
FULL_VIT = TrainSpec(embed_dim=96, depth=6, num_heads=6, epochs=60)


@dataclass(frozen=True)
class TcsConfig:
    model: TrainSpec = SMALL_VIT
    blocks: int = 2  # TCS on fc2 of the last `blocks` blocks
    ratios: tuple[float, ...] = (0.5, 0.7, 0.9)
    judged_ratio: float = 0.5
    cls_weight: float = 2.0
    sample_ratio: float = 0.2  # 3 of 16 patches: the count the paper's 2 % draws from DeiT's 196
    random_draws: int = 3


@dataclass(frozen=True)
class CouplingConfig:
    model: TrainSpec = SMALL_VIT
    sparsity: float = 0.75  # 4 of 16 dimensions kept per head, blocks 1..3
    variants: tuple[str, ...] = ("average", "q_only", "independent")
    ft_epochs: int = 8
    ft_lr: float = 5e-4


@dataclass(frozen=True)
class BudgetConfig:
    model: TrainSpec = SMALL_VIT
    sparsity: float = 0.75
    fc1_ratios: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    fc2_ratios: tuple[float, ...] = (0.0, 0.3, 0.5, 0.7)  # a ramp over the later blocks, as in the paper's schedules
    cls_weight: float = 2.0
    sample_ratio: float = 0.2
    ft_epochs: int = 8
    ft_lr: float = 5e-4


@dataclass(frozen=True)
class ThroughputConfig:
    image_size: int = 224
    patch_size: int = 16
    embed_dim: int = 384
    depth: int = 12
    num_heads: int = 6
    mlp_ratio: int = 4
    num_classes: int = 1000
    batch: int = 8
    rounds: int = 6
    sparsity: float = 0.9
    fc1_ratios: tuple[float, ...] = (0.0,) * 11 + (0.3,)  # the paper's DeiT-S 2.7 GFLOPs schedule
    fc2_ratios: tuple[float, ...] = (0.0,) * 7 + (0.6, 0.7, 0.8, 0.9, 0.9)
    device: str = "cpu"


_SMOKE_TP = ThroughputConfig(image_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=2, num_classes=10, batch=2,
                             rounds=3, sparsity=0.5, fc1_ratios=(0.0, 0.3), fc2_ratios=(0.0, 0.5))

CLAIMS = [
    Claim("tcs_training_free", check=check_tcs, budgets={
        "smoke": Budget(TcsConfig(model=SMOKE_VIT, blocks=1, ratios=(0.5,), random_draws=1), seeds=1, expected_s=4),
        "small": Budget(TcsConfig(), seeds=5, expected_s=150, requires=("models",)),
        "full": Budget(TcsConfig(model=FULL_VIT, blocks=3, ratios=(0.3, 0.5, 0.7, 0.9)), seeds=10, expected_s=3000,
                       requires=("models",)),
    }),
    Claim("coupled_pruning", check=check_coupling, budgets={
        "smoke": Budget(CouplingConfig(model=SMOKE_VIT, sparsity=0.5, variants=("independent",), ft_epochs=1),
                        seeds=1, expected_s=4),
        "small": Budget(CouplingConfig(), seeds=5, expected_s=290, requires=("models",)),
        "full": Budget(CouplingConfig(model=FULL_VIT, variants=("average", "q_only", "k_only", "independent"),
                                      ft_epochs=20), seeds=10, expected_s=6000, requires=("models",)),
    }),
    Claim("accuracy_efficiency", check=check_budget, budgets={
        "smoke": Budget(BudgetConfig(model=SMOKE_VIT, sparsity=0.5, fc1_ratios=(0.0, 0.0), fc2_ratios=(0.0, 0.5),
                                     ft_epochs=1), seeds=1, expected_s=4),
        "small": Budget(BudgetConfig(), seeds=5, expected_s=210, requires=("models",)),
        "full": Budget(BudgetConfig(model=FULL_VIT, fc1_ratios=(0.0,) * 6, fc2_ratios=(0.0, 0.0, 0.3, 0.5, 0.7, 0.9),
                                    ft_epochs=20), seeds=10, expected_s=5000, requires=("models",)),
    }),
    Claim("throughput", check=check_throughput, budgets={
        "smoke": Budget(_SMOKE_TP, seeds=1, expected_s=4, requires=("models",)),
        "small": Budget(ThroughputConfig(), seeds=1, expected_s=90, requires=("models",)),
        "full": Budget(ThroughputConfig(batch=128, rounds=30, device="cuda"), seeds=1, expected_s=300,
                       requires=("models", "gpu")),
    }),
]
