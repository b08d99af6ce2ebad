"""FFT-based Hankel operators: the lift H, its adjoint H*, the pseudo-inverse H† and low-rank products.

Conventions of [P03] (as we reconstruct them from the abstract; our 0-based indexing): a signal x ∈ ℂⁿ is lifted to
the n1 × n2 Hankel matrix ``H(x)[a, b] = x[a + b]`` with n1 = ⌊n/2⌋ + 1 and n1 + n2 = n + 1 (square, n1 = n2, when n
is odd). ``w[k]`` is the number of entries on the k-th anti-diagonal, so that ‖H(x)‖_F² = Σ_k w_k |x_k|² and H† = D⁻¹
H* with D = diag(w) (anti-diagonal averaging).

No n1 × n2 matrix is ever formed: a product H(x) V is a correlation and H*(U Vᵀ) a sum of convolutions, both computed
with one FFT length N ≥ n, so each costs O(r N log N) for r columns.
"""

from __future__ import annotations

import numpy as np
import scipy.fft as sfft

__all__ = ["HankelOps"]


class HankelOps:
    """The Hankel operators for signals of length ``n`` (a plan: FFT length, weights, phases are precomputed).

    The lift H, its adjoint H* and the pseudo-inverse H† behind the generator 𝒢(Z) = H†(Z Zᵀ) of [P03], as FFT
    products. Dtypes: :meth:`apply` and :meth:`pinv` return complex128 also for complex64 (or float32) input;
    :meth:`fft` and :meth:`adjoint` keep complex64.

    Args:
        n: the signal length n >= 3.

    Attributes:
        n, n1, n2: signal length and the Hankel shape (n1 rows, n2 columns).
        N: the FFT length (the smallest fast length >= n; circular products of that length do not wrap).
        w: (n,) anti-diagonal lengths w_k (float).
    """

    def __init__(self, n: int) -> None:
        if not isinstance(n, (int, np.integer)) or n < 3:
            raise ValueError(f"n must be an int >= 3, got {n!r}")
        self.n = int(n)
        self.n1 = self.n // 2 + 1
        self.n2 = self.n + 1 - self.n1
        self.N = int(sfft.next_fast_len(self.n))  # type: ignore[arg-type]
        k = np.arange(self.n)
        self.w = np.minimum.reduce([k + 1, np.full(self.n, self.n1), np.full(self.n, self.n2), self.n - k]).astype(float)
        # DFT of a reversed, conjugated column of length m: ω^{-(m-1)k} · conj(DFT(v))_k  (ω = e^{2πi/N}).
        kk = np.arange(self.N)
        self._phase = {m: np.exp(-2j * np.pi * (m - 1) * kk / self.N)[:, None] for m in {self.n1, self.n2}}

    # ---- transforms ---------------------------------------------------------------------------------------------
    def fft(self, a: np.ndarray) -> np.ndarray:
        """DFT of length N along axis 0 (zero-padded)."""
        return np.asarray(sfft.fft(a, n=self.N, axis=0))

    def _ifft(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(sfft.ifft(a, n=self.N, axis=0))

    # ---- products ------------------------------------------------------------------------------------------------
    def apply_hat(self, x_hat: np.ndarray, V_hat: np.ndarray, *, transpose: bool = False) -> np.ndarray:
        """H(x) V̄ from the DFTs ``x_hat`` = DFT(x) (N,) and ``V_hat`` = DFT(V) (N, r).

        The conjugate is built in because every solver multiplies by a conjugated factor (H(z) Z̄, H(z) R̄ ...).
        With ``transpose`` it returns H(x)ᵀ V̄ (n2 rows; V has n1 rows). Cost: r inverse FFTs.
        """
        m_in = self.n1 if transpose else self.n2
        m_out = self.n + 1 - m_in
        # (H(x) V̄)_a = Σ_b x_{a+b} conj(V_b) = (x ∗ rev(V̄))_{a + m_in - 1}; DFT(rev(V̄)) = phase · conj(DFT(V)).
        c = self._ifft(x_hat[:, None] * self._phase[m_in] * np.conj(V_hat))
        return c[m_in - 1 : m_in - 1 + m_out]

    def _signal(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        if x.shape != (self.n,):
            raise ValueError(f"x must have shape ({self.n},), got {x.shape}")
        return x

    def _factor(self, name: str, A: np.ndarray, rows: int) -> np.ndarray:
        """A as a 2-D (rows, r) array (a 1-D A is one column); a wrong row count raises instead of zero-padding."""
        A = np.asarray(A)
        if A.ndim not in (1, 2) or A.shape[0] != rows:
            raise ValueError(f"{name} must have shape ({rows},) or ({rows}, r), got {A.shape}")
        return A[:, None] if A.ndim == 1 else A

    def apply(self, x: np.ndarray, V: np.ndarray, *, transpose: bool = False) -> np.ndarray:
        """H(x) V (or H(x)ᵀ V with ``transpose``) for V of shape (n2, r) (or (n1, r)); O(r N log N).

        Raises:
            ValueError: if x is not (n,) or V has not n2 (n1 with ``transpose``) rows.
        """
        x = self._signal(x)
        V = np.asarray(V)
        V2 = self._factor("V", V, self.n1 if transpose else self.n2)
        out = self.apply_hat(self.fft(x), self.fft(np.conj(V2)), transpose=transpose)
        return out[:, 0] if V.ndim == 1 else out

    def adjoint_hat(self, UV_hat: np.ndarray) -> np.ndarray:
        """H*(Σ_l u_l v_lᵀ) from the column-wise products DFT(u_l)·DFT(v_l) summed over l (N,) -> (n,)."""
        return self._ifft(UV_hat)[: self.n]

    def adjoint(self, U: np.ndarray, V: np.ndarray) -> np.ndarray:
        """H*(U Vᵀ) = Σ_l u_l ∗ v_l (linear convolutions; (n1, r) and (n2, r) -> (n,)). No conjugation.

        Raises:
            ValueError: if U has not n1 rows, V has not n2 rows, or their column counts differ.
        """
        U = self._factor("U", U, self.n1)
        V = self._factor("V", V, self.n2)
        if U.shape[1] != V.shape[1]:
            raise ValueError(f"U and V must have the same number of columns, got {U.shape[1]} and {V.shape[1]}")
        return self.adjoint_hat(np.sum(self.fft(U) * self.fft(V), axis=1))

    def pinv(self, U: np.ndarray, V: np.ndarray) -> np.ndarray:
        """H†(U Vᵀ) = D⁻¹ H*(U Vᵀ): anti-diagonal averages of U Vᵀ (the generator G of [P03] when V = U).

        Raises:
            ValueError: as :meth:`adjoint`.
        """
        return self.adjoint(U, V) / self.w

    def hankel_norm_sq(self, x: np.ndarray) -> float:
        """‖H(x)‖_F² = Σ_k w_k |x_k|²."""
        return float(np.sum(self.w * np.abs(self._signal(x)) ** 2))
