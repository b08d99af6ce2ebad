"""The closed forms of [P27] and of the editing baselines, in float64: the sensitive-subspace projector P, the
multiplicative edit D, the null-space projector of AlphaEdit, and MEMIT's and AlphaEdit's additive updates."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import real, real_array

__all__ = ["alphaedit_delta", "closed_form_edit", "memit_delta", "null_space_basis", "null_space_projector",
           "sensitive_projector"]


def _matrix(x: Any, name: str, shape: tuple[int | None, int | None] = (None, None)) -> Tensor:
    """``x`` (array or tensor) as a finite float64 CPU tensor of the given shape (``None``: any length)."""
    if isinstance(x, Tensor):
        x = x.detach().cpu().numpy()
    a = real_array(x, name, ndim=2, shape=shape)
    return torch.from_numpy(np.ascontiguousarray(a))


def sensitive_projector(Z_true: Any, *, eps: float = 0.01) -> Tensor:
    """P = (1 + ε) I − V Vᵀ, V an orthonormal basis of the span of the sensitive vectors [P27] (Sec. 3).

    ``Z_true`` (n × d) holds one vector per forget fact: the down-projection output that makes the model produce the
    true answer (from :func:`compute_z` with the answers as target). ``V`` are its right singular vectors with
    non-negligible singular values (rank-revealing cut at ``max(n, d) · ε_machine · σ_max``; the paper keeps all
    ``min(n, d)``, the same for full-rank ``Z_true``). Then ``P v = ε v`` on span(Z_true) and ``P u = (1 + ε) u``
    on its orthogonal complement. Returns the d × d float64 tensor.
    """
    z = _matrix(Z_true, "Z_true")
    eps = real(eps, "eps", lo=0.0)
    _, s, vt = torch.linalg.svd(z, full_matrices=False)
    tol = max(z.shape) * torch.finfo(torch.float64).eps * (float(s[0]) if s.numel() else 0.0)
    v = vt[s > tol].T  # d × r
    d = z.shape[1]
    return (1.0 + eps) * torch.eye(d, dtype=torch.float64) - v @ v.T


def closed_form_edit(W: Any, P: Any, S_VK: Any, S_KK: Any, *, lam: float = 1.0) -> Tensor:
    """The multiplicative edit D (W ← D W) minimising Σ‖D W k − P v‖² + λ‖D W − P W‖²_F [P27] (Sec. 3, closed form).

    Setting the gradient in D to zero gives the normal equations D W (Σ_KK + λI) Wᵀ = P (Σ_VK + λ W) Wᵀ, so
        D = P (Σ_VK + λ W) Wᵀ [W (Σ_KK + λ I) Wᵀ]⁻¹,
    solved in float64 (``torch.linalg.solve``, never an explicit inverse). Σ_KK = Σ k kᵀ and Σ_VK = Σ v kᵀ are
    the (weighted) key and value moments of the retain and forget sets.

    Args:
        W: d × m, the down-projection (d hidden size, m MLP width).
        P: d × d (:func:`sensitive_projector`).
        S_VK: d × m, the value-key moment.
        S_KK: m × m, the key moment.
        lam: λ >= 0, the pull of D W towards P W (the paper: 1).

    Returns:
        D, d × d float64.
    """
    w = _matrix(W, "W")
    d, m = w.shape
    p = _matrix(P, "P", (d, d))
    svk = _matrix(S_VK, "S_VK", (d, m))
    skk = _matrix(S_KK, "S_KK", (m, m))
    lam = real(lam, "lam", lo=0.0)
    a = p @ (svk + lam * w) @ w.T
    b = w @ (skk + lam * torch.eye(m, dtype=torch.float64)) @ w.T
    try:
        return torch.linalg.solve(b.T, a.T).T  # D B = A  <=>  Bᵀ Dᵀ = Aᵀ
    except RuntimeError as exc:  # torch.linalg.LinAlgError is a RuntimeError
        raise ValueError("W (S_KK + lam I) W^T is singular: give lam > 0 or a W of full row rank") from exc


def null_space_basis(S_KK: Any, *, threshold: float) -> Tensor:
    """U₀ (m × r): the eigenvectors of Σ_KK with eigenvalue below ``threshold`` (AlphaEdit's null space of the retain
    keys; [P27]'s gradient variant restricts its update to it), float64."""
    skk = _matrix(S_KK, "S_KK")
    if skk.shape[0] != skk.shape[1]:
        raise ValueError(f"S_KK must be square, got shape {tuple(skk.shape)}")
    threshold = real(threshold, "threshold", lo=0.0)
    vals, vecs = torch.linalg.eigh((skk + skk.T) / 2)
    return vecs[:, vals < threshold]


def null_space_projector(S_KK: Any, *, threshold: float) -> Tensor:
    """P = U₀ U₀ᵀ (m × m float64), the projector onto :func:`null_space_basis` (AlphaEdit's, used by [P27]'s
    gradient variant)."""
    u0 = null_space_basis(S_KK, threshold=threshold)
    return u0 @ u0.T


def memit_delta(R: Any, K: Any, C: Any, *, weight: float) -> Tensor:
    """MEMIT's additive update ΔW = Rᵀ K (λ C + Kᵀ K)⁻¹ (d × m) for residuals R (n × d) at keys K (n × m), C the
    retain key moment E[k kᵀ] weighted by λ = ``weight`` (the MEMIT baseline of [P27])."""
    r = _matrix(R, "R")
    k = _matrix(K, "K", (r.shape[0], None))
    m = k.shape[1]
    c = _matrix(C, "C", (m, m))
    weight = real(weight, "weight", lo=0.0)
    a = weight * c + k.T @ k + 1e-10 * torch.eye(m, dtype=torch.float64)
    return torch.linalg.solve(a, k.T @ r).T


def alphaedit_delta(R: Any, K: Any, Pn: Any, *, l2: float) -> Tensor:
    """AlphaEdit's null-space update ΔW = Rᵀ K P (Kᵀ K P + α I)⁻¹ (d × m), P = ``Pn`` the null-space projector and
    α = ``l2`` > 0 (the AlphaEdit baseline of [P27])."""
    r = _matrix(R, "R")
    k = _matrix(K, "K", (r.shape[0], None))
    m = k.shape[1]
    pn = _matrix(Pn, "Pn", (m, m))
    l2 = real(l2, "l2", lo=0.0, lo_open=True)
    a = pn @ k.T @ k + l2 * torch.eye(m, dtype=torch.float64)  # (Kᵀ K P + α I)ᵀ, P symmetric
    return torch.linalg.solve(a, pn @ k.T @ r).T
