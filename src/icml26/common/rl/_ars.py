"""Augmented Random Search (Mania, Guy, Recht 2018), the basic V1-t update, as pure functions on parameter vectors.

One iteration: draw ``N`` directions ``delta ~ N(0, I)`` with the caller's generator, evaluate the ``2N`` candidates
of :func:`ars_candidates` (``theta + nu delta`` then ``theta - nu delta``), and pass their returns to
:func:`ars_update`. The evaluation (environments, episodes, budgets) stays with the caller.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.common import validation

__all__ = ["ars_candidates", "ars_update"]


def _directions(deltas: Any, theta: np.ndarray) -> np.ndarray:
    d = validation.real_array(deltas, "deltas", ndim=2)
    if d.shape[1] != theta.size:
        raise ValueError(f"deltas must have shape (N, {theta.size}) for theta of size {theta.size}, got {d.shape}")
    return d


def ars_candidates(theta: Any, deltas: Any, *, delta_std: float) -> np.ndarray:
    """The ``2N`` parameter vectors ARS evaluates (Mania et al. 2018, Alg. 1, line 5): rows ``theta + nu delta_k``
    (k < N) then ``theta - nu delta_k``, with ``nu`` = ``delta_std`` > 0 and ``deltas`` of shape ``(N, d)``."""
    th = validation.real_array(theta, "theta", ndim=1)
    d = _directions(deltas, th)
    nu = validation.real(delta_std, "delta_std", lo=0.0, lo_open=True)
    return np.concatenate([th + nu * d, th - nu * d])


def ars_update(theta: Any, deltas: Any, returns_plus: Any, returns_minus: Any, *, step_size: float,
               n_top: int) -> np.ndarray:
    """The ARS V1-t step (Mania et al. 2018, Alg. 1, lines 6-7): keep the ``b`` = ``n_top`` directions with the
    largest ``max(r+_k, r-_k)`` (ties: the lower index), and move
    ``theta + alpha / (b sigma_R) sum_k (r+_k - r-_k) delta_k`` with ``alpha`` = ``step_size`` and ``sigma_R`` the
    standard deviation of the ``2b`` kept returns; ``theta`` is returned unchanged when ``sigma_R = 0``.

    Args:
        theta: the current parameters ``(d,)``.
        deltas: the directions ``(N, d)``.
        returns_plus: the returns ``(N,)`` of ``theta + nu delta_k``.
        returns_minus: the returns ``(N,)`` of ``theta - nu delta_k``.
        step_size: alpha > 0.
        n_top: b in ``1..N``.

    Returns:
        The new parameters (a new array).
    """
    th = validation.real_array(theta, "theta", ndim=1)
    d = _directions(deltas, th)
    n = d.shape[0]
    rp = validation.real_array(returns_plus, "returns_plus", shape=(n,))
    rm = validation.real_array(returns_minus, "returns_minus", shape=(n,))
    alpha = validation.real(step_size, "step_size", lo=0.0, lo_open=True)
    b = validation.int_at_least(n_top, "n_top", 1, hi=n)
    top = np.argsort(-np.maximum(rp, rm), kind="stable")[:b]
    sigma = np.concatenate([rp[top], rm[top]]).std()
    if sigma > 0:
        return th + alpha / (b * sigma) * ((rp[top] - rm[top]) @ d[top])
    return th.copy()
