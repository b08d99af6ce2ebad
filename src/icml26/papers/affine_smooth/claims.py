"""The [P26] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``, the
paper's words and our bars in ``paper.toml``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.affine_smooth._checks import check_sign_gd_logistic, check_sign_gd_softmax_pg
from icml26.papers.affine_smooth._checks_affine import check_affine_smoothness
from icml26.papers.affine_smooth._checks_rates import check_adaptive_two_layer, check_lower_bound


@dataclass(frozen=True)
class SeparableData:
    """``make_separable_data(n, d, margin=margin, seed=seed)``."""

    n: int = 200
    d: int = 20
    margin: float = 0.1


@dataclass(frozen=True)
class Horizon:
    """Steps per run, and the window of the last steps over which a rate is fitted."""

    iters: int = 3000
    window: int = 1000


@dataclass(frozen=True)
class LogisticConfig:
    data: SeparableData = SeparableData()
    horizon: Horizon = Horizon()
    sign_lr: float = 0.05
    gd_lr_times_h1: float = 8.0  # GD step η = 8/H1 = 2/L with L = H1/4 the curvature bound at θ = 0
    sign_lr_large: float = 1.0  # reported only: a step too large for the theory (can stall in oscillation)


@dataclass(frozen=True)
class BanditConfig:
    arms: int = 10
    horizon: Horizon = Horizon()
    sign_lr: float = 0.05
    gd_lr: float = 0.4  # 2/5: the 1/L step of Mei et al. (2020) for softmax PG


@dataclass(frozen=True)
class NetConfig:
    data: SeparableData = SeparableData(n=100, d=10)
    width: int = 20
    horizon: Horizon = Horizon()
    lr: float = 0.05
    beta1: float = 0.9
    beta2: float = 0.9  # pinned (notes: linear rates need β2 ≲ 0.9); torch's 0.999 is reported alongside


@dataclass(frozen=True)
class LowerBoundConfig:
    eps: tuple[float, ...] = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5)
    max_iters: int = 400_000
    gd_lr: float = 4.0  # GD-type steps: η ≤ 2/L = 8 with L = sup f'' = 1/4 (heavy-ball: η/(1−β) = 4)
    hb_lr: float = 2.0
    hb_momentum: float = 0.5
    adagrad_lr: float = 4.0
    amsgrad_lr: float = 1.0
    adaptive_lr: float = 0.1  # RMSProp, Adam, sign GD
    beta1: float = 0.9
    beta2: float = 0.9  # pinned; 0.999 reported alongside


@dataclass(frozen=True)
class AffineConfig:
    data: SeparableData = SeparableData(n=100, d=10)
    width: int = 20
    arms: int = 10
    iters: int = 3000
    points: int = 40  # log-spaced iterates per trajectory at which ‖∇²f‖ is measured


_SMOKE_RUN = Horizon(iters=1200, window=400)

CLAIMS = [
    Claim("sign_gd_logistic", check=check_sign_gd_logistic, budgets={
        "smoke": Budget(LogisticConfig(data=SeparableData(n=100, d=10), horizon=_SMOKE_RUN), seeds=1, expected_s=2),
        "small": Budget(LogisticConfig(), seeds=5, expected_s=10),
    }),
    Claim("sign_gd_softmax_pg", check=check_sign_gd_softmax_pg, budgets={
        "smoke": Budget(BanditConfig(horizon=_SMOKE_RUN), seeds=1, expected_s=1.5),
        "small": Budget(BanditConfig(), seeds=5, expected_s=10),
    }),
    Claim("adaptive_two_layer", check=check_adaptive_two_layer, budgets={
        "smoke": Budget(NetConfig(data=SeparableData(n=50, d=5), width=10, horizon=_SMOKE_RUN), seeds=1, expected_s=2),
        "small": Budget(NetConfig(), seeds=3, expected_s=30),
    }),
    Claim("lower_bound", check=check_lower_bound, budgets={
        "smoke": Budget(LowerBoundConfig(eps=(1e-2, 3e-3, 1e-3, 3e-4, 1e-4), max_iters=20_000), seeds=1, expected_s=3),
        "small": Budget(LowerBoundConfig(), seeds=1, expected_s=40),
    }),
    Claim("affine_smoothness", check=check_affine_smoothness, budgets={
        "smoke": Budget(AffineConfig(data=SeparableData(n=50, d=5), width=10, iters=3000, points=12), seeds=1,
                        expected_s=2.5),
        "small": Budget(AffineConfig(), seeds=3, expected_s=30),
    }),
]
