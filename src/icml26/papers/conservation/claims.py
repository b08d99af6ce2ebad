"""Claim checks of [P04] (the claims' text is in paper.toml; the checks live in ``_claims_model`` and
``_claims_exact``). All models are float64 TinyGPTs or two-layer nets; every smoke check runs in 1-3 s on one core."""

from __future__ import annotations

from icml26.claims import Budget, Claim
from icml26.papers.conservation._claims_exact import (
    CorankConfig,
    GatingConfig,
    check_gelu_silu_no_law,
    check_sigmoid_gating_law,
)
from icml26.papers.conservation._claims_model import (
    DriftConfig,
    InvarianceConfig,
    OrthoConfig,
    check_group_invariance,
    check_laws_orthogonal,
    check_sgd_drift_scaling,
)

__all__ = ["CLAIMS"]

CLAIMS = [
    Claim("group_invariance", check=check_group_invariance, budgets={
        "smoke": Budget(InvarianceConfig(), seeds=1, expected_s=2),
        "small": Budget(InvarianceConfig(d_model=32, n_layer=2, biases=(False, True)), seeds=3, expected_s=20),
    }),
    Claim("laws_orthogonal", check=check_laws_orthogonal, budgets={
        "smoke": Budget(OrthoConfig(), seeds=1, expected_s=2),
        "small": Budget(OrthoConfig(d_model=32, n_layer=2, n_probes=8), seeds=3, expected_s=30),
    }),
    Claim("sgd_drift_scaling", check=check_sgd_drift_scaling, budgets={
        "smoke": Budget(DriftConfig(), seeds=1, expected_s=3),
        "small": Budget(DriftConfig(d_model=32, n_layer=2, steps=120, taus=(1e-3, 2e-3, 4e-3, 8e-3)), seeds=3,
                        expected_s=150),
    }),
    Claim("gelu_silu_no_law", check=check_gelu_silu_no_law, budgets={
        "smoke": Budget(CorankConfig(), seeds=1, expected_s=2),
        "small": Budget(CorankConfig(widths=(1, 2, 3, 4, 5, 6, 7, 8), d=4), seeds=3, expected_s=60),
    }),
    Claim("sigmoid_gating_law", check=check_sigmoid_gating_law, budgets={
        "smoke": Budget(GatingConfig(), seeds=1, expected_s=1),
        "small": Budget(GatingConfig(n_random=200), seeds=3, expected_s=10),
    }),
]
