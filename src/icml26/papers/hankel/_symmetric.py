"""Gradient descent on the symmetric factorization H(x) ≈ Z Zᵀ: JPGD (the method of [P03]) and SHGD (its baseline).

The objective of [P03] (reconstructed, see the package docstring) in the factor Z ∈ ℂ^{n1×r}, with the generator
x = 𝒢(Z) = H†(Z Zᵀ) mapping factors to signals:

    f(Z) = ½ ‖(I − H H†)(Z Zᵀ)‖_F² + (1/2p) Σ_{k∈Ω} w_k |x_k − y_k|²            (objective)

Its gradient (for the real inner product Re⟨·,·⟩) is ∇f(Z) = 2 (Z Zᵀ + H(z)) Z̄ with z = p⁻¹(P_Ω x − y) − x.
SHGD steps along −∇f/2 with the step η/σ₁; JPGD right-multiplies the gradient by the r × r Jacobi (block-diagonal
Gauss-Newton) preconditioner (Zᵀ Z̄)⁻¹:

    Z⁺ = Z − η (Z Zᵀ + H(z)) Z̄ (Zᵀ Z̄)⁻¹ = (1 − η) Z − η H(z) Z̄ (Zᵀ Z̄)⁻¹     (preconditioned step)

Per iteration: 2r + 2 FFTs of length N ≥ n and O(n r²) dense work.
"""

from __future__ import annotations

import numpy as np

from icml26.papers.hankel._ops import HankelOps

__all__ = [
    "SymmetricGD", "generator", "residual_signal", "right_solve", "symmetric_gradient", "symmetric_objective",
]


def generator(ops: HankelOps, Z: np.ndarray) -> np.ndarray:
    """The generator 𝒢(Z) = H†(Z Zᵀ) of [P03]: anti-diagonal averages of Z Zᵀ, via r convolutions z_l ∗ z_l."""
    FZ = ops.fft(Z)
    return ops.adjoint_hat(np.sum(FZ * FZ, axis=1)) / ops.w


def residual_signal(x: np.ndarray, y0: np.ndarray, mask: np.ndarray, p: float) -> np.ndarray:
    """Z = p⁻¹ (P_Ω x − y) − x, so that Z Zᵀ + H(z) is the gradient of the objective in the matrix variable."""
    return np.where(mask, (x - y0) / p - x, -x)


def right_solve(A: np.ndarray, P: np.ndarray) -> np.ndarray:
    """A P⁻¹ for a tall A (m, r) and a small nonsingular P (r, r): the preconditioner of [P03] (and of ScaledGD).

    Inverts the r × r matrix once and multiplies (O(r³ + m r²)); ``np.linalg.solve`` on the m right-hand sides of
    Pᵀ Xᵀ = Aᵀ gives the same X to rounding but costs several times more at r = 10 (it copies the m columns one by one).
    """
    return A @ np.linalg.inv(P)


def symmetric_objective(ops: HankelOps, Z: np.ndarray, y0: np.ndarray, mask: np.ndarray, p: float) -> float:
    """f(Z) above, in O(n r²): ‖Z Zᵀ‖_F² = Σ_{lm} (Zᴴ Z)_{lm}² (no modulus), ‖H(x)‖_F² = Σ w|x|², and H H† is an orthogonal projector."""
    x = generator(ops, Z)
    misfit = float(np.sum(ops.w[mask] * np.abs(x[mask] - y0[mask]) ** 2)) / (2.0 * p)
    return 0.5 * (float(np.sum((Z.conj().T @ Z) ** 2).real) - ops.hankel_norm_sq(x)) + misfit


def symmetric_gradient(ops: HankelOps, Z: np.ndarray, y0: np.ndarray, mask: np.ndarray, p: float) -> np.ndarray:
    """∇f(Z) = 2 (Z (Zᵀ Z̄) + H(z) Z̄) for the real inner product Re tr(Aᴴ B) (checked by finite differences)."""
    x = generator(ops, Z)
    z = residual_signal(x, y0, mask, p)
    return 2.0 * (Z @ (Z.T @ Z.conj()) + ops.apply_hat(ops.fft(z), ops.fft(Z)))


class SymmetricGD:
    """The iteration on Z for ``method`` "jpgd" (preconditioned, step η) or "shgd" (plain, step η/σ₁).

    Args:
        ops: Hankel operators; n must be odd (square lift).
        Z0: (n1, r) initial factor (the Takagi factor of the spectral initialisation).
        y0: (n,) observations, zero outside ``mask``.
        mask: (n,) bool Ω.
        p: sampling ratio |Ω|/n.
        eta: η.
        sigma1: σ₁ of the spectral initialisation (scales the SHGD step).
        preconditioned: True for JPGD.
    """

    def __init__(
        self,
        ops: HankelOps,
        Z0: np.ndarray,
        y0: np.ndarray,
        mask: np.ndarray,
        p: float,
        *,
        eta: float,
        sigma1: float,
        preconditioned: bool,
    ) -> None:
        self.ops, self.y0, self.mask, self.p = ops, y0, mask, p
        self.eta, self.sigma1, self.preconditioned = eta, sigma1, preconditioned
        self.Z = Z0
        self.FZ = ops.fft(Z0)
        self.x = ops.adjoint_hat(np.sum(self.FZ * self.FZ, axis=1)) / ops.w

    def step(self) -> np.ndarray:
        """One iteration; returns the new signal x = 𝒢(Z⁺)."""
        ops, Z, eta = self.ops, self.Z, self.eta
        z = residual_signal(self.x, self.y0, self.mask, self.p)
        HzZ = ops.apply_hat(ops.fft(z), self.FZ)  # H(z) Z̄
        P = Z.T @ Z.conj()  # Zᵀ Z̄: r × r, Hermitian positive definite
        if self.preconditioned:
            # Preconditioned step: Z⁺ = (1 − η) Z − η H(z) Z̄ (Zᵀ Z̄)⁻¹   (one r × r inverse)
            Z_new = (1.0 - eta) * Z - eta * right_solve(HzZ, P)
        else:
            # Plain gradient step (SHGD): Z⁺ = Z − (η/σ₁) (Z Zᵀ Z̄ + H(z) Z̄)
            Z_new = Z - (eta / self.sigma1) * (Z @ P + HzZ)
        self.Z = Z_new
        self.FZ = ops.fft(Z_new)
        self.x = ops.adjoint_hat(np.sum(self.FZ * self.FZ, axis=1)) / ops.w
        return self.x
