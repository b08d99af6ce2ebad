"""The [P07] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.descent_tf._checks import (
    check_in_distribution,
    check_monotone_descent,
    check_ood_generalization,
    check_perturbation_robustness,
)


@dataclass(frozen=True)
class DenoiseConfig:
    """Digit-sequence denoising (stand-in for video denoising): 8-frame videos of a sliding digit."""

    encoder: str = "bert"  # bert (bidirectional, transformers) | tinygpt (causal)
    n_layers: int = 6
    d_model: int = 64
    n_heads: int = 4
    frames: int = 8
    speed: int = 1
    sigma: float = 0.3
    ood_speed: int = 2
    ood_sigma: float = 0.5
    test_size: int = 450
    train_limit: int = 600  # 0: every training image
    epochs: int = 20
    batch_size: int = 100
    lr: float = 2e-3


@dataclass(frozen=True)
class RowsConfig:
    """Digit-row classification (stand-in for text classification): 8 row tokens -> 10 classes, causal TinyGPT."""

    n_layers: int = 4
    d_model: int = 32
    n_heads: int = 4
    ood_noise: float = 0.15
    ood_shift: int = 1
    test_size: int = 450
    train_limit: int = 0
    epochs: int = 15
    batch_size: int = 128
    lr: float = 2e-3


@dataclass(frozen=True)
class SparseConfig:
    """LISTA-style unrolled sparse coding with a known 20 x 50 dictionary."""

    m: int = 20
    n: int = 50
    density: float = 0.1
    noise: float = 0.01
    ood_density: float = 0.2
    ood_noise: float = 0.05
    n_layers: int = 10
    sparsity: float = 0.05
    train_size: int = 2000
    test_size: int = 1000
    epochs: int = 30
    batch_size: int = 200
    lr: float = 1e-3


@dataclass(frozen=True)
class DescentConfig:
    """Every run of the group: tasks x methods x seeds, the constraint's epsilon and dual step, the perturbation."""

    tasks: tuple[str, ...] = ("denoise", "rows", "sparse")
    methods: tuple[str, ...] = ("erm", "constrained", "deep_supervision")
    denoise: DenoiseConfig = DenoiseConfig()
    rows: RowsConfig = RowsConfig()
    sparse: SparseConfig = SparseConfig()
    epsilon: float = 0.05
    dual_lr: float = 0.05
    perturb_scale: float = 0.5


SMOKE = DescentConfig(
    denoise=DenoiseConfig(encoder="tinygpt", n_layers=2, d_model=16, n_heads=2, frames=4, test_size=60,
                          train_limit=120, epochs=2, batch_size=40),
    rows=RowsConfig(n_layers=2, d_model=16, n_heads=2, test_size=60, train_limit=160, epochs=2, batch_size=40),
    sparse=SparseConfig(n_layers=3, train_size=300, test_size=100, epochs=2, batch_size=100))
FULL = DescentConfig(denoise=DenoiseConfig(train_limit=0, epochs=60), rows=RowsConfig(epochs=60, batch_size=64),
                     sparse=SparseConfig(train_size=10000, epochs=60))
CHECKS = {"monotone_descent": check_monotone_descent, "in_distribution": check_in_distribution,
          "perturbation_robustness": check_perturbation_robustness, "ood_generalization": check_ood_generalization}

CLAIMS = [
    Claim(cid, check=check, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=6),
        "small": Budget(DescentConfig(), seeds=3, expected_s=120),
        "full": Budget(FULL, seeds=10, expected_s=3600),
    })
    for cid, check in CHECKS.items()
]
