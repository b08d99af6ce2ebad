"""Parameter velocities of Dirac-Frenkel residual minimisation, and the Onsager (DFO) selection among them.

Notation of [P14] (reconstructed from the abstract; see the package card): the ansatz ``u(x; theta)`` with
``theta`` in R^p is collocated at n points; ``J = du/dtheta`` (n x p) and ``F = f(u)`` (n,) is the PDE right-hand
side. Dirac-Frenkel (DF) asks for ``theta_dot`` in argmin_eta ||J eta - F||_2 (the instantaneous residual). When J is
(numerically) rank deficient the minimisers form ``theta_dot* + N(J)``: the gauge freedom.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from icml26.common.validation import choice, real, real_array

__all__ = ["METHODS", "VelocityInfo", "check_reg", "dirac_frenkel_velocity", "velocity_and_info"]

Method = Literal["lstsq", "tsvd", "tikhonov", "dfo"]
METHODS: tuple[str, ...] = ("lstsq", "tsvd", "tikhonov", "dfo")


@dataclass(frozen=True)
class VelocityInfo:
    """Diagnostics of one velocity solve.

    The residuals that [P14]'s residual-minimisation claim compares (DF objective, least-squares and truncated minima).

    Attributes:
        residual: ``||J theta_dot - F||_2`` of the returned velocity (the DF objective).
        residual_min: ``min_eta ||J eta - F||_2`` computed at machine precision (the least-squares minimum).
        residual_trunc: the truncated minimum ``||(I - U_r U_r^T) F||`` with ``sigma_i > tol sigma_max`` kept: the
            smallest residual any velocity built from the truncated SVD at this ``tol`` can reach (= TSVD's).
        rank: numerical rank used (singular values kept); ``p`` for Tikhonov, the LAPACK rank for lstsq.
        sigma_max: the largest singular value of J.
        sigma_min: the smallest singular value of J.
    """

    residual: float
    residual_min: float
    residual_trunc: float
    rank: int
    sigma_max: float
    sigma_min: float


def _check_inputs(J: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    J = real_array(J, "J", ndim=2)
    F = real_array(F, "F", ndim=1)
    if F.shape[0] != J.shape[0]:
        raise ValueError(f"F must have shape ({J.shape[0]},) to match J {J.shape}, got {F.shape}")
    return J, F


def check_reg(reg: float | None, *, method: str = "tikhonov", tol: float = 1e-4) -> None:
    """Validate the Tikhonov ``reg`` (None or a finite real >= 0; tikhonov needs ``reg > 0`` or ``tol > 0``)."""
    if reg is not None:
        reg = real(reg, "reg", lo=0.0)
    if method == "tikhonov" and (reg == 0 or (reg is None and tol == 0)):
        raise ValueError("tikhonov needs reg > 0 (or tol > 0 when reg is None)")


def velocity_and_info(
    J: np.ndarray,
    F: np.ndarray,
    *,
    method: Method = "dfo",
    tol: float = 1e-4,
    reg: float | None = None,
    history: np.ndarray | None = None,
) -> tuple[np.ndarray, VelocityInfo]:
    """Like :func:`dirac_frenkel_velocity`, and also return the residual diagnostics (:class:`VelocityInfo`).

    The [P14] Dirac-Frenkel / DFO velocity (our reconstruction from the abstract); the velocity is float64, also for
    float32 ``J`` / ``F``.
    """
    J, F = _check_inputs(J, F)
    n, p = J.shape
    choice(method, "method", METHODS)
    tol = real(tol, "tol", lo=0.0)
    check_reg(reg, method=method, tol=tol)
    m = None if history is None else real_array(history, "history", shape=(p,))

    U, S, Vt = np.linalg.svd(J, full_matrices=False)
    smax = float(S[0])
    c = U.T @ F  # coordinates of F in the left singular basis
    # the least-squares minimum at machine precision (LAPACK's default cut eps * max(n, p) * sigma_max)
    machine_keep = S > np.finfo(np.float64).eps * max(n, p) * smax
    Uk = U[:, machine_keep]
    res_min = float(np.linalg.norm(F - Uk @ (Uk.T @ F)))  # ||(I - U_k U_k^T) F||, no cancellation
    # the truncated minimum at this tol: what TSVD (and DFO, whose history lives in the dropped directions) reaches
    keep = S > tol * smax if smax > 0 else np.zeros_like(S, dtype=bool)
    Ur = U[:, keep]
    res_trunc = float(np.linalg.norm(F - Ur @ (Ur.T @ F)))

    if method == "lstsq":
        # DF with LAPACK's minimum-norm least squares (rcond = machine precision): the "plain" DF velocity
        v, _, rank, _ = np.linalg.lstsq(J, F, rcond=None)
    elif method == "tikhonov":
        # Tikhonov-regularised DF: (J^T J + reg I)^{-1} J^T F; reg defaults to (tol * sigma_max)^2
        lam = (tol * smax) ** 2 if reg is None else float(reg)
        if lam <= 0:  # reg None, tol > 0 but J == 0
            raise ValueError("tikhonov needs reg > 0 when sigma_max(J) = 0")
        v = Vt.T @ (S / (S**2 + lam) * c)
        rank = p
    else:
        # truncated SVD: keep sigma_i > tol * sigma_max; V_r Sigma_r^{-1} U_r^T F is the min-norm DF velocity
        Vr = Vt[keep].T
        v = Vr @ (c[keep] / S[keep])
        rank = int(keep.sum())
        if method == "dfo" and m is not None:
            # Onsager selection: argmin ||eta - m|| over the DF minimisers = v_tsvd + (I - V_r V_r^T) m,
            # i.e. the history enters only through the (numerical) nullspace of J
            v = v + (m - Vr @ (Vr.T @ m))
    residual = float(np.linalg.norm(J @ v - F))
    info = VelocityInfo(residual=residual, residual_min=res_min, residual_trunc=res_trunc, rank=int(rank),
                        sigma_max=smax, sigma_min=float(S[-1]) if S.size == p else 0.0)
    return v, info


def dirac_frenkel_velocity(
    J: np.ndarray,
    F: np.ndarray,
    *,
    method: Method = "dfo",
    tol: float = 1e-4,
    reg: float | None = None,
    history: np.ndarray | None = None,
) -> np.ndarray:
    """Parameter velocity ``theta_dot`` that minimises the instantaneous residual ``||J theta_dot - F||``.

    Implements the Dirac-Frenkel velocity and its Dirac-Frenkel-Onsager (DFO) selection of [P14] (abstract; our
    reconstruction): among all DF minimisers pick the one closest to the history ``m`` (Onsager's minimum
    dissipation ``1/2 ||eta - m||^2``), ``theta_dot = J_r^+ F + (I - V_r V_r^T) m``, so that ``m`` acts only in the
    numerical nullspace of J and the residual is that of the truncated least-squares solution.

    Symbols: J <-> ``J`` (n x p, ``du/dtheta`` at the collocation points), F <-> ``F`` (n,), m <-> ``history``,
    numerical-rank cut ``sigma_i > tol * sigma_max`` <-> ``tol``, Tikhonov lambda <-> ``reg``.

    Args:
        J: (n, p) Jacobian of the ansatz with respect to the parameters.
        F: (n,) PDE right-hand side at the collocation points.
        method: ``"lstsq"`` (plain DF: LAPACK minimum-norm least squares at machine precision), ``"tsvd"``
            (minimum-norm with singular values below ``tol * sigma_max`` dropped), ``"tikhonov"``
            (``(J^T J + reg I)^{-1} J^T F``) or ``"dfo"`` (tsvd plus the nullspace projection of ``history``).
        tol: relative singular-value cut for ``tsvd`` / ``dfo`` (>= 0); sets ``reg = (tol sigma_max)^2`` for
            ``tikhonov`` when ``reg`` is None.
        reg: Tikhonov parameter lambda >= 0 (only used by ``tikhonov``).
        history: (p,) history variable m for ``dfo`` (None: zero, i.e. the tsvd velocity); ignored otherwise.

    Returns:
        The (p,) float64 velocity (float32 ``J`` / ``F`` are promoted).

    Raises:
        ValueError: shapes that disagree, empty or non-finite entries, a negative ``tol`` / ``reg``, an unknown
            ``method``.
        TypeError: complex or non-numeric ``J`` / ``F`` / ``history``, a non-real ``tol`` / ``reg`` (bools too).
    """
    v, _ = velocity_and_info(J, F, method=method, tol=tol, reg=reg, history=history)
    return v
