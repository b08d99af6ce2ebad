"""The PDEs of the examples: right-hand sides f(u), closed-form solutions, and an FFT reference solver.

* Linear advection ``u_t = -a u_x`` (exact solution ``u0(x - a t)``).
* Allen-Cahn with a bistable driving term ``u_t = eps u_xx + (1 - u^2)(u - a)`` (``a = 0``: the Allen-Cahn equation).
  Its travelling kink ``tanh((x - x0 - c t) / sqrt(2 eps))`` with ``c = a sqrt(2 eps)`` is exact; general initial
  data are solved on a periodic grid by an integrating-factor RK4 Fourier pseudo-spectral method.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from icml26.common.validation import real, real_array

__all__ = ["AllenCahn", "LinearAdvection", "allen_cahn_fft"]


def _finite_pos(name: str, v: float) -> float:
    return real(v, name, lo=0.0, lo_open=True)


@dataclass(frozen=True, kw_only=True)
class LinearAdvection:
    """``u_t = -speed * u_x``: ``f(u) = -speed u_x`` (needs derivatives up to ``order = 1``).

    Linear advection, one of our test problems for [P14]'s claims (the abstract names none).
    """

    speed: float = 1.0
    order: int = field(default=1, init=False)

    def __post_init__(self) -> None:
        real(self.speed, "speed")

    def __call__(self, derivs: tuple[np.ndarray, ...], x: np.ndarray, t: float) -> np.ndarray:
        """F at the collocation points from ``derivs = (u, u_x, ...)``."""
        return -self.speed * derivs[1]

    def exact(self, u0: Callable[[np.ndarray], np.ndarray], x: np.ndarray, t: float) -> np.ndarray:
        """The exact solution ``u0(x - speed t)``."""
        return u0(np.asarray(x, dtype=np.float64) - self.speed * t)


@dataclass(frozen=True, kw_only=True)
class AllenCahn:
    """``u_t = eps u_xx + (1 - u^2)(u - a)``: f needs derivatives up to ``order = 2``.

    The driven Allen-Cahn equation, our nonlinear test problem for [P14]'s claims (the abstract names none).

    ``a = 0`` is the Allen-Cahn equation ``u_t = eps u_xx + u - u^3``; ``a`` in (-1, 1) tilts the double well so that
    fronts travel with speed ``a sqrt(2 eps)`` (the -1 phase invades for ``a > 0``).
    """

    eps: float = 0.1
    a: float = 0.0
    order: int = field(default=2, init=False)

    def __post_init__(self) -> None:
        _finite_pos("eps", self.eps)
        real(self.a, "a", lo=-1.0, hi=1.0, lo_open=True, hi_open=True)

    def reaction(self, u: np.ndarray) -> np.ndarray:
        """The bistable reaction term ``(1 - u^2)(u - a)``."""
        return (1.0 - u * u) * (u - self.a)

    def __call__(self, derivs: tuple[np.ndarray, ...], x: np.ndarray, t: float) -> np.ndarray:
        """F at the collocation points from ``derivs = (u, u_x, u_xx, ...)``."""
        return self.eps * derivs[2] + self.reaction(derivs[0])

    @property
    def front_speed(self) -> float:
        """Speed of the -1 -> +1 kink, ``c = a sqrt(2 eps)``."""
        return self.a * np.sqrt(2.0 * self.eps)

    def kink(self, x: np.ndarray, t: float, *, x0: float = 0.0) -> np.ndarray:
        """The exact travelling kink ``tanh((x - x0 - c t) / sqrt(2 eps))`` (-1 on the left, +1 on the right)."""
        x = np.asarray(x, dtype=np.float64)
        return np.tanh((x - x0 - self.front_speed * t) / np.sqrt(2.0 * self.eps))


def allen_cahn_fft(
    u0: np.ndarray,
    *,
    length: float,
    pde: AllenCahn,
    t_end: float,
    dt: float = 1e-3,
    save_times: tuple[float, ...] | None = None,
) -> np.ndarray:
    """Reference solution of :class:`AllenCahn` on a periodic grid (Fourier pseudo-spectral, integrating-factor RK4).

    The reference against which our Allen-Cahn runs of [P14]'s claims measure errors; float64, also for float32 ``u0``.

    Args:
        u0: (N,) initial values on the uniform periodic grid ``x_j = x_left + j * length / N``.
        length: period L > 0 of the domain.
        pde: the equation (``eps``, ``a``).
        t_end: final time >= 0.
        dt: time step > 0 (rounded down so that an integer number of steps reaches ``t_end``).
        save_times: optional increasing times in [0, t_end] to return (default: only ``t_end``).

    Returns:
        (len(save_times), N) array of solutions (one row when ``save_times`` is None).
    """
    u = real_array(u0, "u0", ndim=1).copy()
    if u.size < 4:
        raise ValueError(f"u0 must be a 1-D grid of at least 4 values, got shape {u.shape}")
    if not isinstance(pde, AllenCahn):
        raise TypeError(f"pde must be an AllenCahn equation, got {type(pde).__name__}")
    length = _finite_pos("length", length)
    dt = _finite_pos("dt", dt)
    t_end = real(t_end, "t_end", lo=0.0)
    times = (float(t_end),) if save_times is None else tuple(float(s) for s in save_times)
    if any(b < a for a, b in itertools.pairwise(times)) or (times and (times[0] < 0 or times[-1] > t_end + 1e-12)):
        raise ValueError(f"save_times must be increasing and lie in [0, t_end], got {save_times!r}")
    n = u.size
    k = 2.0 * np.pi * np.fft.rfftfreq(n, d=length / n)
    lin = -pde.eps * k * k  # the stiff linear part, integrated exactly

    def nonlin(vh: np.ndarray) -> np.ndarray:
        return np.fft.rfft(pde.reaction(np.fft.irfft(vh, n=n)))

    out = []
    vh = np.fft.rfft(u)
    t = 0.0
    for target in times:
        steps = int(np.ceil((target - t) / dt - 1e-9))
        if steps > 0:
            h = (target - t) / steps
            e = np.exp(lin * h / 2.0)
            e2 = e * e
            for _ in range(steps):
                # IF-RK4 for v = exp(-L t) u_hat: linear part exact, RK4 on the transformed nonlinear term
                k1 = h * nonlin(vh)
                k2 = h * nonlin(e * (vh + k1 / 2.0))
                k3 = h * nonlin(e * vh + k2 / 2.0)
                k4 = h * nonlin(e2 * vh + e * k3)
                vh = e2 * vh + (e2 * k1 + 2.0 * e * (k2 + k3) + k4) / 6.0
        t = target
        out.append(np.fft.irfft(vh, n=n))
    return np.array(out)
