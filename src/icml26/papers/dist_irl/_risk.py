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

from icml26.common.validation import positive_int, real, real_array

__all__ = ["CVaR", "DistortionRiskMeasure", "Expectation", "PowerDistortion", "WangTransform", "quantile_grid"]


def quantile_grid(n_quantiles: int) -> np.ndarray:
    """Midpoint quantile levels tau_i = (2i - 1) / (2N), i = 1..N (the grid of the quantile representation in [P18])."""
    n = positive_int(n_quantiles, "n_quantiles")
    return (np.arange(n, dtype=float) + 0.5) / n


def _as_samples(samples: np.ndarray | list[float], name: str = "samples") -> np.ndarray:
    return real_array(samples, name, ndim=1)


def _real(x: object) -> bool:
    """True for a real number (Python or numpy int/float), False for bools and everything else."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


class DistortionRiskMeasure:
    """Base class: a DRM is defined by its distortion ``g`` (Sec. "distortion risk measures" of [P18]).

    Subclasses implement ``_distortion`` (g on validated levels); everything else (quantile weights, sample estimates, policy-gradient weights)
    follows from it.
    """

    name: str = "drm"

    def _distortion(self, t: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def g(self, tau: np.ndarray | list[float] | float) -> np.ndarray:
        """The distortion of [P18]'s DRM, elementwise over an array of levels tau in [0, 1].

        Raises ValueError/TypeError naming ``tau`` for levels outside [0, 1], NaN, empty or non-numeric input."""
        t = real_array(tau, "tau")
        if np.any((t < 0) | (t > 1)):
            raise ValueError(f"tau must lie in [0, 1], got values in [{t.min():g}, {t.max():g}]")
        return self._distortion(t)

    def weights(self, n: int) -> np.ndarray:
        """Weights w_i = g(i/n) - g((i-1)/n) of the i-th of n equal quantile cells (they sum to 1).

        rho_g(Z) ~= sum_i w_i q_Z(tau_i): the quantile-grid form of rho_g used by the policy and reward steps.
        """
        n = positive_int(n, "n")
        edges = self.g(np.linspace(0.0, 1.0, n + 1))
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
        slope = (self.g(np.minimum(levels + h, 1.0)) - self.g(np.maximum(levels - h, 0.0))) / (2 * h)
        incr = slope * np.diff(zs)  # g'(F) dz over each gap
        tail = np.concatenate([np.cumsum(incr[::-1])[::-1], [0.0]])  # sum over gaps above each sorted sample
        out = np.empty(m)
        out[order] = tail
        return out

    def gaussian(self, mean: float, std: float) -> float:
        """rho_g(N(mean, std^2)) for a finite ``mean`` and ``std`` >= 0 (ValueError/TypeError naming the argument).

        By quadrature of int q(tau) dg(tau) on a 4096-point grid; subclasses with a closed form override
        :meth:`_gaussian`."""
        return self._gaussian(real(mean, "mean"), real(std, "std", lo=0.0))

    def _gaussian(self, mean: float, std: float) -> float:
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

    def _distortion(self, t: np.ndarray) -> np.ndarray:
        return np.minimum(t / self.alpha, 1.0)

    def _gaussian(self, mean: float, std: float) -> float:
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

    def _distortion(self, t: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return special.ndtr(special.ndtri(t) + self.eta)

    def _gaussian(self, mean: float, std: float) -> float:
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

    def _distortion(self, t: np.ndarray) -> np.ndarray:
        return 1.0 - (1.0 - t) ** self.xi


@dataclass(frozen=True)
class Expectation(DistortionRiskMeasure):
    """The risk-neutral DRM: g(tau) = tau, rho = E[Z] (the mean-matching special case).

    In [P18]'s family of DRMs this is the identity distortion (the notes' risk-neutral "DIRL with g = identity")."""

    name: ClassVar[str] = "mean"

    def _distortion(self, t: np.ndarray) -> np.ndarray:
        return t.copy()

    def _gaussian(self, mean: float, std: float) -> float:
        return float(mean)
