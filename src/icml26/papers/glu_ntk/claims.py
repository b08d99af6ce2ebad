"""The claim checks of [P21] (GLU reshapes the NTK spectrum); the check functions live in ``_checks_*.py``."""

from __future__ import annotations

from icml26.claims import Budget, Claim
from icml26.papers.glu_ntk._checks_spectrum import (
    SpectrumConfig,
    check_faster_convergence,
    check_smaller_condition_number,
)
from icml26.papers.glu_ntk._checks_training import (
    CrossingConfig,
    GapConfig,
    check_gap_not_reduced,
    check_loss_crossing,
)

__all__ = ["CLAIMS", "CrossingConfig", "GapConfig", "SpectrumConfig"]

_SPEC_SMOKE = SpectrumConfig(widths=(1000,))  # one point of the small sweep
_CROSS_SMOKE = CrossingConfig(widths=(1000,), activations=("relu",), train_n=256, train_width=64,
                              epochs=40, batch_size=64)

CLAIMS = [
    Claim("smaller_condition_number", check=check_smaller_condition_number, budgets={
        "smoke": Budget(_SPEC_SMOKE, seeds=1, expected_s=2),
        "small": Budget(SpectrumConfig(), seeds=5, expected_s=60),
    }),
    Claim("faster_convergence", check=check_faster_convergence, budgets={
        "smoke": Budget(_SPEC_SMOKE, seeds=1, expected_s=2),
        "small": Budget(SpectrumConfig(), seeds=5, expected_s=60),
    }),
    Claim("loss_crossing", check=check_loss_crossing, budgets={
        "smoke": Budget(_CROSS_SMOKE, seeds=1, expected_s=3),
        "small": Budget(CrossingConfig(), seeds=3, expected_s=150),
        "full": Budget(CrossingConfig(train_n=2000, train_width=1000, train_activations=("relu", "gelu", "silu")),
                       seeds=5, expected_s=1800),
    }),
    Claim("gap_not_reduced", check=check_gap_not_reduced, budgets={
        "smoke": Budget(GapConfig(width=128, activations=("relu",), epochs=40, n_max=800,
                                          train_loss_mark=0.3), seeds=1, expected_s=2),
        "small": Budget(GapConfig(), seeds=3, expected_s=60),
    }),
]
