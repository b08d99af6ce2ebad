"""Spectral initialisation: a truncated SVD of H(p⁻¹ P_Ω y) by randomized subspace iteration, and its Takagi factor.

Every method of the package starts from the same rank-r approximation of the rescaled, zero-filled lift
H(p⁻¹ P_Ω y) (the standard initialisation of [P03] and of its baselines). The SVD is computed with FFT products only,
never forming the n1 × n2 matrix: randomized range finding with ``power_iters`` subspace iterations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from icml26.papers.hankel._ops import HankelOps

__all__ = ["SpectralInit", "spectral_init", "takagi_factor"]


@dataclass(frozen=True)
class SpectralInit:
    """A rank-r SVD U diag(s) Vᴴ ≈ H(x0) (U: (n1, r), s: (r,) descending, V: (n2, r))."""

    U: np.ndarray
    s: np.ndarray
    V: np.ndarray


def _orth(A: np.ndarray) -> np.ndarray:
    return np.linalg.qr(A, mode="reduced")[0]


def spectral_init(
    ops: HankelOps, x0: np.ndarray, *, rank: int, rng: np.random.Generator, oversample: int = 10, power_iters: int = 8
) -> SpectralInit:
    """Top-``rank`` SVD of H(x0) by randomized subspace iteration (Halko, Martinsson, Tropp 2011, Alg. 4.4).

    Args:
        ops: the Hankel operators for length n.
        x0: (n,) the signal to lift, here p⁻¹ P_Ω y.
        rank: r.
        rng: the random generator for the Gaussian test matrix.
        oversample: the sketch has r + ``oversample`` columns.
        power_iters: the number of subspace iterations.
    """
    k = min(rank + oversample, ops.n1, ops.n2)
    x_hat = ops.fft(x0)
    G = rng.standard_normal((ops.n2, k)) + 1j * rng.standard_normal((ops.n2, k))

    def h(V: np.ndarray) -> np.ndarray:  # H(x0) V
        return ops.apply_hat(x_hat, ops.fft(np.conj(V)))

    def h_adj(U: np.ndarray) -> np.ndarray:  # H(x0)ᴴ U = conj(H(x0)ᵀ Ū)
        return np.conj(ops.apply_hat(x_hat, ops.fft(U), transpose=True))

    Q = _orth(h(G))
    for _ in range(power_iters):
        Q = _orth(h(_orth(h_adj(Q))))
    B = h_adj(Q).conj().T  # Qᴴ H(x0), (k, n2)
    Ub, s, Vh = np.linalg.svd(B, full_matrices=False)
    return SpectralInit(U=Q @ Ub[:, :rank], s=s[:rank], V=Vh[:rank].conj().T)


def takagi_factor(init: SpectralInit) -> np.ndarray:
    """A factor Z (n1, r) with Z Zᵀ = P_U H(x0) P_Uᵀ, the best complex-symmetric rank-r approximation in span(U).

    For a complex-symmetric H = U S Vᴴ we have V̄ ∈ span(U), so C = Uᴴ H Ū = S Vᴴ Ū is a symmetric r × r matrix and
    Z = U C^{1/2} (a matrix square root of a symmetric matrix is symmetric, hence C^{1/2} (C^{1/2})ᵀ = C). Unlike the
    column-wise formula z_i = (u_iᴴ v̄_i)^{1/2} σ_i^{1/2} u_i it stays valid when singular values are (nearly) equal.
    """
    C = init.s[:, None] * (init.V.conj().T @ np.conj(init.U))
    C = 0.5 * (C + C.T)
    return init.U @ sla.sqrtm(C)
