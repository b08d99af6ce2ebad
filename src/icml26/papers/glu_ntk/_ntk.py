"""The empirical NTK, its spectrum statistics and the linearised gradient-descent dynamics it induces.

Implements the NTK analysis of [P21]: the empirical kernel K = J Jᵀ (summed over outputs), its condition number
κ = λ_max / λ_min and the shape of its eigenvalue distribution, and the linearised GD residual dynamics
r_{t+1} = (I − η K) r_t, whose mode i decays like (1 − η λ_i)^t, so that with η = 1/λ_max the slowest rate is 1 − 1/κ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common.validation import int_at_least, positive_int, real, real_array

__all__ = [
    "SpectrumStats",
    "empirical_ntk",
    "jacobian",
    "linearized_gd_losses",
    "loss_crossing",
    "ntk_spectrum_stats",
    "steps_to_target",
]


def _as_inputs(model: nn.Module, X: object) -> Tensor:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if isinstance(X, np.ndarray):
        X = torch.from_numpy(real_array(X, "X", ndim=2, allow_empty=True, finite=False))
    if not isinstance(X, Tensor):
        raise TypeError(f"X must be a torch.Tensor or numpy array, got {type(X).__name__}")
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must have shape (N, d) with N >= 1, got {tuple(X.shape)}")
    if not (X.is_floating_point() or X.dtype in (torch.int32, torch.int64)):
        raise TypeError(f"X must be a real numeric tensor, got dtype {X.dtype}")
    in_dim = getattr(model, "in_dim", None)
    if in_dim is not None and X.shape[1] != in_dim:
        raise ValueError(f"X has {X.shape[1]} features but the model expects in_dim={in_dim}")
    X = X.detach().to(torch.float64)
    if not torch.isfinite(X).all():
        raise ValueError("X contains non-finite values (nan or inf)")
    return X


def jacobian(model: nn.Module, X: Tensor | np.ndarray) -> Tensor:
    """Per-sample Jacobian of the outputs with respect to all trainable parameters, in float64 (the J of [P21]'s
    empirical NTK K = J Jᵀ).

    Returns J of shape ``(N, c, p)``: ``J[i, k]`` = ∇_θ z_k(x_i), parameters flattened in ``named_parameters`` order.
    Computed with ``torch.func.vmap(jacrev(...))`` on float64 copies of the parameters; ``model`` is not modified.
    A model whose output is ``(N,)`` is treated as c = 1.
    """
    from torch.func import functional_call, jacrev, vmap

    Xd = _as_inputs(model, X)
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    if not names:
        raise ValueError("model has no trainable parameters")
    params = {n: p.detach().to(torch.float64) for n, p in model.named_parameters() if p.requires_grad}
    buffers = {n: b.detach() for n, b in model.named_buffers()}

    def f(theta: dict[str, Tensor], x: Tensor) -> Tensor:
        out = functional_call(model, (theta, buffers), (x.unsqueeze(0),))
        return out.reshape(-1)  # (c,)

    jac = vmap(jacrev(f), in_dims=(None, 0))(params, Xd)  # name -> (N, c, *shape)
    N = Xd.shape[0]
    blocks = [jac[n].reshape(N, jac[n].shape[1], -1) for n in names]
    return torch.cat(blocks, dim=2)


def empirical_ntk(model: nn.Module, X: Tensor | np.ndarray) -> Tensor:
    """The empirical NTK at the current parameters, float64, shape ``(N, N)``.

    Implements the kernel of [P21] (NTK analysis): K_ij = Σ_k ⟨∇_θ z_k(x_i), ∇_θ z_k(x_j)⟩ (for c = 1 this is
    the NTK Θ = J Jᵀ; for c > 1 it is the output-summed kernel of the authors' code). Symbols: θ ↔ ``model.parameters()``,
    x_i ↔ ``X[i]``.
    """
    J = jacobian(model, X)
    K = torch.einsum("ikp,jkp->ij", J, J)
    return 0.5 * (K + K.T)  # exact symmetry (the einsum is symmetric up to rounding)


@dataclass(frozen=True)
class SpectrumStats:
    """Summary of an NTK spectrum (eigenvalues ascending): the measures of [P21]'s condition-number and
    spectrum-shape claim.

    Attributes:
        eigenvalues: all eigenvalues, ascending.
        lambda_max, lambda_min: the extreme eigenvalues.
        condition_number: κ = λ_max / λ_min (``inf`` when λ_min <= the numerical-rank tolerance).
        quantiles: (q, λ_q / λ_max) for each requested quantile q of the eigenvalue distribution.
        top_share: λ_max / trace(K), the share of the top eigenvalue.
        second_gap: λ_max / λ_(2), how far the top eigenvalue stands out of the rest (``inf`` if N = 1 or λ_(2) = 0).
        log_spread: standard deviation of log λ over the positive eigenvalues (a scale-free width of the spectrum).
    """

    eigenvalues: tuple[float, ...]
    lambda_max: float
    lambda_min: float
    condition_number: float
    quantiles: tuple[tuple[float, float], ...]
    top_share: float
    second_gap: float
    log_spread: float


def _as_kernel(K: object) -> np.ndarray:
    if isinstance(K, Tensor):
        K = K.detach().cpu().numpy()
    if not isinstance(K, np.ndarray):
        raise TypeError(f"K must be a torch.Tensor or numpy array, got {type(K).__name__}")
    K = real_array(K, "K", allow_empty=True, finite=False)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"K must be a non-empty square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains non-finite values (nan or inf)")
    scale = max(float(np.abs(K).max()), np.finfo(float).tiny)
    if float(np.abs(K - K.T).max()) > 1e-8 * scale:
        raise ValueError("K must be symmetric")
    return 0.5 * (K + K.T)


def _eigh_checked(K: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    lam, U = np.linalg.eigh(K)
    tol = K.shape[0] * np.finfo(np.float64).eps * max(float(np.abs(lam).max()), np.finfo(float).tiny)
    if lam[0] < -100 * tol:
        raise ValueError(f"K must be positive semi-definite, smallest eigenvalue {lam[0]:.3g}")
    return lam, U, tol


def ntk_spectrum_stats(K: Tensor | np.ndarray, *, quantiles: Sequence[float] = (0.1, 0.5, 0.9)) -> SpectrumStats:
    """Condition number, normalised quantiles and top-eigenvalue share of an NTK ([P21], NTK spectrum).

    Args:
        K: symmetric positive semi-definite ``(N, N)`` kernel, e.g. from :func:`empirical_ntk`.
        quantiles: quantile levels q in [0, 1] of the eigenvalue distribution to report (as λ_q / λ_max).
    """
    Kn = _as_kernel(K)
    qs = tuple(float(q) for q in real_array(quantiles, "quantiles", ndim=1))
    if any(not (0.0 <= q <= 1.0) for q in qs):
        raise ValueError(f"quantiles must lie in [0, 1], got {qs}")
    lam, _, tol = _eigh_checked(Kn)
    lam = np.clip(lam, 0.0, None)
    lmax, lmin = float(lam[-1]), float(lam[0])
    if lmax <= 0.0:
        raise ValueError("K is zero: the spectrum has no positive eigenvalue")
    kappa = lmax / lmin if lmin > tol else float("inf")
    second = float(lam[-2]) if lam.size > 1 else 0.0
    pos = lam[lam > tol]
    return SpectrumStats(
        eigenvalues=tuple(float(v) for v in lam),
        lambda_max=lmax,
        lambda_min=lmin,
        condition_number=float(kappa),
        quantiles=tuple((q, float(np.quantile(lam, q)) / lmax) for q in qs),
        top_share=lmax / float(lam.sum()),
        second_gap=lmax / second if second > tol else float("inf"),
        log_spread=float(np.std(np.log(pos))) if pos.size else 0.0,
    )


def _dynamics_inputs(K: object, r0: object, eta: object) -> tuple[np.ndarray, np.ndarray, float]:
    Kn = _as_kernel(K)
    if isinstance(r0, Tensor):
        r0 = r0.detach().cpu().numpy()
    r = real_array(r0, "r0", allow_empty=True, finite=False)
    if r.ndim != 1 or r.shape[0] != Kn.shape[0]:
        raise ValueError(f"r0 must have shape ({Kn.shape[0]},) to match K, got {r.shape}")
    if not np.all(np.isfinite(r)):
        raise ValueError("r0 contains non-finite values (nan or inf)")
    eta = real(eta, "eta", lo=0.0, lo_open=True)
    lam, U, _ = _eigh_checked(Kn)
    lam = np.clip(lam, 0.0, None)
    if float(eta) * lam[-1] >= 2.0:
        raise ValueError(f"eta={eta:.4g} must be < 2/λ_max = {2.0 / lam[-1]:.4g}: linearised GD would diverge")
    return lam, U.T @ r, float(eta)


def _loss_at(lam: np.ndarray, c: np.ndarray, eta: float, t: np.ndarray) -> np.ndarray:
    # mode i of the residual is (1 - η λ_i)^t c_i; loss = ½ mean_i r_i²
    rho2 = (1.0 - eta * lam) ** 2
    return 0.5 * np.mean(rho2[None, :] ** t[:, None] * c[None, :] ** 2, axis=1)


def linearized_gd_losses(K: Tensor | np.ndarray, r0: Tensor | np.ndarray, *, eta: float, steps: int) -> np.ndarray:
    """Loss curve of gradient descent on the linearised model ([P21], NTK training dynamics).

    For the sum-of-squares objective ½‖f(X) − y‖² the linearised residual obeys r_{t+1} = (I − η K) r_t, so in K's
    eigenbasis (K = U diag(λ) Uᵀ, c = Uᵀ r_0) the loss is ½ mean_i (1 − η λ_i)^{2t} c_i² (reported per sample; GD on
    the mean loss with step η·N is the same trajectory). Symbols: K ↔ ``K``, r_0 = f_0(X) − y ↔ ``r0``, η ↔ ``eta``.

    Returns:
        losses of shape ``(steps + 1,)``, index t = after t steps.
    """
    steps = int_at_least(steps, "steps", 0)
    lam, c, eta = _dynamics_inputs(K, r0, eta)
    return _loss_at(lam, c, eta, np.arange(steps + 1, dtype=np.float64))


def steps_to_target(
    K: Tensor | np.ndarray, r0: Tensor | np.ndarray, *, eta: float, rel_target: float, max_steps: int = 10**9
) -> int | None:
    """Fewest linearised GD steps t with loss_t <= ``rel_target`` · loss_0 (``None`` if more than ``max_steps``).

    Exact, by bisection: with 0 < η λ_max < 2 every mode decays monotonically, so the loss is non-increasing in t.
    The convergence-speed measure of [P21]'s faster-convergence claim.
    """
    rel_target = real(rel_target, "rel_target", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    max_steps = positive_int(max_steps, "max_steps")
    lam, c, eta = _dynamics_inputs(K, r0, eta)
    loss0 = float(_loss_at(lam, c, eta, np.zeros(1))[0])
    if loss0 == 0.0:
        return 0
    target = rel_target * loss0

    def ok(t: int) -> bool:
        return float(_loss_at(lam, c, eta, np.array([float(t)]))[0]) <= target

    if not ok(max_steps):
        return None
    lo, hi = 0, max_steps  # invariant: not ok(lo) (loss_0 > target), ok(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def loss_crossing(loss_nonglu: Sequence[float] | np.ndarray, loss_glu: Sequence[float] | np.ndarray, *,
                  margin: float = 0.0) -> int | None:
    """The loss-crossing point of [P21] (abstract): non-GLU ahead early, GLU ahead from some step on until the end.

    Returns the first index t* such that GLU's loss is below non-GLU's (by a relative ``margin``) at every index from
    t* to the end, provided non-GLU was ahead (by the same margin) at some index before t*; ``None`` otherwise.
    """
    a = real_array(loss_nonglu, "loss_nonglu", ndim=1)
    b = real_array(loss_glu, "loss_glu", ndim=1)
    if a.shape != b.shape or a.size < 2:
        raise ValueError(f"loss_nonglu and loss_glu must be 1-D of equal length >= 2, got {a.shape} and {b.shape}")
    margin = real(margin, "margin", lo=0.0, hi=1.0, hi_open=True)
    glu_ahead = b * (1.0 + margin) < a
    non_ahead = a * (1.0 + margin) < b
    if not glu_ahead[-1]:
        return None
    behind = np.flatnonzero(~glu_ahead)
    t_star = int(behind[-1]) + 1 if behind.size else 0
    return t_star if non_ahead[:t_star].any() else None
