"""The [P37] claims: configs per budget and the CLAIMS table (checks in ``_checks_*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.sparse_scaling._checks_law import check_law_values, check_loss_optimal_sparsity
from icml26.papers.sparse_scaling._checks_training import check_delayed_saturation
from icml26.papers.sparse_scaling._train import RunConfig


@dataclass(frozen=True)
class LawConfig:
    figure: bool = True


@dataclass(frozen=True)
class OptimumConfig:
    unique_tokens: tuple[float, ...] = (1.3e9, 1.3e10, 1.3e11)  # the unique-data budgets of the paper's figure
    notes_slice: tuple[float, float, float] = (5.2e8, 2.6e9, 16.0)  # N_raw, U, epochs (the notes' evaluation)
    compute_multiples: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0, 256.0)
    iso_grid: int = 96


@dataclass(frozen=True)
class SaturationConfig:
    vocab: int = 64
    order: int = 1
    concentration: float = 0.05
    corpus_seed: int = 0
    densities: tuple[float, ...] = (1.0, 0.5)
    sparse_density: float = 0.5
    run: RunConfig = RunConfig()
    fit_betas: tuple[float, ...] = (0.1, 0.3, 0.6)  # fit_repetition's starting points
    fit_half_lives: tuple[float, ...] = (1.0, 4.0, 16.0)
    full_scale: bool = False


_SMOKE_RUN = RunConfig(d_model=8, n_head=2, seq_len=16, unique_sequences=64, epochs=(1, 2, 4), batch_size=16,
                       update_every=2, val_sequences=64)
_FULL_RUN = RunConfig(d_model=32, unique_sequences=4096, val_sequences=4096)

CLAIMS = [
    Claim("law_values", check=check_law_values, budgets={
        "smoke": Budget(LawConfig(figure=False), seeds=1, expected_s=1),
        "small": Budget(LawConfig(), seeds=1, expected_s=3),
        "full": Budget(LawConfig(), seeds=1, expected_s=3),
    }),
    Claim("delayed_saturation", check=check_delayed_saturation, budgets={
        "smoke": Budget(SaturationConfig(vocab=16, run=_SMOKE_RUN, fit_betas=(0.3,), fit_half_lives=(4.0,)), seeds=1,
                        expected_s=5),
        "small": Budget(SaturationConfig(), seeds=3, expected_s=240),
        "full": Budget(SaturationConfig(densities=(1.0, 0.5, 0.25), run=_FULL_RUN), seeds=5, expected_s=3600),
    }),
    Claim("loss_optimal_sparsity", check=check_loss_optimal_sparsity, budgets={
        "smoke": Budget(OptimumConfig(compute_multiples=(1.0, 64.0), iso_grid=12), seeds=1, expected_s=3),
        "small": Budget(OptimumConfig(), seeds=1, expected_s=20),
        "full": Budget(OptimumConfig(compute_multiples=(1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 256.0, 1024.0)), seeds=1,
                       expected_s=60),
    }),
]
