"""The reward/policy game of [P18] as a worst-case minimisation, and the solver that plays it.

The reward player picks phi in a box Phi; the policy player answers with the alternative (start state c, deterministic
policy j that deviates from the expert) whose DRM-weighted quantile gap against the expert is largest:

    f(phi) = max_{(c, j)} D_g(c, j; phi),    D_g(c, j; phi) = sum_i w_i (q_{c,j}(tau_i; phi) - q_{c,E}(tau_i; phi))
                                                            = rho_g(Z^{pi_j}_c) - rho_g(Z^E_c)     (grid form)

D_g is the signed part of the DRM-weighted FSD violation V_g = sum_i w_i (q_pi - q_E)_+ >= D_g; the expert dominates
every alternative in the rho_g sense iff f(phi) <= 0. The policy player best-responds exactly (the maximum over a
finite set), so the reward step is a subgradient step on f (Danskin): no simultaneous-gradient rotation, hence no
cycling. When every D_g is linear in phi (single-path returns, e.g. the two-route task with deterministic dynamics)
f is convex and piecewise linear, and projected subgradient descent with steps eta_t = lr R / sqrt(t + 1) on the
normalised subgradient and the step-weighted average of the iterates satisfies

    f(phi_bar_T) - f* <= G (R^2 + sum_t eta_t^2) / (2 sum_t eta_t) = O(G R log T / sqrt(T))            (Thm. below)

(Nesterov 2004, Sec. 3.2.3), i.e. O(eps^-2) iterations up to a log factor: the rate [P18] states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["MinimaxResult", "linear_minimax_value", "minimax_extragradient", "minimax_subgradient"]

Oracle = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class MinimaxResult:
    """Output of :func:`minimax_subgradient`.

    Attributes:
        x: the step-weighted average of the iterates (the point the guarantee is about).
        x_last: the last iterate.
        values: f(x_t) of every iterate (length n_iter).
        avg_path: the running averages x_bar_t, shape (n_iter + 1, d) (row 0 is x_0); only when requested.
        active: index of the maximising piece at every iterate.
    """

    x: np.ndarray
    x_last: np.ndarray
    values: np.ndarray
    avg_path: np.ndarray | None
    active: np.ndarray


def minimax_subgradient(
    oracle: Oracle,
    x0: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    n_iter: int,
    lr: float = 0.1,
    tie_tol: float = 1e-10,
    store_path: bool = False,
) -> MinimaxResult:
    """min_{x in [lower, upper]} max_j f_j(x) by best response + projected normalised subgradient + averaging.

    Implements the reward step of our reading of Alg. 1 of [P18] (see the module docstring): at x_t the oracle returns
    the values f_j(x_t) and gradients grad f_j(x_t) of every piece (every alternative policy); the max player's
    best response is the set of maximising pieces (ties within ``tie_tol`` averaged, a valid subgradient of the max);
    then x_{t+1} = Proj(x_t - eta_t g_t / ||g_t||), eta_t = lr * R / sqrt(t + 1), R the box diameter, and the output is
    the average of the iterates weighted by eta_t / ||g_t|| (the weights of the standard convex guarantee).

    Args:
        oracle: x -> (values (J,), gradients (J, d)).
        x0: the start point (projected onto the box).
        lower: the lower corner of the box Phi.
        upper: the upper corner of the box Phi.
        n_iter: T, the number of iterations.
        lr: the step scale (fraction of the box diameter moved at t = 0).
        tie_tol: pieces within this of the maximum count as maximisers.
        store_path: keep every running average (for convergence curves).
    """
    lo, hi, x = _check_box_problem(x0, lower, upper, n_iter, lr)
    radius = float(np.linalg.norm(hi - lo)) or 1.0
    wsum, xsum = 0.0, np.zeros_like(x)
    values = np.empty(n_iter)
    active = np.empty(n_iter, dtype=np.int64)
    path = [x.copy()] if store_path else []
    for t in range(n_iter):
        vals, grads = oracle(x)
        vals = np.asarray(vals, dtype=float)
        grads = np.asarray(grads, dtype=float)
        if vals.ndim != 1 or vals.size == 0 or grads.shape != (vals.size, x.size):
            raise ValueError(f"oracle must return values (J,) and gradients (J, {x.size}), got {vals.shape}, {grads.shape}")
        top = vals.max()
        best = np.flatnonzero(vals >= top - tie_tol)
        g = grads[best].mean(axis=0)
        values[t], active[t] = top, best[0]
        gn = float(np.linalg.norm(g))
        eta = lr * radius / np.sqrt(t + 1.0)
        alpha = eta / gn if gn > 0 else 0.0
        # the weighted average includes x_t with weight alpha_t (zero when x_t is stationary: g = 0)
        weight = alpha if gn > 0 else eta
        wsum += weight
        xsum += weight * x
        if store_path:
            path.append(xsum / wsum)
        if gn == 0.0:  # x_t minimises f: stay
            continue
        x = np.clip(x - alpha * g, lo, hi)
    x_bar = xsum / wsum if wsum > 0 else x.copy()
    return MinimaxResult(x_bar, x, values, np.asarray(path) if store_path else None, active)


def minimax_extragradient(
    oracle: Oracle,
    x0: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    n_iter: int,
    lr: float = 0.5,
    store_path: bool = False,
) -> MinimaxResult:
    """min_{x in box} max_{y in simplex} sum_j y_j f_j(x) by mirror-prox (extragradient) with averaging.

    Implements the reward/policy game of our reading of Alg. 1 of [P18] with a *mixed* policy player: y is a
    distribution over the pieces (start state, deviating policy), updated by multiplicative weights (entropic mirror
    step), x by a projected Euclidean step, each twice per iteration (extrapolate, then update from the extrapolated
    point: Nemirovski's mirror-prox / Korpelevich's extragradient). For convex-concave (e.g. bilinear) games the
    averaged extrapolated points have duality gap O(L / T); with the exact best response instead of y the plain
    subgradient method zigzags across the kinks of max_j f_j (:func:`minimax_subgradient`).

    Steps: eta_x = lr / G and eta_y = lr R / G with G = max_j ||grad f_j(x0)|| and R the box diameter (scale-free).
    Returns the averaged x (``x``), the last iterate, f(x_t) = max_j f_j(x_t) per iteration, optionally the running
    averages, and the piece with the largest averaged weight per iteration (``active``).
    """
    lo, hi, x = _check_box_problem(x0, lower, upper, n_iter, lr)
    vals, grads = oracle(x)
    vals, grads = np.asarray(vals, dtype=float), np.asarray(grads, dtype=float)
    if vals.ndim != 1 or vals.size == 0 or grads.shape != (vals.size, x.size):
        raise ValueError(f"oracle must return values (J,) and gradients (J, {x.size}), got {vals.shape}, {grads.shape}")
    radius = float(np.linalg.norm(hi - lo)) or 1.0
    big = float(np.linalg.norm(grads, axis=1).max()) or 1.0
    eta_x, eta_y = lr / big, lr * radius / big
    logy = np.full(vals.size, -np.log(vals.size))
    xsum, ysum = np.zeros_like(x), np.zeros(vals.size)
    values = np.empty(n_iter)
    active = np.empty(n_iter, dtype=np.int64)
    path = [x.copy()] if store_path else []
    for t in range(n_iter):
        values[t] = vals.max()
        y = np.exp(logy - logy.max())
        y /= y.sum()
        # extrapolation from (x, y) with the operator at (x, y)
        x_h = np.clip(x - eta_x * (y @ grads), lo, hi)
        logy_h = logy + eta_y * vals
        y_h = np.exp(logy_h - logy_h.max())
        y_h /= y_h.sum()
        v_h, g_h = oracle(x_h)
        v_h, g_h = np.asarray(v_h, dtype=float), np.asarray(g_h, dtype=float)
        # update from (x, y) with the operator at the extrapolated point
        x = np.clip(x - eta_x * (y_h @ g_h), lo, hi)
        logy = logy + eta_y * v_h
        logy -= logy.max()
        xsum += x_h
        ysum += y_h
        active[t] = int(np.argmax(ysum))
        if store_path:
            path.append(xsum / (t + 1))
        vals, grads = oracle(x)
        vals, grads = np.asarray(vals, dtype=float), np.asarray(grads, dtype=float)
    x_bar = xsum / n_iter if n_iter else x.copy()
    return MinimaxResult(x_bar, x, values, np.asarray(path) if store_path else None, active)


def linear_minimax_value(
    values: np.ndarray, grads: np.ndarray, x: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> tuple[float, np.ndarray]:
    """Exact min_{x in box} max_j f_j(x) when every piece is affine, f_j(x') = values_j + grads_j . (x' - x), by LP.

    The oracle of the convergence checks: min t s.t. f_j(x') <= t, lower <= x' <= upper (scipy's HiGHS).
    Returns (value, minimiser).
    """
    from scipy.optimize import linprog

    v = np.asarray(values, dtype=float)
    G = np.asarray(grads, dtype=float)
    x = np.asarray(x, dtype=float)
    if v.ndim != 1 or G.shape != (v.size, x.size):
        raise ValueError(f"values must be (J,) and grads (J, {x.size}), got {v.shape} and {G.shape}")
    b = v - G @ x  # f_j(x') = G_j x' + b_j
    c = np.zeros(x.size + 1)
    c[-1] = 1.0
    a_ub = np.concatenate([G, -np.ones((v.size, 1))], axis=1)
    bounds = [(float(lo), float(hi)) for lo, hi in zip(lower, upper)] + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=-b, bounds=bounds, method="highs")
    if not res.success:  # pragma: no cover - a bounded box always has a solution
        raise RuntimeError(f"LP failed: {res.message}")
    return float(res.x[-1]), res.x[:-1]


def _check_box_problem(
    x0: np.ndarray, lower: np.ndarray, upper: np.ndarray, n_iter: int, lr: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the arguments shared by both solvers; return (lower, upper, x0 clipped into the box) as floats."""
    lo = np.asarray(lower, dtype=float)
    hi = np.asarray(upper, dtype=float)
    x = np.asarray(x0, dtype=float).copy()
    if lo.shape != x.shape or hi.shape != x.shape:
        raise ValueError(f"lower, upper and x0 must have the same shape, got {lo.shape}, {hi.shape}, {x.shape}")
    if np.any(lo > hi):
        raise ValueError("lower must be <= upper elementwise")
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or n_iter < 0:
        raise ValueError(f"n_iter must be a non-negative int, got {n_iter!r}")
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be > 0, got {lr!r}")
    return lo, hi, np.clip(x, lo, hi)
