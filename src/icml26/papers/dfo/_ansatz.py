"""Nonlinear parametrisations u(x; theta) with analytic parameter Jacobians and spatial derivatives.

Both ansaetze of [P14]'s examples (reconstructed): a sum of Gaussians and a one-hidden-layer tanh network in 1-D.
Each exposes ``derivatives(theta, x, order)`` (u and its first ``order`` x-derivatives, for the PDE right-hand side)
and ``jacobian(theta, x)`` (``J = du/dtheta``, n x p, for the Dirac-Frenkel velocity).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common.validation import positive_int, real_array

__all__ = ["Ansatz", "GaussianSum", "TanhNetwork"]


def _as_points(x: np.ndarray) -> np.ndarray:
    return real_array(x, "x", ndim=1)


class Ansatz:
    """Interface of a parametrisation: ``n_params``, ``derivatives``, ``jacobian`` (all float64).

    The nonlinear parametrisation ``u(x; theta)`` that [P14]'s Dirac-Frenkel dynamics evolve (its Jacobian J enters
    the residual ``||J theta_dot - F||``). float32 ``theta`` / ``x`` are promoted: results are float64.
    """

    n_units: int

    @property
    def n_params(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def _theta(self, theta: np.ndarray) -> np.ndarray:
        return real_array(theta, "theta", shape=(self.n_params,))

    def __call__(self, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        """u(x; theta) at the points ``x`` (n,)."""
        return self.derivatives(theta, x, order=0)[0]

    def derivatives(self, theta: np.ndarray, x: np.ndarray, *, order: int) -> tuple[np.ndarray, ...]:
        """``(u, u_x, ..., d^order u / dx^order)`` at ``x``; ``order`` in 0..3."""
        raise NotImplementedError  # pragma: no cover

    def jacobian(self, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``J[i, j] = du(x_i; theta) / dtheta_j``, shape (n, p)."""
        raise NotImplementedError  # pragma: no cover


def _check_units(n_units: int) -> None:
    positive_int(n_units, "n_units")


def _check_order(order: int) -> None:
    if isinstance(order, bool) or order not in (0, 1, 2, 3):
        raise ValueError(f"order must be 0, 1, 2 or 3, got {order!r}")


@dataclass(frozen=True)
class GaussianSum(Ansatz):
    """``u(x; theta) = sum_i c_i exp(-(x - b_i)^2 / (2 exp(2 s_i)))``, theta = (c_1..c_m, b_1..b_m, s_1..s_m).

    A sum-of-Gaussians ansatz for our test problems of [P14]'s claims (the abstract names no ansatz); float64 results,
    also for float32 input.

    The width is ``w_i = exp(s_i) > 0``. Two units with equal (b, s) give identical columns (an exact nullspace);
    ``c_i = 0`` makes the b_i and s_i columns vanish (the "vanishing amplitude" singularity).
    """

    n_units: int

    def __post_init__(self) -> None:
        _check_units(self.n_units)

    @property
    def n_params(self) -> int:
        return 3 * self.n_units

    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(c, b, s) views of theta."""
        th = self._theta(theta)
        m = self.n_units
        return th[:m], th[m : 2 * m], th[2 * m :]

    def derivatives(self, theta: np.ndarray, x: np.ndarray, *, order: int) -> tuple[np.ndarray, ...]:
        _check_order(order)
        c, b, s = self.split(theta)
        x = _as_points(x)
        w = np.exp(s)
        z = (x[:, None] - b[None, :]) / w[None, :]
        g = c[None, :] * np.exp(-0.5 * z * z)
        # d^k/dx^k exp(-z^2/2) = (-1)^k He_k(z) exp(-z^2/2) / w^k (probabilists' Hermite polynomials)
        herm = (np.ones_like(z), z, z * z - 1.0, z**3 - 3.0 * z)
        return tuple((-1) ** k * (herm[k] * g / w[None, :] ** k).sum(axis=1) for k in range(order + 1))

    def jacobian(self, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        c, b, s = self.split(theta)
        x = _as_points(x)
        w = np.exp(s)
        z = (x[:, None] - b[None, :]) / w[None, :]
        e = np.exp(-0.5 * z * z)
        # du/dc_i = e_i, du/db_i = c_i e_i z_i / w_i, du/ds_i = c_i e_i z_i^2
        return np.hstack([e, c * e * z / w, c * e * z * z])


@dataclass(frozen=True)
class TanhNetwork(Ansatz):
    """``u(x; theta) = c_0 + sum_i c_i tanh(w_i (x - b_i))``, theta = (c_0, c_1..c_m, w_1..w_m, b_1..b_m).

    A small tanh-network ansatz for our test problems of [P14]'s claims (the abstract names no ansatz); float64
    results, also for float32 input.

    A one-hidden-layer tanh network with a bias on the output. Duplicated units give identical columns;
    ``c_i = 0`` makes the w_i and b_i columns vanish.
    """

    n_units: int

    def __post_init__(self) -> None:
        _check_units(self.n_units)

    @property
    def n_params(self) -> int:
        return 1 + 3 * self.n_units

    def split(self, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """(c_0, c, w, b) views of theta."""
        th = self._theta(theta)
        m = self.n_units
        return float(th[0]), th[1 : 1 + m], th[1 + m : 1 + 2 * m], th[1 + 2 * m :]

    def derivatives(self, theta: np.ndarray, x: np.ndarray, *, order: int) -> tuple[np.ndarray, ...]:
        _check_order(order)
        c0, c, w, b = self.split(theta)
        x = _as_points(x)
        t = np.tanh(w[None, :] * (x[:, None] - b[None, :]))
        q = 1.0 - t * t  # tanh' = 1 - tanh^2
        # tanh'' = -2 t q, tanh''' = q (6 t^2 - 2); chain rule brings w^k
        shapes = (t, q, -2.0 * t * q, q * (6.0 * t * t - 2.0))
        out = [c0 + (c * t).sum(axis=1)]
        for k in range(1, order + 1):
            out.append((c * w**k * shapes[k]).sum(axis=1))
        return tuple(out)

    def jacobian(self, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        _, c, w, b = self.split(theta)
        x = _as_points(x)
        d = x[:, None] - b[None, :]
        t = np.tanh(w[None, :] * d)
        q = 1.0 - t * t
        # du/dc_0 = 1, du/dc_i = t_i, du/dw_i = c_i q_i (x - b_i), du/db_i = -c_i q_i w_i
        return np.hstack([np.ones((x.size, 1)), t, c * q * d, -c * q * w])
