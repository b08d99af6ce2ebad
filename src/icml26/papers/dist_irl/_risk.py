"""Distortion risk measures (DRMs) of [P18]: rho_g(Z) = int_0^1 q_Z(tau) dg(tau).

A distortion g: [0, 1] -> [0, 1] is non-decreasing with g(0) = 0 and g(1) = 1; a concave g weighs the lower
quantiles (bad outcomes) more and gives a risk-averse measure. g = identity gives the mean. Each measure here is a
small frozen object with ``g(tau)``, the quantile weights of an N-point grid, and the L-statistic of samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import special, stats

__all__ = ["CVaR", "DistortionRiskMeasure", "Expectation", "PowerDistortion", "WangTransform", "quantile_grid"]


def quantile_grid(n_quantiles: int) -> np.ndarray:
    """Midpoint quantile levels tau_i = (2i - 1) / (2N), i = 1..N (the grid of the quantile representation in [P18])."""
    if isinstance(n_quantiles, bool) or not isinstance(n_quantiles, (int, np.integer)) or n_quantiles < 1:
        raise ValueError(f"n_quantiles must be a positive int, got {n_quantiles!r}")
    return (np.arange(n_quantiles, dtype=float) + 0.5) / n_quantiles


def _as_samples(samples: np.ndarray | list[float], name: str = "samples") -> np.ndarray:
    z = np.asarray(samples, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {z.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError(f"{name} must be finite")
    return z


def _real(x: object) -> bool:
    """True for a real number (Python or numpy int/float), False for bools and everything else."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


class DistortionRiskMeasure:
    """Base class: a DRM is defined by its distortion ``g`` (Sec. "distortion risk measures" of [P18]).

    Subclasses implement :meth:`g`; everything else (quantile weights, sample estimates, policy-gradient weights)
    follows from it.
    """

    name: str = "drm"

    def g(self, tau: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """The distortion function g(tau), vectorised over tau in [0, 1]."""
        raise NotImplementedError

    def _g(self, tau: np.ndarray) -> np.ndarray:
        t = np.asarray(tau, dtype=float)
        if np.any((t < 0) | (t > 1)) or not np.all(np.isfinite(t)):
            raise ValueError("tau must lie in [0, 1]")
        return self.g(t)

    def weights(self, n: int) -> np.ndarray:
        """Weights w_i = g(i/n) - g((i-1)/n) of the i-th of n equal quantile cells (they sum to 1).

        rho_g(Z) ~= sum_i w_i q_Z(tau_i): the quantile-grid form of rho_g used by the policy and reward steps.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive int, got {n!r}")
        edges = self._g(np.linspace(0.0, 1.0, n + 1))
        return np.diff(edges)

    def from_quantiles(self, quantiles: np.ndarray) -> float:
        """rho_g from the values q(tau_i) of a quantile function on the midpoint grid of :func:`quantile_grid`."""
        q = _as_samples(quantiles, "quantiles")
        return float(self.weights(q.size) @ q)

    def __call__(self, samples: np.ndarray | list[float]) -> float:
        """Plug-in (L-statistic) estimate of rho_g(Z) from i.i.d. samples of Z: sum_j w_j Z_(j)."""
        z = np.sort(_as_samples(samples))
        return float(self.weights(z.size) @ z)

    def tail_weights(self, samples: np.ndarray) -> np.ndarray:
        """psi(Z_m) = int_{Z_m}^inf g'(F(z)) dz for each sample (the likelihood-ratio weight of the DRM gradient).

        d rho_g / d theta = -E[psi(Z) d log p_theta(trajectory) / d theta]; for CVaR_alpha this is
        (VaR_alpha - Z)_+ / alpha. Computed on the empirical CDF with g' taken as a centred difference.
        """
        z = _as_samples(samples)
        m = z.size
        order = np.argsort(z, kind="stable")
        zs = z[order]
        levels = np.arange(1, m) / m  # F at the gap between Z_(l) and Z_(l+1)
        h = 0.5 / m
        slope = (self._g(np.minimum(levels + h, 1.0)) - self._g(np.maximum(levels - h, 0.0))) / (2 * h)
        incr = slope * np.diff(zs)  # g'(F) dz over each gap
        tail = np.concatenate([np.cumsum(incr[::-1])[::-1], [0.0]])  # sum over gaps above each sorted sample
        out = np.empty(m)
        out[order] = tail
        return out

    def gaussian(self, mean: float, std: float) -> float:
        """rho_g(N(mean, std^2)) by numerical quadrature of int q(tau) dg(tau) (closed forms in subclasses)."""
        t = quantile_grid(4096)
        return float(self.weights(t.size) @ (mean + std * stats.norm.ppf(t)))


@dataclass(frozen=True)
class CVaR(DistortionRiskMeasure):
    """Lower-tail conditional value at risk: g(tau) = min(tau / alpha, 1); rho = mean of the worst alpha fraction.

    The CVaR_alpha distortion named among the DRMs of [P18] (our benchmark's expert is CVaR_0.2-optimal).

    alpha = 1 is the mean; alpha -> 0 the worst case.
    """

    alpha: float = 0.2
    name: ClassVar[str] = "cvar"

    def __post_init__(self) -> None:
        if not (_real(self.alpha) and 0.0 < float(self.alpha) <= 1.0):
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}")

    def g(self, tau: np.ndarray) -> np.ndarray:
        return np.minimum(np.asarray(tau, dtype=float) / self.alpha, 1.0)

    def gaussian(self, mean: float, std: float) -> float:
        """Closed form: CVaR_alpha(N(mu, s^2)) = mu - s * phi(Phi^-1(alpha)) / alpha."""
        if self.alpha == 1.0:
            return float(mean)
        return float(mean - std * stats.norm.pdf(stats.norm.ppf(self.alpha)) / self.alpha)


@dataclass(frozen=True)
class WangTransform(DistortionRiskMeasure):
    """Wang's transform: g(tau) = Phi(Phi^-1(tau) + eta); eta > 0 is risk-averse, eta = 0 the mean.

    The Wang distortion named among the DRMs of [P18] (a learner distortion other than the expert's here)."""

    eta: float = 0.75
    name: ClassVar[str] = "wang"

    def __post_init__(self) -> None:
        if not (_real(self.eta) and math.isfinite(self.eta)):
            raise ValueError(f"eta must be a finite number, got {self.eta!r}")

    def g(self, tau: np.ndarray) -> np.ndarray:
        t = np.asarray(tau, dtype=float)
        with np.errstate(divide="ignore"):
            return special.ndtr(special.ndtri(t) + self.eta)

    def gaussian(self, mean: float, std: float) -> float:
        """Closed form: the distorted CDF of N(mu, s^2) is N(mu - eta s, s^2), so rho = mu - eta s."""
        return float(mean - self.eta * std)


@dataclass(frozen=True)
class PowerDistortion(DistortionRiskMeasure):
    """Dual-power distortion g(tau) = 1 - (1 - tau)^xi; xi >= 1 is risk-averse (for integer xi: E[min of xi draws]).

    A member of the DRM family rho_g of [P18]; the notes name CVaR, Wang and CPW, so this one is our addition."""

    xi: float = 2.0
    name: ClassVar[str] = "power"

    def __post_init__(self) -> None:
        if not (_real(self.xi) and math.isfinite(self.xi) and self.xi > 0):
            raise ValueError(f"xi must be a positive number, got {self.xi!r}")

    def g(self, tau: np.ndarray) -> np.ndarray:
        return 1.0 - (1.0 - np.asarray(tau, dtype=float)) ** self.xi


@dataclass(frozen=True)
class Expectation(DistortionRiskMeasure):
    """The risk-neutral DRM: g(tau) = tau, rho = E[Z] (the mean-matching special case).

    In [P18]'s family of DRMs this is the identity distortion (the notes' risk-neutral "DIRL with g = identity")."""

    name: ClassVar[str] = "mean"

    def g(self, tau: np.ndarray) -> np.ndarray:
        return np.asarray(tau, dtype=float)

    def gaussian(self, mean: float, std: float) -> float:
        return float(mean)
