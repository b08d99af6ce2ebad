"""The [P21] claims: configs per budget and the CLAIMS table (checks in ``_checks_*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.glu_ntk._checks_spectrum import check_faster_convergence, check_smaller_condition_number
from icml26.papers.glu_ntk._checks_training import check_gap_not_reduced, check_loss_crossing


@dataclass(frozen=True)
class SpectrumConfig:
    """NTK probe: ``n`` Gaussian inputs in ``d`` dimensions, non-GLU widths ``widths`` (GLU parameter-matched)."""

    n: int = 50
    d: int = 75
    widths: tuple[int, ...] = (300, 1000, 3000)
    activations: tuple[str, ...] = ("relu", "gelu", "silu")
    rel_target: float = 1e-4  # linearised GD: steps until loss <= rel_target * loss_0
    max_steps: int = 10**9  # linearised GD: a run that needs more is censored at max_steps + 1


@dataclass(frozen=True)
class CrossingConfig:
    """Loss crossing under a shared step size: linearised GD (NTK probe) and trained SGD (authors' Gaussian task)."""

    n: int = 50  # linearised part: NTK probe size
    d: int = 75
    widths: tuple[int, ...] = (300, 1000, 3000)
    activations: tuple[str, ...] = ("relu", "gelu", "silu")
    rel_target: float = 1e-4  # horizon: until both models reach rel_target · loss_0
    max_horizon: int = 100_000  # cap on the linearised horizon (memory: one loss per step)
    train_n: int = 1000  # trained part (authors: N = 2000, hidden 1000, 300 epochs of batch 256 = 2400 SGD steps)
    train_width: int = 500
    train_activations: tuple[str, ...] = ("relu",)
    lr: float = 0.01  # SGD on ½·MSE; = the authors' lr 0.005 on nn.MSELoss
    epochs: int = 600  # 4 steps per epoch at N = 1000: the authors' 2400 SGD steps
    batch_size: int = 256
    margin: float = 0.02  # trained curves: a side is "ahead" only by > 2% (SGD noise)


@dataclass(frozen=True)
class GapConfig:
    """Digits (scikit-learn, bundled): two-layer MLPs, AdamW lr 1e-3, train/test split 50/50."""

    width: int = 256
    activations: tuple[str, ...] = ("relu", "gelu", "silu")
    epochs: int = 60
    batch_size: int = 64
    n_max: int | None = None
    train_loss_mark: float = 0.1  # matched train loss (nats) at which the gap is read


@dataclass(frozen=True)
class FasterConfig:
    """``faster_convergence``: the digits runs it is judged on (shared with ``gap_not_reduced``) and the NTK probe of
    its linearised findings."""

    digits: GapConfig = field(default_factory=GapConfig)
    spectrum: SpectrumConfig = field(default_factory=SpectrumConfig)


_SPEC_SMOKE = SpectrumConfig(widths=(1000,))  # one point of the small sweep
_GAP_SMOKE = GapConfig(width=128, activations=("relu",), epochs=40, n_max=800, train_loss_mark=0.3)
_CROSS_SMOKE = CrossingConfig(widths=(1000,), activations=("relu",), train_n=256, train_width=64,
                              epochs=40, batch_size=64)

CLAIMS = [
    Claim("smaller_condition_number", check=check_smaller_condition_number, budgets={
        "smoke": Budget(_SPEC_SMOKE, seeds=1, expected_s=2),
        "small": Budget(SpectrumConfig(), seeds=5, expected_s=60),
    }),
    Claim("faster_convergence", check=check_faster_convergence, budgets={  # seeds as gap_not_reduced: one group
        "smoke": Budget(FasterConfig(digits=_GAP_SMOKE, spectrum=_SPEC_SMOKE), seeds=1, expected_s=3),
        "small": Budget(FasterConfig(), seeds=3, expected_s=90),
    }),
    Claim("loss_crossing", check=check_loss_crossing, budgets={
        "smoke": Budget(_CROSS_SMOKE, seeds=1, expected_s=3),
        "small": Budget(CrossingConfig(), seeds=3, expected_s=150),
        "full": Budget(CrossingConfig(train_n=2000, train_width=1000, train_activations=("relu", "gelu", "silu")),
                       seeds=5, expected_s=1800),
    }),
    Claim("gap_not_reduced", check=check_gap_not_reduced, budgets={
        "smoke": Budget(_GAP_SMOKE, seeds=1, expected_s=2),
        "small": Budget(GapConfig(), seeds=3, expected_s=60),
    }),
]
