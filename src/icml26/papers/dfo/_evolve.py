"""Time integration of the parameter dynamics: Dirac-Frenkel (lstsq / tsvd / tikhonov) and DFO with gauge momentum."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from icml26.papers.dfo._ansatz import Ansatz
from icml26.papers.dfo._velocity import METHODS, Method, check_reg, velocity_and_info

__all__ = ["BlowUp", "PDERhs", "Trajectory", "evolve", "total_variation"]


class BlowUp(ArithmeticError):
    """A Runge-Kutta stage of :func:`evolve` reached non-finite parameters, Jacobian or right-hand side (or its SVD
    did not converge).

    The numerical blow-up counted by our test of [P14]'s robustness claim (singular and near-singular regimes).

    Only this (a numerical blow-up during the integration) ends an integration with ``blew_up=True``; argument
    errors (bad ``reg``, an ``rhs`` of the wrong shape or non-finite at ``theta0``) raise before the first step.
    """


class PDERhs(Protocol):
    """A PDE ``u_t = f(x, u, u_x, ...)``: ``order`` (highest x-derivative f needs) and ``f(derivs, x, t)``.

    Supplies the right-hand side F of [P14]'s instantaneous residual ``||J theta_dot - F||``.
    """

    order: int

    def __call__(self, derivs: tuple[np.ndarray, ...], x: np.ndarray, t: float) -> np.ndarray: ...


@dataclass(frozen=True)
class Trajectory:
    """The result of :func:`evolve`.

    The parameter trajectory of [P14]'s Dirac-Frenkel(-Onsager) dynamics with the diagnostics of its claims (residual
    minimisation, total variation of the velocity). The arrays are float64, also for a float32 ``theta0`` / ``x``.

    Attributes:
        t: (K+1,) times reached.
        theta: (K+1, p) parameters.
        velocity: (K, p) the instantaneous velocity ``theta_dot_k`` solved at ``theta_k`` (first RK stage).
        residual: (K,) ``||J theta_dot_k - F||`` at ``theta_k``.
        residual_min: (K,) the least-squares minimum ``min_eta ||J eta - F||`` at ``theta_k`` (machine precision).
        residual_trunc: (K,) the truncated minimum at ``theta_k`` and ``tol`` (singular values <= tol sigma_max
            dropped): the best residual any method with that truncation can reach.
        rank: (K,) numerical rank used at ``theta_k``.
        rhs_norm: (K,) ``||F||`` at ``theta_k`` (to make residuals relative).
        method: the velocity method.
        blew_up: True when theta, J or F became non-finite during the integration, or |theta| exceeded ``max_abs``
            (the arrays stop there).
    """

    t: np.ndarray
    theta: np.ndarray
    velocity: np.ndarray
    residual: np.ndarray
    residual_min: np.ndarray
    residual_trunc: np.ndarray
    rank: np.ndarray
    rhs_norm: np.ndarray
    method: str
    blew_up: bool

    @property
    def total_variation(self) -> float:
        """``sum_k ||theta_dot_{k+1} - theta_dot_k||_2`` of the instantaneous velocities."""
        return total_variation(self.velocity)


def total_variation(velocity: np.ndarray) -> float:
    """Discrete total variation ``sum_k ||v_{k+1} - v_k||_2`` of a (K, p) sequence of velocities.

    Our measure of [P14]'s "temporally smooth parameter evolution" claim. Returns a Python float (computed in
    float64, also for float32 input).
    """
    v = np.asarray(velocity, dtype=np.float64)
    if v.ndim != 2:
        raise ValueError(f"velocity must be a (K, p) array, got shape {v.shape}")
    if v.shape[0] < 2:
        return 0.0
    return float(np.linalg.norm(np.diff(v, axis=0), axis=1).sum())


def _pos(name: str, v: Any) -> float:
    if not isinstance(v, (int, float, np.floating)) or isinstance(v, bool) or not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {v!r}")
    return float(v)


def _check_first_rhs(ansatz: Ansatz, rhs: PDERhs, theta: np.ndarray, x: np.ndarray, t0: float) -> None:
    """Argument check before the loop: J and F at ``theta0`` must be finite, F of shape (n,)."""
    n = x.shape[0]
    J = np.asarray(ansatz.jacobian(theta, x))
    if J.shape != (n, theta.size) or not np.all(np.isfinite(J)):
        raise ValueError(f"ansatz.jacobian must return a finite ({n}, {theta.size}) array at theta0, got shape "
                         f"{J.shape}")
    F = np.asarray(rhs(ansatz.derivatives(theta, x, order=rhs.order), x, t0))
    if F.dtype.kind not in "fiu":
        raise TypeError(f"rhs must return a real array, got dtype {F.dtype}")
    if F.shape != (n,):
        raise ValueError(f"rhs must return an array of shape ({n},) (one value per point of x), got {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError("rhs returned non-finite values at theta0 (t0)")


def evolve(
    ansatz: Ansatz,
    rhs: PDERhs,
    theta0: np.ndarray,
    t_span: tuple[float, float],
    *,
    x: np.ndarray,
    dt: float,
    method: Method = "dfo",
    tol: float = 1e-4,
    reg: float | None = None,
    tau: float = 0.1,
    scheme: str = "rk4",
    max_abs: float = 1e6,
) -> Trajectory:
    """Integrate ``theta_dot = V(theta)`` with explicit Runge-Kutta, V the (regularised / DFO) DF velocity.

    Implements the Dirac-Frenkel-Onsager dynamics of [P14] (abstract; reconstructed): at each stage
    ``theta_dot = J_r^+ F + (I - V_r V_r^T) m`` (see :func:`dirac_frenkel_velocity`), with the history (momentum)
    ``m`` relaxing to the realised velocity, ``tau m_dot = theta_dot - m``, discretised after each step as
    ``m <- (1 - h/tau) m + (h/tau) theta_dot_step`` (h the step) and held fixed within a step. ``m`` starts at
    zero, so the first step equals the truncated-SVD step. Other methods ignore ``tau``.

    Args:
        ansatz: parametrisation with ``derivatives`` and ``jacobian`` (:class:`GaussianSum`, :class:`TanhNetwork`).
        rhs: the PDE (``order`` and ``rhs(derivs, x, t)``), e.g. :class:`LinearAdvection`, :class:`AllenCahn`.
        theta0: (p,) initial parameters theta(t0).
        t_span: (t0, t1) with t1 > t0; steps of ``dt``, the last one shortened so that the integration ends
            exactly at ``t1`` (``ceil((t1 - t0) / dt)`` steps).
        x: (n,) collocation points (n >= p recommended).
        dt: time step > 0.
        method: ``"lstsq"``, ``"tsvd"``, ``"tikhonov"`` or ``"dfo"``.
        tol: relative singular-value cut (tsvd, dfo) / Tikhonov scale when ``reg`` is None; >= 0.
        reg: Tikhonov lambda >= 0 (tikhonov only; validated for every method).
        tau: relaxation time of the history variable (dfo only), > 0; ``h/tau`` is capped at 1.
        scheme: ``"rk4"`` (classical), ``"rk2"`` (midpoint) or ``"euler"``.
        max_abs: stop and flag ``blew_up`` when any |theta_j| exceeds this (> 0).

    Returns:
        A :class:`Trajectory`.

    Raises:
        ValueError: a bad argument, including ``reg``, or an ``rhs`` whose value at ``theta0`` is not a finite (n,)
            array (n = ``len(x)``). A numerical blow-up later in the integration is not an error (``blew_up``).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if scheme not in ("rk4", "rk2", "euler"):
        raise ValueError(f"scheme must be 'rk4', 'rk2' or 'euler', got {scheme!r}")
    if not hasattr(ansatz, "jacobian") or not hasattr(ansatz, "derivatives"):
        raise TypeError(f"ansatz must provide jacobian() and derivatives(), got {type(ansatz).__name__}")
    if not callable(rhs) or not isinstance(getattr(rhs, "order", None), int):
        raise TypeError("rhs must be callable with an int attribute 'order'")
    dt = _pos("dt", dt)
    tau = _pos("tau", tau)
    max_abs = _pos("max_abs", max_abs)
    if not isinstance(tol, (int, float, np.floating)) or not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    check_reg(reg, method=method, tol=tol)
    try:
        t0, t1 = (float(v) for v in t_span)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"t_span must be a pair (t0, t1), got {t_span!r}") from exc
    if not (np.isfinite(t0) and np.isfinite(t1) and t1 > t0):
        raise ValueError(f"t_span must be finite with t1 > t0, got {t_span!r}")
    theta = np.asarray(theta0, dtype=np.float64).copy()
    if theta.shape != (ansatz.n_params,):
        raise ValueError(f"theta0 must have shape ({ansatz.n_params},) for this ansatz, got {theta.shape}")
    if not np.all(np.isfinite(theta)):
        raise ValueError("theta0 contains non-finite values")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"x must be a non-empty finite 1-D array of collocation points, got shape {x.shape}")
    _check_first_rhs(ansatz, rhs, theta, x, t0)
    span = t1 - t0
    n_steps = max(1, int(np.ceil(span / dt - 1e-9)))  # the last step is shortened to end exactly at t1
    m = np.zeros_like(theta)

    def vel(th: np.ndarray, t: float) -> tuple[np.ndarray, Any]:
        if not np.all(np.isfinite(th)):
            raise BlowUp("a stage reached non-finite parameters")
        J = ansatz.jacobian(th, x)
        F = np.asarray(rhs(ansatz.derivatives(th, x, order=rhs.order), x, t), dtype=np.float64)
        if not (np.all(np.isfinite(J)) and np.all(np.isfinite(F))):
            raise BlowUp("a stage reached a non-finite Jacobian or right-hand side")
        try:
            v, info = velocity_and_info(J, F, method=method, tol=tol, reg=reg,
                                        history=m if method == "dfo" else None)
        except np.linalg.LinAlgError as exc:  # the SVD / lstsq of a finite but extreme J did not converge
            raise BlowUp(f"the velocity solve failed: {exc}") from exc
        return v, (info, float(np.linalg.norm(F)))

    ts, thetas, vels, res, resmin, restr, ranks, fnorms = [t0], [theta.copy()], [], [], [], [], [], []
    blew_up = False
    for k in range(n_steps):
        t = t0 + k * dt
        h = dt if k < n_steps - 1 else t1 - t
        try:
            v1, (info, fnorm) = vel(theta, t)
            if scheme == "euler":
                step = v1
            elif scheme == "rk2":
                step, _ = vel(theta + 0.5 * h * v1, t + 0.5 * h)
            else:
                v2, _ = vel(theta + 0.5 * h * v1, t + 0.5 * h)
                v3, _ = vel(theta + 0.5 * h * v2, t + 0.5 * h)
                v4, _ = vel(theta + h * v3, t + h)
                step = (v1 + 2.0 * v2 + 2.0 * v3 + v4) / 6.0
        except BlowUp:
            blew_up = True
            break
        new = theta + h * step
        if not np.all(np.isfinite(new)) or np.max(np.abs(new)) > max_abs:
            blew_up = True
            break
        vels.append(v1)
        res.append(info.residual)
        resmin.append(info.residual_min)
        restr.append(info.residual_trunc)
        ranks.append(info.rank)
        fnorms.append(fnorm)
        theta = new
        ts.append(t + h if k < n_steps - 1 else t1)
        thetas.append(theta.copy())
        # Onsager history: tau m_dot = theta_dot - m (explicit Euler, after the step; h/tau capped at 1)
        alpha = min(h / tau, 1.0)
        m = (1.0 - alpha) * m + alpha * step
    p = theta.size
    return Trajectory(
        t=np.array(ts),
        theta=np.array(thetas),
        velocity=np.array(vels).reshape(-1, p),
        residual=np.array(res),
        residual_min=np.array(resmin),
        residual_trunc=np.array(restr),
        rank=np.array(ranks, dtype=int),
        rhs_norm=np.array(fnorms),
        method=method,
        blew_up=blew_up,
    )
