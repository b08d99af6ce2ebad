"""Time integration of the parameter dynamics: Dirac-Frenkel (lstsq / tsvd / tikhonov) and DFO with gauge momentum."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from icml26.common.validation import choice, real, real_array
from icml26.papers.dfo._ansatz import Ansatz
from icml26.papers.dfo._velocity import METHODS, Method, VelocityInfo, check_reg, velocity_and_info

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
    v = real_array(velocity, "velocity", ndim=2, allow_empty=True)
    if v.shape[0] < 2:
        return 0.0
    return float(np.linalg.norm(np.diff(v, axis=0), axis=1).sum())


def _pos(name: str, v: Any) -> float:
    return real(v, name, lo=0.0, lo_open=True)


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


@dataclass(frozen=True)
class _Field:
    """The velocity field theta -> V(theta; m) of one integration (J, F and the velocity solve at a stage)."""

    ansatz: Ansatz
    rhs: PDERhs
    x: np.ndarray
    method: Method
    tol: float
    reg: float | None

    def __call__(self, th: np.ndarray, t: float, m: np.ndarray) -> tuple[np.ndarray, VelocityInfo, float]:
        if not np.all(np.isfinite(th)):
            raise BlowUp("a stage reached non-finite parameters")
        J = self.ansatz.jacobian(th, self.x)
        F = np.asarray(self.rhs(self.ansatz.derivatives(th, self.x, order=self.rhs.order), self.x, t),
                       dtype=np.float64)
        if not (np.all(np.isfinite(J)) and np.all(np.isfinite(F))):
            raise BlowUp("a stage reached a non-finite Jacobian or right-hand side")
        try:
            v, info = velocity_and_info(J, F, method=self.method, tol=self.tol, reg=self.reg,
                                        history=m if self.method == "dfo" else None)
        except np.linalg.LinAlgError as exc:  # the SVD / lstsq of a finite but extreme J did not converge
            raise BlowUp(f"the velocity solve failed: {exc}") from exc
        return v, info, float(np.linalg.norm(F))


def _step(field: _Field, scheme: str, theta: np.ndarray, t: float, h: float, m: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, VelocityInfo, float]:
    """One explicit Runge-Kutta step with the history ``m`` held fixed: (first-stage velocity, step direction,
    diagnostics at ``theta``, ||F||)."""
    v1, info, fnorm = field(theta, t, m)
    if scheme == "euler":
        return v1, v1, info, fnorm
    v2 = field(theta + 0.5 * h * v1, t + 0.5 * h, m)[0]
    if scheme == "rk2":
        return v1, v2, info, fnorm
    v3 = field(theta + 0.5 * h * v2, t + 0.5 * h, m)[0]
    v4 = field(theta + h * v3, t + h, m)[0]
    return v1, (v1 + 2.0 * v2 + 2.0 * v3 + v4) / 6.0, info, fnorm


def _check_args(ansatz: Ansatz, rhs: PDERhs, theta0: np.ndarray, t_span: tuple[float, float], x: np.ndarray,
                method: str, tol: float, reg: float | None, scheme: str) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Validate :func:`evolve`'s arguments (before any step); return (theta0, x, t0, t1) as float64."""
    choice(method, "method", METHODS)
    choice(scheme, "scheme", ("rk4", "rk2", "euler"))
    if not hasattr(ansatz, "jacobian") or not hasattr(ansatz, "derivatives"):
        raise TypeError(f"ansatz must provide jacobian() and derivatives(), got {type(ansatz).__name__}")
    if not callable(rhs) or not isinstance(getattr(rhs, "order", None), int):
        raise TypeError("rhs must be callable with an int attribute 'order'")
    tol = real(tol, "tol", lo=0.0)
    check_reg(reg, method=method, tol=tol)
    t0, t1 = (float(v) for v in real_array(t_span, "t_span", shape=(2,)))
    if not t1 > t0:
        raise ValueError(f"t_span must have t1 > t0, got {t_span!r}")
    theta = real_array(theta0, "theta0", shape=(ansatz.n_params,)).copy()
    x = real_array(x, "x", ndim=1)
    _check_first_rhs(ansatz, rhs, theta, x, t0)
    return theta, x, t0, t1


def _integrate(field: _Field, scheme: str, theta: np.ndarray, span: tuple[float, float], *, dt: float, tau: float,
               max_abs: float) -> Trajectory:
    """The step loop of :func:`evolve` (arguments already checked)."""
    t0, t1 = span
    n_steps = max(1, int(np.ceil((t1 - t0) / dt - 1e-9)))  # the last step is shortened to end exactly at t1
    m = np.zeros_like(theta)
    ts, thetas, vels, infos, fnorms = [t0], [theta.copy()], [], [], []
    blew_up = False
    for k in range(n_steps):
        t = t0 + k * dt
        h = dt if k < n_steps - 1 else t1 - t
        try:
            v1, step, info, fnorm = _step(field, scheme, theta, t, h, m)
        except BlowUp:
            blew_up = True
            break
        new = theta + h * step
        if not np.all(np.isfinite(new)) or np.max(np.abs(new)) > max_abs:
            blew_up = True
            break
        vels.append(v1)
        infos.append(info)
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
        residual=np.array([i.residual for i in infos]),
        residual_min=np.array([i.residual_min for i in infos]),
        residual_trunc=np.array([i.residual_trunc for i in infos]),
        rank=np.array([i.rank for i in infos], dtype=int),
        rhs_norm=np.array(fnorms),
        method=field.method,
        blew_up=blew_up,
    )


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
    dt, tau, max_abs = _pos("dt", dt), _pos("tau", tau), _pos("max_abs", max_abs)
    theta, x, t0, t1 = _check_args(ansatz, rhs, theta0, t_span, x, method, tol, reg, scheme)
    field = _Field(ansatz, rhs, x, method, float(tol), reg)
    return _integrate(field, scheme, theta, (t0, t1), dt=dt, tau=tau, max_abs=max_abs)
