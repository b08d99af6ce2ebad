"""Synthetic spectrally sparse signals with a prescribed condition number (the test problems of [P03])."""

from __future__ import annotations

import math

import numpy as np

from icml26.common.seeding import rng as make_rng

__all__ = ["make_spectral_signal"]


def _check_int(name: str, value: object, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int, got {type(value).__name__}")
    if value < lo:
        raise ValueError(f"{name} must be >= {lo}, got {value}")
    return int(value)


def make_spectral_signal(
    n: int, rank: int, *, kappa: float, damped: bool = False, seed: int | np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A signal x_k = Σ_{j<r} c_j exp((2πi f_j − τ_j) k), k = 0..n−1, whose Hankel lift has rank r.

    Implements the signal model of [P03] (spectrally sparse signals, as in its abstract). Symbols: n ↔ ``n``, r ↔ ``rank``,
    f_j ↔ ``freqs``, c_j ↔ ``amps``, κ ↔ ``kappa``.

    - Frequencies: a random offset plus a jittered grid, f_j = (u₀ + (j + ½ u_j)/r) mod 1, so any two are at least
      1/(2r) apart (well separated: the lift's singular values are then ≈ n1 |c_j|).
    - Amplitudes: |c_j| log-spaced from 1 down to 1/κ, uniform random phases, randomly assigned to the frequencies,
      so the condition number of H(x) is ≈ κ when undamped.
    - Damping (``damped=True``): τ_j = d_j / n with d_j ~ U(1, 5), i.e. each mode decays by e^{-1} to e^{-5} over the
      window (the condition number of H(x) then exceeds κ).

    Args:
        n: signal length (>= 3).
        rank: number of modes r (1 <= r <= n // 2).
        kappa: amplitude dynamic range κ >= 1.
        damped: add damping.
        seed: int seed or numpy Generator (required, keyword-only; ``None`` draws fresh entropy).

    Returns:
        ``(x, freqs, amps)``: x (n,) complex128, freqs (r,) in [0, 1), amps (r,) complex c_j.
    """
    n = _check_int("n", n, 3)
    rank = _check_int("rank", rank, 1)
    if rank > n // 2:
        raise ValueError(f"rank must be <= n // 2 = {n // 2}, got {rank}")
    kappa = float(kappa)
    if not (math.isfinite(kappa) and kappa >= 1.0):
        raise ValueError(f"kappa must be a finite number >= 1, got {kappa}")
    g = make_rng(seed)
    j = np.arange(rank)
    freqs = np.mod(g.uniform() + (j + 0.5 * g.uniform(size=rank)) / rank, 1.0)
    mags = kappa ** (-j / max(rank - 1, 1)) if rank > 1 else np.ones(1)
    amps = g.permutation(mags) * np.exp(2j * np.pi * g.uniform(size=rank))
    tau = g.uniform(1.0, 5.0, size=rank) / n if damped else np.zeros(rank)
    k = np.arange(n)[:, None]
    x = np.exp((2j * np.pi * freqs[None, :] - tau[None, :]) * k) @ amps
    return x, freqs, amps
