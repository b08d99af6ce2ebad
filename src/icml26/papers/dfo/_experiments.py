"""The singular and near-singular test problems of the claim checks (seeded), with their reference solutions.

Problems (reconstructed from [P14]'s abstract, which names no benchmark):
  * ``advection``: ``u_t = -u_x`` on x in [-8, 12] with a :class:`GaussianSum`; reference = exact transport of the
    initial ansatz, ``u(x, t) = u(x - t; theta0)``.
  * ``allen_cahn``: ``u_t = eps u_xx + (1 - u^2)(u - a)`` (eps = 0.1, a = -0.5: the +1 phase invades at speed
    ``0.5 sqrt(0.2)``) on the periodic grid of [-10, 10) with a :class:`TanhNetwork` kink-antikink pair;
    reference = :func:`allen_cahn_fft`.
Regimes: ``duplicated`` (one unit split into two identical copies: an exact nullspace), ``near_duplicate`` (the copies
offset by delta in [1e-4, 1e-2]), ``vanishing`` (an extra unit with zero amplitude), ``near_vanishing`` (amplitude in
[1e-8, 1e-5]). The seed draws the offsets, splits and positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.papers.dfo._ansatz import Ansatz, GaussianSum, TanhNetwork
from icml26.papers.dfo._evolve import Trajectory, evolve
from icml26.papers.dfo._pde import AllenCahn, LinearAdvection, allen_cahn_fft

__all__ = ["PROBLEMS", "REGIMES", "Setup", "filter_gap", "state_filter_gap", "make_setup", "run_setup"]

PROBLEMS: tuple[str, ...] = ("advection", "allen_cahn")
REGIMES: tuple[str, ...] = ("duplicated", "near_duplicate", "vanishing", "near_vanishing")


@dataclass(frozen=True)
class Setup:
    """One test problem: ansatz, PDE, initial parameters, collocation grid, final time and reference at t_end."""

    problem: str
    regime: str
    ansatz: Ansatz
    pde: LinearAdvection | AllenCahn
    theta0: np.ndarray
    x: np.ndarray
    t_end: float
    reference: np.ndarray  # u(x, t_end)


def _loguniform(g: np.random.Generator, lo: float, hi: float) -> float:
    return float(np.exp(g.uniform(np.log(lo), np.log(hi))))


def make_setup(problem: str, regime: str, *, seed: int, n_points: int = 128, t_end: float = 2.0) -> Setup:
    """Build the seeded ``problem`` x ``regime`` instance (see the module docstring)."""
    if problem not in PROBLEMS:
        raise ValueError(f"problem must be one of {PROBLEMS}, got {problem!r}")
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")
    if n_points < 16:
        raise ValueError(f"n_points must be >= 16, got {n_points}")
    g = np.random.default_rng(seed)
    rho = g.uniform(0.3, 0.7)  # split of the duplicated unit
    delta = _loguniform(g, 1e-4, 1e-2) if regime == "near_duplicate" else 0.0
    amp = _loguniform(g, 1e-8, 1e-5) if regime == "near_vanishing" else 0.0
    if problem == "advection":
        b0, s0 = g.uniform(-0.5, 0.5), g.uniform(-0.2, 0.2)
        if regime in ("duplicated", "near_duplicate"):
            c, b, s = [rho, 1 - rho], [b0, b0 + delta], [s0, s0]
        else:
            c, b, s = [1.0, amp], [b0, b0 + g.uniform(1.0, 3.0)], [s0, g.uniform(-0.2, 0.2)]
        ansatz: Ansatz = GaussianSum(2)
        theta0 = np.array(c + b + s, dtype=np.float64)
        x = np.linspace(-8.0, 12.0, n_points)
        pde: LinearAdvection | AllenCahn = LinearAdvection(speed=1.0)
        reference = ansatz(theta0, x - pde.speed * t_end)
    else:
        pde = AllenCahn(eps=0.1, a=-0.5)
        k = 1.0 / np.sqrt(2.0 * pde.eps)  # equilibrium front steepness
        ell = g.uniform(2.5, 3.5)  # half-width of the +1 plateau
        if regime in ("duplicated", "near_duplicate"):
            c, w, b = [rho, 1 - rho, -1.0], [k, k, k], [-ell, -ell + delta, ell]
        else:
            c, w, b = [1.0, -1.0, amp], [k, k, k], [-ell, ell, g.uniform(-1.0, 1.0)]
        ansatz = TanhNetwork(3)
        theta0 = np.array([-1.0] + c + w + b, dtype=np.float64)
        length = 20.0
        x = -10.0 + length * np.arange(n_points) / n_points
        reference = allen_cahn_fft(ansatz(theta0, x), length=length, pde=pde, t_end=t_end, dt=1e-3)[0]
    return Setup(problem, regime, ansatz, pde, theta0, x, float(t_end), reference)


def run_setup(setup: Setup, *, method: str, tol: float, dt: float = 1e-2, tau: float = 0.1,
              scheme: str = "rk2") -> tuple[Trajectory, float]:
    """Evolve ``setup`` with ``method`` and return the trajectory and the final relative L2 error (inf on blow-up)."""
    tr = evolve(setup.ansatz, setup.pde, setup.theta0, (0.0, setup.t_end), x=setup.x, dt=dt, method=method,  # type: ignore[arg-type]
                tol=tol, tau=tau, scheme=scheme, max_abs=1e3)
    if tr.blew_up:
        return tr, float("inf")
    u = setup.ansatz(tr.theta[-1], setup.x)
    return tr, float(np.linalg.norm(u - setup.reference) / np.linalg.norm(setup.reference))


def state_filter_gap(J: np.ndarray, *, tol: float) -> float:
    """Largest |Tikhonov filter − truncation filter| over the directions of ``J`` above the machine rank cut.

    Tikhonov with ``lambda = (tol sigma_max)^2`` scales direction i by ``sigma_i^2 / (sigma_i^2 + lambda)``, truncation
    at ``tol`` by 1 (``sigma_i > tol sigma_max``) or 0. Where no singular value lies near ``tol sigma_max`` the two
    solve the same problem and the gap is ~0 (the largest direction alone differs by ~tol^2).
    """
    S = np.linalg.svd(J, compute_uv=False)
    if S[0] <= 0:
        return 0.0
    S = S[S > np.finfo(np.float64).eps * max(J.shape) * S[0]]
    lam = (tol * S[0]) ** 2
    return float(np.max(np.abs(S**2 / (S**2 + lam) - (S > tol * S[0]))))


def filter_gap(setup: Setup, thetas: np.ndarray, *, tol: float) -> float:
    """The largest :func:`state_filter_gap` of J over ``thetas`` (states of a trajectory of ``setup``; 0 for none).

    Where it is at most g, Tikhonov's residual differs from the truncated minimum by at most g ||F|| at every state
    (the residual moves by the filter change times F's component, direction by direction).
    """
    return max((state_filter_gap(setup.ansatz.jacobian(th, setup.x), tol=tol) for th in thetas), default=0.0)
