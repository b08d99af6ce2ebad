"""Closed forms and counts around the layerwise descent constraints of [P07] (derived, notes §2)."""

from __future__ import annotations

import numpy as np

from icml26.common.validation import real, real_array

__all__ = ["descent_pairs", "resilient_equilibrium"]


def resilient_equilibrium(violation: np.ndarray, *, resilience: float) -> tuple[np.ndarray, np.ndarray]:
    """The saddle point (u*, λ*) of the resilient relaxation when the constraint values cannot move ([P07] §2).

    For a constraint c_l ≤ u_l with slack cost (ρ/2) u_l² and c_l fixed, min_{u ≥ 0} (ρ/2) u² s.t. c ≤ u gives
    u* = max(c, 0) and, by stationarity ρ u* − λ* = 0, λ* = ρ max(c, 0). The trainer's dual/slack iteration converges
    to this point (tests/papers/descent_tf). ``violation`` is c = ℓ_l − (1 − ε) ℓ_{l−1} per layer.
    """
    c = real_array(violation, "violation", ndim=1)
    rho = real(resilience, "resilience", lo=0.0, lo_open=True)
    u = np.maximum(c, 0.0)
    return u, rho * u


def descent_pairs(layer_losses: np.ndarray) -> tuple[int, int]:
    """(k, n): of the n = L adjacent pairs of per-layer losses ℓ_0..ℓ_L, the k with ℓ_l ≤ ℓ_{l−1} ([P07] Abstract:
    losses decreasing monotonically across layers)."""
    x = real_array(layer_losses, "layer_losses", ndim=1)
    if x.size < 2:
        raise ValueError(f"layer_losses must hold at least 2 layers (ℓ_0 and ℓ_1), got {x.size}")
    return int(np.sum(x[1:] <= x[:-1])), int(x.size - 1)
