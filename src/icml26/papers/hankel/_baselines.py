"""Baselines on the asymmetric factorization H(x) ≈ L Rᴴ (PGD, ScaledGD) and on the rank-r manifold (FIHT).

- PGD: Cai, Wang, Wei, "Spectral compressed sensing via projected gradient descent", SIAM J. Optim. 2018 — gradient
  descent on L, R with the balancing term (1/16)‖LᴴL − RᴴR‖_F², step η/σ₁ (the incoherence projection is omitted).
- ScaledGD: Tong, Ma, Chi, "Accelerating ill-conditioned low-rank matrix estimation via scaled gradient descent",
  JMLR 2021 — the same gradient right-multiplied by (RᴴR)⁻¹ and (LᴴL)⁻¹, step η.
- FIHT: Cai, Wang, Wei, "Fast and provable algorithms for spectrally sparse signal reconstruction via low-rank
  Hankel matrix completion", ACHA 2019 — one gradient step in x, projected to the tangent space of the rank-r
  manifold at the current iterate, then truncated to rank r through a 2r × 2r SVD.

All three use the objective of :mod:`._symmetric` in the matrix variable M = L Rᴴ (gradient M + H(z)), the same spectral
initialisation and FFT products only. Per iteration: 4r + 2 (PGD, ScaledGD) or 6r + 2 (FIHT) FFTs.
"""

from __future__ import annotations

import numpy as np

from icml26.papers.hankel._init import SpectralInit
from icml26.papers.hankel._ops import HankelOps
from icml26.papers.hankel._symmetric import residual_signal, right_solve

__all__ = ["AsymmetricGD", "FIHT"]


class AsymmetricGD:
    """PGD (``scaled=False``) or ScaledGD (``scaled=True``) on (L, R) with x = H†(L Rᴴ).

    Args:
        ops, y0, mask, p: as in :class:`._symmetric.SymmetricGD`.
        init: the spectral initialisation; L0 = U S^{1/2}, R0 = V S^{1/2}.
        eta: η (PGD uses η/σ₁).
        scaled: True for ScaledGD.
    """

    def __init__(
        self,
        ops: HankelOps,
        init: SpectralInit,
        y0: np.ndarray,
        mask: np.ndarray,
        p: float,
        *,
        eta: float,
        scaled: bool,
    ) -> None:
        self.ops, self.y0, self.mask, self.p, self.eta, self.scaled = ops, y0, mask, p, eta, scaled
        self.sigma1 = float(init.s[0])
        root = np.sqrt(init.s)
        self._set(init.U * root, init.V * root)

    def _set(self, L: np.ndarray, R: np.ndarray) -> None:
        self.L, self.R = L, R
        self.FL, self.FRc = self.ops.fft(L), self.ops.fft(np.conj(R))
        self.x = self.ops.adjoint_hat(np.sum(self.FL * self.FRc, axis=1)) / self.ops.w  # H†(L Rᴴ)

    def step(self) -> np.ndarray:
        """One iteration; returns the new signal x = H†(L⁺ R⁺ᴴ)."""
        ops, L, R = self.ops, self.L, self.R
        z_hat = ops.fft(residual_signal(self.x, self.y0, self.mask, self.p))
        HzR = ops.apply_hat(z_hat, self.FRc)  # H(z) R
        HzhL = np.conj(ops.apply_hat(z_hat, self.FL, transpose=True))  # H(z)ᴴ L = conj(H(z)ᵀ L̄)
        LhL, RhR = L.conj().T @ L, R.conj().T @ R
        if self.scaled:
            # (M + H(z)) R (RᴴR)⁻¹ = L + H(z) R (RᴴR)⁻¹, and likewise for R.
            L_new = (1.0 - self.eta) * L - self.eta * right_solve(HzR, RhR)
            R_new = (1.0 - self.eta) * R - self.eta * right_solve(HzhL, LhL)
        else:
            B = LhL - RhR  # balancing term: ∇ of (1/16)‖LᴴL − RᴴR‖² is (¼ L B, −¼ R B)
            step = self.eta / self.sigma1
            L_new = L - step * (L @ RhR + HzR + 0.25 * L @ B)
            R_new = R - step * (R @ LhL + HzhL - 0.25 * R @ B)
        self._set(L_new, R_new)
        return self.x


class FIHT:
    """Fast iterative hard thresholding: x⁺ = H†(𝒯_r 𝒫_T H(x + p⁻¹ P_Ω(y − x))) with L = U S Vᴴ kept in SVD form."""

    def __init__(self, ops: HankelOps, init: SpectralInit, y0: np.ndarray, mask: np.ndarray, p: float) -> None:
        self.ops, self.y0, self.mask, self.p = ops, y0, mask, p
        self._set(init.U, init.s, init.V)

    def _set(self, U: np.ndarray, s: np.ndarray, V: np.ndarray) -> None:
        self.U, self.s, self.V = U, s, V
        self.x = self.ops.adjoint_hat(np.sum(self.ops.fft(U * s) * self.ops.fft(np.conj(V)), axis=1)) / self.ops.w

    def step(self) -> np.ndarray:
        """One iteration; returns the new signal."""
        ops, U, V, r = self.ops, self.U, self.V, self.s.size
        g = np.where(self.mask, self.x + (self.y0 - self.x) / self.p, self.x)  # gradient step on x
        g_hat = ops.fft(g)
        GV = ops.apply_hat(g_hat, ops.fft(np.conj(V)))  # H(g) V
        GhU = np.conj(ops.apply_hat(g_hat, ops.fft(U), transpose=True))  # H(g)ᴴ U
        M11 = U.conj().T @ GV
        Q1, R1 = np.linalg.qr(GV - U @ M11)  # (I − UUᴴ) G V
        Q2, R2 = np.linalg.qr(GhU - V @ M11.conj().T)  # (I − VVᴴ) Gᴴ U
        K = np.block([[M11, R2.conj().T], [R1, np.zeros((r, r), dtype=M11.dtype)]])
        A, sk, Bh = np.linalg.svd(K)  # 𝒫_T G = [U Q1] K [V Q2]ᴴ; truncate to rank r
        self._set(np.hstack([U, Q1]) @ A[:, :r], sk[:r], np.hstack([V, Q2]) @ Bh[:r].conj().T)
        return self.x
