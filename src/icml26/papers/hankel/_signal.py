"""Synthetic spectrally sparse signals with a prescribed condition number (the test problems of [P03])."""

from __future__ import annotations

import numpy as np

from icml26.common.validation import int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed

__all__ = ["make_spectral_signal"]


def make_spectral_signal(
    n: int, rank: int, *, kappa: float, damped: bool = False, seed: int | np.random.Generator
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
        seed: int seed (>= 0) or numpy Generator (required, keyword-only).

    Returns:
        ``(x, freqs, amps)``: x (n,) complex128, freqs (r,) in [0, 1), amps (r,) complex c_j.
    """
    n = int_at_least(n, "n", 3)
    rank = positive_int(rank, "rank", hi=n // 2)
    kappa = real(kappa, "kappa", lo=1.0)
    g = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))
    j = np.arange(rank)
    freqs = np.mod(g.uniform() + (j + 0.5 * g.uniform(size=rank)) / rank, 1.0)
    mags = kappa ** (-j / max(rank - 1, 1)) if rank > 1 else np.ones(1)
    amps = g.permutation(mags) * np.exp(2j * np.pi * g.uniform(size=rank))
    tau = g.uniform(1.0, 5.0, size=rank) / n if damped else np.zeros(rank)
    k = np.arange(n)[:, None]
    x = np.exp((2j * np.pi * freqs[None, :] - tau[None, :]) * k) @ amps
    return x, freqs, amps
