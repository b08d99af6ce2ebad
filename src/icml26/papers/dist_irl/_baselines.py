"""Baselines of [P18]: mean-matching Maximum-Entropy IRL (Ziebart et al., 2008) and behaviour cloning."""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from icml26.papers.dist_irl._mdp import Demonstrations, TabularMDP

__all__ = ["BehaviourCloning", "MaxEntIRL"]


def _check_fit_args(demonstrations: object, mdp: object) -> None:
    if not isinstance(demonstrations, Demonstrations):
        raise TypeError(f"demonstrations must be a Demonstrations, got {type(demonstrations).__name__}")
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"mdp must be a TabularMDP, got {type(mdp).__name__}")
    demonstrations.check_against(mdp)


def _check_number(name: str, value: object, *, allow_zero: bool) -> None:
    """``value`` must be a finite real number, > 0 (or >= 0 with ``allow_zero``); TypeError/ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not np.isfinite(value) or (value < 0 if allow_zero else value <= 0):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {value!r}")


class MaxEntIRL:
    """Finite-horizon MaxEnt IRL with one deterministic reward r_k per reward group (mean matching).

    The mean-matching MaxEnt IRL baseline of [P18]'s experiments (the notes' "mean-IRL" that takes the risky route).

    Maximises the likelihood of the demonstrations under the soft-optimal policy
    pi_t(a|s) = exp(Q_t(s, a) - V_t(s)), Q_t = r + gamma P V_{t+1}, V_t = logsumexp_a Q_t; the gradient is the gap
    between the expert's and the policy's discounted group visitation counts (expected-return matching).

    Args: ``n_iter`` gradient steps, ``lr`` step size, ``l2`` ridge on r. Learned: ``reward_`` (K,),
    ``policy_`` (H, S, A), ``n_iter_``.
    """

    def __init__(self, *, n_iter: int = 300, lr: float = 0.05, l2: float = 0.0) -> None:
        self.n_iter = n_iter
        self.lr = lr
        self.l2 = l2
        self._validate()

    def _validate(self) -> None:
        if isinstance(self.n_iter, bool) or not isinstance(self.n_iter, (int, np.integer)) or self.n_iter < 0:
            raise ValueError(f"n_iter must be a non-negative int, got {self.n_iter!r}")
        _check_number("lr", self.lr, allow_zero=False)
        _check_number("l2", self.l2, allow_zero=True)

    @staticmethod
    def soft_policy(mdp: TabularMDP, r_sa: np.ndarray) -> np.ndarray:
        """Soft value iteration (backward over the horizon): the per-step Boltzmann policy (H, S, A)."""
        H = mdp.horizon
        pi = np.empty((H, mdp.n_states, mdp.n_actions))
        v = np.zeros(mdp.n_states)
        for t in reversed(range(H)):
            q = r_sa + mdp.gamma * mdp.transitions @ v
            v = np.asarray(logsumexp(q, axis=1), dtype=float)
            pi[t] = np.exp(q - v[:, None])
        return pi

    @staticmethod
    def group_visits(mdp: TabularMDP, policy: np.ndarray, start: np.ndarray) -> np.ndarray:
        """Expected discounted visits per reward group of a per-step policy from the start distribution ``start``."""
        d = start.copy()
        f = np.zeros(mdp.n_groups)
        for t in range(mdp.horizon):
            dsa = d[:, None] * policy[t]
            np.add.at(f, mdp.group_of.ravel(), mdp.gamma**t * dsa.ravel())
            d = np.einsum("sa,sap->p", dsa, mdp.transitions)
        return f

    def fit(self, demonstrations: Demonstrations, mdp: TabularMDP) -> MaxEntIRL:
        """Fit r_k by gradient ascent on the MaxEnt log-likelihood; returns ``self``."""
        _check_fit_args(demonstrations, mdp)
        self._validate()
        k = mdp.group_of[demonstrations.states, demonstrations.actions]
        disc = mdp.gamma ** np.arange(mdp.horizon)
        f_e = np.zeros(mdp.n_groups)
        np.add.at(f_e, k.ravel(), np.tile(disc, len(demonstrations)))
        f_e /= len(demonstrations)
        start = np.bincount(demonstrations.states[:, 0], minlength=mdp.n_states) / len(demonstrations)
        r = np.zeros(mdp.n_groups)
        for _ in range(self.n_iter):
            pi = self.soft_policy(mdp, r[mdp.group_of])
            r += self.lr * (f_e - self.group_visits(mdp, pi, start) - self.l2 * r)
        self.reward_ = r
        self.policy_ = self.soft_policy(mdp, r[mdp.group_of])
        self.n_iter_ = self.n_iter
        return self


class BehaviourCloning:
    """Tabular behaviour cloning: pi(a|s) = (n(s, a) + alpha) / (n(s) + A alpha) (uniform where s is unseen).

    The BC baseline of [P18]'s experiments.

    Learned: ``policy_`` (S, A).
    """

    def __init__(self, *, smoothing: float = 1.0) -> None:
        self.smoothing = smoothing
        _check_number("smoothing", smoothing, allow_zero=False)

    def fit(self, demonstrations: Demonstrations, mdp: TabularMDP) -> BehaviourCloning:
        """Count the expert's actions per state; returns ``self``."""
        _check_fit_args(demonstrations, mdp)
        _check_number("smoothing", self.smoothing, allow_zero=False)
        n = np.zeros((mdp.n_states, mdp.n_actions))
        np.add.at(n, (demonstrations.states.ravel(), demonstrations.actions.ravel()), 1.0)
        self.policy_ = (n + self.smoothing) / (n.sum(axis=1, keepdims=True) + mdp.n_actions * self.smoothing)
        return self
