"""Chebyshev policies (tensor-product Chebyshev expansions of the normalised state) and the MLP baseline, in numpy.

Both policy classes expose the same small interface used by the trainers and by :func:`evaluate`:
``n_params``, ``get_params()``, ``set_params(theta)``, ``act(obs)`` (deterministic, batched) and
``act_with(thetas, obs)`` (one parameter vector per row of ``obs``; ARS evaluates many perturbations at once).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from icml26.common import validation
from icml26.papers.chebyshev_rl._args import MAX_ELEMENTS, generator

__all__ = ["ChebyshevPolicy", "MLPPolicy", "chebyshev_T", "chebyshev_features"]

_TOL = 1e-6  # relative slack at the box edges (float32 observations of float64 bounds, e.g. float32(0.07) > 0.07)


def _check_size(rows: int, degree: int, n: int) -> None:
    """Refuse, before allocating, a basis of ``rows x (degree + 1)**n`` entries above :data:`MAX_ELEMENTS`."""
    size = rows * (degree + 1) ** n
    if size > MAX_ELEMENTS:
        raise ValueError(f"degree={degree} with {n} state dimension(s) and {rows} row(s) needs {size:.3g} basis "
                         f"values (limit {MAX_ELEMENTS:.3g}, 1 GiB): lower the degree")


def chebyshev_T(z: Any, degree: int) -> np.ndarray:
    """Chebyshev polynomials of the first kind ``T_0..T_degree`` at ``z`` (shape ``z.shape + (degree+1,)``).

    Implements the three-term recursion ``T_0 = 1, T_1 = z, T_{k+1} = 2 z T_k - T_{k-1}`` used by [P10]'s basis.
    ``z`` is any real array (finite; the policy evaluates it on [-1, 1]), ``degree`` an int >= 0.
    """
    degree = validation.int_at_least(degree, "degree", 0)
    z = validation.real_array(z, "z", ndim=None)
    _check_size(z.size, degree, 1)
    out = np.empty(z.shape + (degree + 1,))
    out[..., 0] = 1.0
    if degree >= 1:
        out[..., 1] = z
    for k in range(1, degree):
        out[..., k + 1] = 2.0 * z * out[..., k] - out[..., k - 1]
    return out


def chebyshev_features(z: Any, degree: int) -> np.ndarray:
    """Tensor-product basis ``phi_i(z) = prod_j T_{i_j}(z_j)`` for all ``i in {0..degree}^n`` (Eq. of [P10]'s policy).

    ``z`` has shape ``(B, n)`` (or ``(n,)``: one point) with entries in ``[-1, 1]``; returns
    ``(B, (degree+1)**n)``, multi-indices in C order (the first state dimension varies slowest), so for Mountain Car
    ``(x, v)`` column ``4*i + j`` is ``T_i(x) T_j(v)``. A basis above 2**27 values is refused up front.
    """
    degree = validation.int_at_least(degree, "degree", 0)
    z = np.atleast_2d(validation.real_array(z, "z", ndim=(1, 2)))
    _check_size(z.shape[0], degree, z.shape[1])
    T = chebyshev_T(z, degree)  # (B, n, d+1)
    phi = T[:, 0, :]
    for j in range(1, z.shape[1]):
        phi = (phi[:, :, None] * T[:, j, None, :]).reshape(z.shape[0], -1)
    return phi


def _as_bounds(obs_low: Any, obs_high: Any) -> tuple[np.ndarray, np.ndarray]:
    low = np.atleast_1d(validation.real_array(obs_low, "obs_low", ndim=(0, 1), finite=False))
    high = np.atleast_1d(validation.real_array(obs_high, "obs_high", ndim=(0, 1), finite=False))
    if low.shape != high.shape:
        raise ValueError(f"obs_low and obs_high must be 1-D of equal length, got shapes {low.shape} and {high.shape}")
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        raise ValueError(
            "obs_low/obs_high must be finite: a Box with infinite bounds needs explicit finite scaling bounds "
            "(pass obs_low=..., obs_high=... to ChebyshevPolicy.from_space)"
        )
    if np.any(high <= low):
        raise ValueError("obs_high must be > obs_low in every dimension")
    return low, high


class ChebyshevPolicy:
    """Deterministic Chebyshev policy ``mu(s) = clip(C phi(z(s)), -1, 1)`` rescaled to the action box ([P10], Sec. 4).

    Symbols of [P10] -> arguments: state box ``[s_low, s_high]`` -> ``obs_low, obs_high``; ``n`` = their length;
    maximal degree per dimension ``d`` -> ``degree``; coefficient matrix ``C`` (``action_dim x (d+1)^n``) ->
    :meth:`get_params` (flattened). The state is normalised to ``z = 2 (s - s_low)/(s_high - s_low) - 1 in [-1, 1]^n``.
    Exploration (REINFORCE-style) adds Gaussian noise of its own scale ``exploration_std`` (in the normalised action
    units) before clipping, see :meth:`sample`.

    Args:
        obs_low, obs_high: finite bounds of the observation box (an observation outside raises ``ValueError``).
        action_dim: number of action dimensions ``m``.
        degree: maximal Chebyshev degree per state dimension (``degree=3``, ``n=2`` gives 16 coefficients).
        action_low, action_high: the action box (default ``[-1, 1]``).
        exploration_std: standard deviation of the Gaussian exploration noise.
        init_scale: coefficients start at ``init_scale`` (the authors' notebooks use ``1e-6``).
    """

    def __init__(
        self,
        obs_low: Any,
        obs_high: Any,
        action_dim: int,
        *,
        degree: int,
        action_low: float | np.ndarray = -1.0,
        action_high: float | np.ndarray = 1.0,
        exploration_std: float = 0.5,
        init_scale: float = 1e-6,
    ) -> None:
        self.obs_low, self.obs_high = _as_bounds(obs_low, obs_high)
        action_dim = validation.positive_int(action_dim, "action_dim")
        degree = validation.int_at_least(degree, "degree", 0)
        _check_size(action_dim, degree, self.obs_low.size)
        exploration_std = validation.real(exploration_std, "exploration_std", lo=0.0)
        init_scale = validation.real(init_scale, "init_scale")
        self.action_low = np.broadcast_to(np.asarray(action_low, dtype=float), (action_dim,)).copy()
        self.action_high = np.broadcast_to(np.asarray(action_high, dtype=float), (action_dim,)).copy()
        if not (np.all(np.isfinite(self.action_low)) and np.all(np.isfinite(self.action_high))
                and np.all(self.action_high > self.action_low)):
            raise ValueError("action_low/action_high must be finite with action_high > action_low")
        self.degree = int(degree)
        self.action_dim = int(action_dim)
        self.obs_dim = self.obs_low.size
        self.n_basis = (self.degree + 1) ** self.obs_dim
        self.exploration_std = float(exploration_std)
        self.coef = np.full((self.action_dim, self.n_basis), float(init_scale))

    @classmethod
    def from_space(cls, observation_space: Any, action_space: Any, *, degree: int,
                   obs_low: Any = None, obs_high: Any = None, **kwargs: Any) -> ChebyshevPolicy:
        """Build from gymnasium ``Box`` spaces; ``obs_low/obs_high`` override (required when the box is infinite)."""
        low = observation_space.low if obs_low is None else obs_low
        high = observation_space.high if obs_high is None else obs_high
        return cls(low, high, int(np.prod(action_space.shape)), degree=degree,
                   action_low=action_space.low, action_high=action_space.high, **kwargs)

    # -- parameters -------------------------------------------------------------------------------------------
    @property
    def n_params(self) -> int:
        """Number of trainable coefficients, ``m (d+1)^n``."""
        return self.coef.size

    def get_params(self) -> np.ndarray:
        """The coefficients ``C`` flattened (a copy)."""
        return self.coef.ravel().copy()

    def set_params(self, theta: Any) -> None:
        """Set the coefficients from a flat vector of length :attr:`n_params`."""
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have shape ({self.n_params},), got {theta.shape}")
        self.coef = theta.reshape(self.coef.shape).copy()

    # -- evaluation ---------------------------------------------------------------------------------------------
    def normalize(self, obs: Any) -> np.ndarray:
        """Map observations ``(B, n)`` (or ``(n,)``) from the box to ``[-1, 1]^n``; outside the box -> ValueError."""
        s = np.atleast_2d(np.asarray(obs, dtype=float))
        if s.shape[-1] != self.obs_dim or s.ndim != 2:
            raise ValueError(f"obs must have trailing dimension {self.obs_dim}, got shape {np.shape(obs)}")
        width = self.obs_high - self.obs_low
        z = 2.0 * (s - self.obs_low) / width - 1.0
        if not np.all(np.abs(z) <= 1.0 + _TOL):  # also catches NaN
            raise ValueError("obs lies outside the declared box [obs_low, obs_high]")
        return np.clip(z, -1.0, 1.0)

    def features(self, obs: Any) -> np.ndarray:
        """The basis ``phi(z(s))`` of shape ``(B, n_basis)``."""
        return chebyshev_features(self.normalize(obs), self.degree)

    def _to_action(self, u: np.ndarray) -> np.ndarray:
        u = np.clip(u, -1.0, 1.0)
        return self.action_low + (u + 1.0) * 0.5 * (self.action_high - self.action_low)

    def act(self, obs: Any) -> np.ndarray:
        """Deterministic action(s) ``mu(s)``: shape ``(B, m)`` for batched input, ``(m,)`` for one observation."""
        single = np.asarray(obs).ndim == 1
        a = self._to_action(self.features(obs) @ self.coef.T)
        return a[0] if single else a

    def act_with(self, thetas: np.ndarray, obs: Any) -> np.ndarray:
        """Actions with one parameter vector per row: ``thetas (B, n_params)``, ``obs (B, n)`` -> ``(B, m)``."""
        C = np.asarray(thetas, dtype=float).reshape(-1, self.action_dim, self.n_basis)
        return self._to_action(np.einsum("bmk,bk->bm", C, self.features(obs)))

    def sample(self, obs: Any, seed: int | np.random.Generator) -> np.ndarray:
        """Exploratory action: ``clip(C phi + exploration_std * eps)`` with ``eps ~ N(0, I)``, explicit ``seed``."""
        g = generator(seed)
        single = np.asarray(obs).ndim == 1
        u = self.features(obs) @ self.coef.T
        a = self._to_action(u + self.exploration_std * g.standard_normal(u.shape))
        return a[0] if single else a

    def multi_indices(self) -> list[tuple[int, ...]]:
        """The multi-index ``i`` of each basis column (C order), for reading the coefficients."""
        return list(itertools.product(range(self.degree + 1), repeat=self.obs_dim))


class MLPPolicy:
    """The neural-net baseline: ``n-64-64-m`` tanh MLP, output clipped to the action box (4,417 parameters for MC).

    The MLP 2-64-64-1 policy that [P10]'s Chebyshev policies replace as a drop-in (claims mlp_gap, regret_ratio).

    Args:
        obs_dim, action_dim: input / output sizes; ``hidden``: hidden widths; ``seed``: initialisation seed
        (PyTorch's default uniform(+-1/sqrt(fan_in)) initialisation, drawn with numpy);
        ``obs_low``, ``obs_high``: if given, the input is mapped affinely to [-1, 1] on this box (the same
        normalisation the Chebyshev policy uses, not clamped); ``None``: raw observations.
    """

    def __init__(self, obs_dim: int, action_dim: int, *, hidden: tuple[int, ...] = (64, 64),
                 action_low: float | np.ndarray = -1.0, action_high: float | np.ndarray = 1.0,
                 seed: int | np.random.Generator = 0, obs_low: Any = None, obs_high: Any = None) -> None:
        for name, n in (("obs_dim", obs_dim), ("action_dim", action_dim), *(("hidden", h) for h in hidden)):
            validation.positive_int(n, name)
        widths = (int(obs_dim), *map(int, hidden), int(action_dim))
        n_params = sum((fi + 1) * fo for fi, fo in zip(widths[:-1], widths[1:]))
        if n_params > MAX_ELEMENTS:
            raise ValueError(f"hidden={hidden!r} gives {n_params:.3g} parameters (limit {MAX_ELEMENTS:.3g})")
        if (obs_low is None) != (obs_high is None):
            raise ValueError("obs_low and obs_high must be given together")
        self.obs_low: np.ndarray | None = None
        self.obs_width: np.ndarray | None = None
        if obs_low is not None:
            lo = np.broadcast_to(validation.real_array(obs_low, "obs_low", ndim=(0, 1)), (int(obs_dim),)).copy()
            hi = np.broadcast_to(validation.real_array(obs_high, "obs_high", ndim=(0, 1)), (int(obs_dim),)).copy()
            if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(hi > lo)):
                raise ValueError("obs_low and obs_high must be finite with obs_high > obs_low")
            self.obs_low, self.obs_width = lo, hi - lo
        g = generator(seed)
        self.sizes = (int(obs_dim), *map(int, hidden), int(action_dim))
        self.obs_dim, self.action_dim = int(obs_dim), int(action_dim)
        self.action_low = np.broadcast_to(np.asarray(action_low, dtype=float), (action_dim,)).copy()
        self.action_high = np.broadcast_to(np.asarray(action_high, dtype=float), (action_dim,)).copy()
        if not (np.all(np.isfinite(self.action_low)) and np.all(np.isfinite(self.action_high))
                and np.all(self.action_high > self.action_low)):
            raise ValueError("action_low/action_high must be finite with action_high > action_low")
        parts = []
        for fi, fo in zip(self.sizes[:-1], self.sizes[1:]):
            b = 1.0 / np.sqrt(fi)
            parts += [g.uniform(-b, b, fi * fo), g.uniform(-b, b, fo)]
        self.theta = np.concatenate(parts)

    @property
    def n_params(self) -> int:
        """Number of weights and biases."""
        return self.theta.size

    def get_params(self) -> np.ndarray:
        """All weights and biases, flattened (a copy)."""
        return self.theta.copy()

    def set_params(self, theta: Any) -> None:
        """Set all weights and biases from a flat vector."""
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have shape ({self.n_params},), got {theta.shape}")
        self.theta = theta.copy()

    def normalise(self, obs: Any) -> np.ndarray:
        """The network's input: ``obs`` (B, n) as float, box-normalised to [-1, 1] if ``obs_low`` was given.
        Non-finite observations raise ``ValueError`` (they would give NaN actions)."""
        h = np.atleast_2d(np.asarray(obs, dtype=float))
        if h.ndim != 2 or h.shape[1] != self.obs_dim:
            raise ValueError(f"obs must have trailing dimension {self.obs_dim}, got shape {h.shape}")
        if not np.all(np.isfinite(h)):
            raise ValueError("obs must be finite (NaN or inf found)")
        if self.obs_low is None or self.obs_width is None:
            return h
        return 2.0 * (h - self.obs_low) / self.obs_width - 1.0

    def act_with(self, thetas: np.ndarray, obs: Any) -> np.ndarray:
        """Batched forward pass with one parameter vector per row of ``obs``."""
        h = self.normalise(obs)
        thetas = np.atleast_2d(thetas)
        if thetas.shape[0] == 1 and h.shape[0] > 1:
            thetas = np.broadcast_to(thetas, (h.shape[0], thetas.shape[1]))
        o = 0
        n_layers = len(self.sizes) - 1
        for li, (fi, fo) in enumerate(zip(self.sizes[:-1], self.sizes[1:])):
            W = thetas[:, o:o + fi * fo].reshape(-1, fo, fi)
            o += fi * fo
            h = np.einsum("bij,bj->bi", W, h) + thetas[:, o:o + fo]
            o += fo
            if li < n_layers - 1:
                h = np.tanh(h)
        u = np.clip(h, -1.0, 1.0)
        return self.action_low + (u + 1.0) * 0.5 * (self.action_high - self.action_low)

    def act(self, obs: Any) -> np.ndarray:
        """Deterministic action(s), ``(B, m)`` for batched input, ``(m,)`` for one observation."""
        single = np.asarray(obs).ndim == 1
        h = self.normalise(obs)
        o = 0
        for li, (fi, fo) in enumerate(zip(self.sizes[:-1], self.sizes[1:])):
            W = self.theta[o:o + fi * fo].reshape(fo, fi)
            o += fi * fo
            h = h @ W.T + self.theta[o:o + fo]
            o += fo
            if li < len(self.sizes) - 2:
                h = np.tanh(h)
        a = self.action_low + (np.clip(h, -1.0, 1.0) + 1.0) * 0.5 * (self.action_high - self.action_low)
        return a[0] if single else a
