"""Exact return laws in coefficient form, and their quantiles with gradients in the reward parameters ([P18], tabular).

With Gaussian rewards R(s, a) ~ N(mu_k, sigma_k^2), k = groups[s, a], a trajectory (path) p has the return
N(A_p . mu, B_p . sigma^2), A_p[k] = sum_t gamma^t 1[k_t = k], B_p[k] = sum_t gamma^(2t) 1[k_t = k]. The return of a
deterministic policy from a start state is the mixture sum_p w_p N(A_p . mu, B_p . sigma^2) over its paths; the
expert's offline return law is the same mixture over the demonstrated paths (empirical weights). Quantiles of the
mixture solve F(q) = tau; their gradient in phi = (mu, sigma) follows from the implicit function theorem,
dq/dtheta = -(dF/dtheta) / f(q).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy import special

from icml26.papers.dist_irl._mdp import Demonstrations, TabularMDP

__all__ = [
    "ReturnLaw",
    "decision_states",
    "enumerate_policies",
    "expert_law",
    "law_quantiles",
    "policy_law",
    "reachable_states",
]


@dataclass(frozen=True)
class ReturnLaw:
    """A return law sum_p w_p N(A_p . mu, B_p . sigma^2) (weights (P,), A (P, K), B (P, K))."""

    weights: np.ndarray
    A: np.ndarray
    B: np.ndarray


def _dedupe(w: np.ndarray, A: np.ndarray, B: np.ndarray) -> ReturnLaw:
    key = np.round(np.concatenate([A, B], axis=1), 12)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    wu = np.bincount(inv.ravel(), weights=w, minlength=uniq.shape[0])
    K = A.shape[1]
    return ReturnLaw(wu / wu.sum(), uniq[:, :K].copy(), uniq[:, K:].copy())


def decision_states(mdp: TabularMDP) -> np.ndarray:
    """States where the actions differ (in reward group or in the next-state law); elsewhere every policy agrees."""
    g = mdp.group_of
    P = mdp.transitions
    same = np.all(g == g[:, :1], axis=1) & np.all(np.isclose(P, P[:, :1, :]), axis=(1, 2))
    return np.flatnonzero(~same)


def reachable_states(mdp: TabularMDP, start: int) -> np.ndarray:
    """States reachable from ``start`` within the horizon under some policy (any action)."""
    seen = np.zeros(mdp.n_states, dtype=bool)
    frontier = np.zeros(mdp.n_states, dtype=bool)
    frontier[start] = True
    for _ in range(mdp.horizon):
        seen |= frontier
        frontier = (mdp.transitions[frontier].sum(axis=(0, 1)) > 0) & ~seen
        if not frontier.any():
            break
    return np.flatnonzero(seen)


def enumerate_policies(mdp: TabularMDP, start: int, *, max_policies: int) -> tuple[np.ndarray, np.ndarray]:
    """All deterministic stationary policies restricted to the decision states reachable from ``start``.

    Returns (states D (d,), actions (J, d)); J = A^d must not exceed ``max_policies`` (the enumeration is the exact
    risk-sensitive best response of the policy player on tiny MDPs).
    """
    reach = reachable_states(mdp, start)
    dec = np.intersect1d(decision_states(mdp), reach)
    n = mdp.n_actions ** dec.size
    if n > max_policies:
        raise ValueError(f"{n} deterministic policies from start {start} exceed max_policies={max_policies}")
    acts = np.array(list(itertools.product(range(mdp.n_actions), repeat=dec.size)), dtype=np.int64).reshape(n, dec.size)
    return dec, acts


def policy_law(mdp: TabularMDP, action: np.ndarray, start: int, *, max_paths: int = 100_000) -> ReturnLaw:
    """Exact return law of the deterministic policy a = action[s] from ``start`` (paths merged by coefficients)."""
    K, H = mdp.n_groups, mdp.horizon
    g = mdp.group_of
    # a path is summarised by (state, A, B); identical summaries merge
    states = np.array([start])
    A = np.zeros((1, K))
    B = np.zeros((1, K))
    w = np.ones(1)
    for t in range(H):
        a = action[states]
        k = g[states, a]
        A[np.arange(len(states)), k] += mdp.gamma**t
        B[np.arange(len(states)), k] += mdp.gamma ** (2 * t)
        nxt = mdp.transitions[states, a]  # (P, S)
        p_idx, s2 = np.nonzero(nxt > 0)
        w = w[p_idx] * nxt[p_idx, s2]
        states, A, B = s2, A[p_idx], B[p_idx]
        key = np.concatenate([states[:, None].astype(float), np.round(A, 12), np.round(B, 12)], axis=1)
        uniq, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.ravel()
        w = np.bincount(inv, weights=w, minlength=uniq.shape[0])
        states, A, B = uniq[:, 0].astype(np.int64), uniq[:, 1:K + 1], uniq[:, K + 1:]
        if len(states) > max_paths:
            raise ValueError(f"more than max_paths={max_paths} distinct paths: the MDP is too large to enumerate")
    return _dedupe(w, A, B)


def expert_law(mdp: TabularMDP, demos: Demonstrations, rows: np.ndarray) -> ReturnLaw:
    """The expert's empirical return law over the demonstrated paths ``rows`` (uniform weights, merged)."""
    if rows.size == 0:
        raise ValueError("expert_law needs at least one demonstration")
    k = mdp.group_of[demos.states[rows], demos.actions[rows]]  # (n, H)
    n, h = k.shape
    A = np.zeros((n, mdp.n_groups))
    B = np.zeros((n, mdp.n_groups))
    r = np.repeat(np.arange(n), h)
    np.add.at(A, (r, k.ravel()), np.tile(mdp.gamma ** np.arange(h), n))
    np.add.at(B, (r, k.ravel()), np.tile(mdp.gamma ** (2 * np.arange(h)), n))
    return _dedupe(np.ones(n), A, B)


def law_quantiles(
    law: ReturnLaw, mu: np.ndarray, sigma: np.ndarray, taus: np.ndarray, *, iters: int = 70
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Quantiles q(tau_i) of the law under phi = (mu, sigma) and their gradients dq/dmu, dq/dsigma ((N, K) each).

    One component: q = m + s Phi^-1(tau), exact. Several: bisection on the mixture CDF, then the implicit-function
    gradient. Every path must have positive variance (sigma > 0 on some group it visits).
    """
    m = law.A @ mu
    s = np.sqrt(law.B @ sigma**2)
    if np.any(s <= 0):
        raise ValueError("a path has zero return variance: sigma must be > 0 on the groups it visits")
    z_tau = special.ndtri(taus)
    ds_dsig = law.B * sigma[None, :] / s[:, None]  # (P, K)
    if m.size == 1:
        q = m[0] + s[0] * z_tau
        return q, np.tile(law.A[0], (taus.size, 1)), z_tau[:, None] * ds_dsig[0][None, :]
    lo = np.full(taus.shape, (m - 10 * s).min())
    hi = np.full(taus.shape, (m + 10 * s).max())
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        below = special.ndtr((mid[:, None] - m) / s) @ law.weights < taus
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    q = 0.5 * (lo + hi)
    z = (q[:, None] - m) / s  # (N, P)
    dens = law.weights * np.exp(-0.5 * z**2) / np.sqrt(2 * np.pi) / s  # (N, P): w_p phi(z_p) / s_p
    f = np.maximum(dens.sum(axis=1, keepdims=True), 1e-300)
    dq_dm = dens / f  # (N, P)
    dq_ds = dens * z / f
    return q, dq_dm @ law.A, dq_ds @ ds_dsig
