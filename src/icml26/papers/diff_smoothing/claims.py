"""The [P32] claims: configs per budget and the CLAIMS table (checks in ``_checks_*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.diff_smoothing._checks_countdown import check_countdown, check_vanilla_collapse
from icml26.papers.diff_smoothing._checks_optimum import check_ds_improves_both
from icml26.papers.diff_smoothing._checks_toy import check_entropy_heuristics

GAMMA = 0.1  # γ_p = γ_n = γ for DS and γ for the entropy heuristics, fixed before any run (|γ log π| <~ 0.5 here)


@dataclass(frozen=True, kw_only=True)
class ToyConfig:
    n_prompts: int = 200
    n_answers: int = 32
    steps: int = 100  # the horizon fixed in advance: mid-training (vanilla pass@1 ≈ 0.6 from 0.18)
    lr: float = 0.1
    group_size: int = 8
    gamma: float = GAMMA
    k: int = 16
    keep_prob: float = 0.5
    modes: tuple[str, ...] = ("exact", "sampled")


@dataclass(frozen=True, kw_only=True)
class OptimumConfig:
    """``ds_improves_both``: the grid of the KL-regularised optimum (fixed before any run) and the toy runs of the
    finite-step finding (the ``toy`` group's, shared with ``entropy_heuristics``)."""

    n_answers: tuple[int, ...] = (4, 8, 16)
    correct_fractions: tuple[float, ...] = (0.25, 0.5, 0.75)  # |C| = max(2, round(f·N)) <= 12
    concentrations: tuple[float, ...] = (0.1, 0.3, 1.0, 3.0)  # Dirichlet α: from near-deterministic to near-flat
    draws: int = 25  # base policies per (N, f, α) and seed
    betas: tuple[float, ...] = (0.5, 2.0)
    gamma_over_beta: tuple[float, ...] = (0.01, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0, 1.5, 2.0, 3.0, 5.0)
    k: int = 16
    keep_prob: float = 0.5
    toy: ToyConfig = field(default_factory=ToyConfig)


@dataclass(frozen=True, kw_only=True)
class CountdownConfig:
    n_train: int = 2000
    n_test: int = 200
    d_model: int = 48
    sft_steps: int = 500
    rl_steps: int = 100
    prompts_per_step: int = 16
    group_size: int = 8
    lr: float = 3e-4  # GRPO lr: at 1e-3 the entropy bonus degenerates to pass@1 = 0
    gamma: float = GAMMA
    n_eval: int = 32
    k: int = 16
    methods: tuple[str, ...] = ("vanilla", "ds", "entropy_bonus")


@dataclass(frozen=True, kw_only=True)
class CollapseConfig:
    """``vanilla_collapse``: vanilla GRPO on CountDown (decides the verdict) and the exact toy (illustration only)."""

    countdown: CountdownConfig = field(default_factory=CountdownConfig)
    toy: ToyConfig = field(default_factory=ToyConfig)


TOY_SMOKE = ToyConfig(n_prompts=40)
TOY_SMALL = ToyConfig(n_prompts=200)
CD_SMOKE = CountdownConfig(n_train=200, n_test=20, d_model=32, sft_steps=40, rl_steps=4, prompts_per_step=8,
                           n_eval=16, methods=("vanilla", "ds"))
CD_SMOKE_VANILLA = CountdownConfig(n_train=200, n_test=20, d_model=32, sft_steps=40, rl_steps=4, prompts_per_step=8,
                                   n_eval=16, methods=("vanilla",))

CLAIMS = [
    Claim("vanilla_collapse", check=check_vanilla_collapse, budgets={
        "smoke": Budget(CollapseConfig(countdown=CD_SMOKE_VANILLA, toy=TOY_SMOKE), seeds=1, expected_s=4),
        "small": Budget(CollapseConfig(countdown=CountdownConfig(methods=("vanilla",)), toy=TOY_SMALL), seeds=5,
                        expected_s=220),
    }),
    Claim("ds_improves_both", check=check_ds_improves_both, budgets={
        "smoke": Budget(OptimumConfig(draws=2, toy=TOY_SMOKE), seeds=1, expected_s=3),
        "small": Budget(OptimumConfig(toy=TOY_SMALL), seeds=5, expected_s=60),
    }),
    Claim("entropy_heuristics", check=check_entropy_heuristics, budgets={
        "smoke": Budget(TOY_SMOKE, seeds=1, expected_s=3),
        "small": Budget(TOY_SMALL, seeds=5, expected_s=30),
    }),
    Claim("countdown_ds", check=check_countdown, budgets={
        "smoke": Budget(CD_SMOKE, seeds=1, expected_s=6),
        "small": Budget(CountdownConfig(), seeds=3, expected_s=280),
    }),
]
