"""Tabular finite-horizon MDPs with Gaussian reward distributions, demonstrations and rollouts (setting of [P18]).

Rewards are random: R(s, a) ~ N(mu_k, sigma_k^2) with k = groups[s, a] (rewards tied by group; one group per (s, a)
is the fully tabular case), drawn independently at every step. The return of a trajectory is
Z = sum_t gamma^t R(s_t, a_t) = sum_k A_k mu_k + sum_k B_k sigma_k with A_k = sum_t gamma^t 1[k_t = k] and
B_k = sum_t gamma^t eps_t 1[k_t = k], eps_t ~ N(0, 1): linear in the reward parameters (the reparameterisation the
reward step differentiates through).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from icml26.common.seeding import rng as make_rng

__all__ = [
    "Demonstrations",
    "GaussianRewards",
    "TabularMDP",
    "check_policy",
    "exact_returns",
    "return_coefficients",
    "rollout",
]


def _int_array(x: object, name: str, ndim: int) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if not np.all(np.mod(a, 1) == 0):
            raise TypeError(f"{name} must hold integers")
        a = a.astype(np.int64)
    return a.astype(np.int64)


@dataclass(frozen=True)
class TabularMDP:
    """Finite-horizon tabular MDP (dynamics only; rewards are what IRL infers): the tabular setting of [P18] used here.

    Attributes:
        transitions: P[s, a, s'] (S, A, S), entries in [0, 1], each P[s, a, :] summing to 1.
        initial: rho_0[s] (S,), the start distribution.
        horizon: H, the number of steps of every episode.
        gamma: the discount gamma in (0, 1].
        groups: k[s, a] (S, A) ints in [0, K): the reward group of each pair (default: one group per pair).
    """

    transitions: np.ndarray
    initial: np.ndarray
    horizon: int
    gamma: float = 1.0
    groups: np.ndarray | None = None

    def __post_init__(self) -> None:
        p = np.asarray(self.transitions, dtype=float)
        if p.ndim != 3 or p.shape[0] != p.shape[2] or p.shape[0] == 0 or p.shape[1] == 0:
            raise ValueError(f"transitions must have shape (S, A, S), got {p.shape}")
        if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
            raise ValueError("transitions must be probabilities in [0, 1]")
        if not np.allclose(p.sum(axis=2), 1.0, atol=1e-8):
            raise ValueError("transitions[s, a, :] must sum to 1 for every (s, a)")
        mu0 = np.asarray(self.initial, dtype=float)
        if mu0.shape != (p.shape[0],):
            raise ValueError(f"initial must have shape ({p.shape[0]},), got {mu0.shape}")
        if np.any(mu0 < 0) or np.any(mu0 > 1) or not np.isclose(mu0.sum(), 1.0):
            raise ValueError("initial must be a probability vector (entries in [0, 1] summing to 1)")
        if isinstance(self.horizon, bool) or not isinstance(self.horizon, (int, np.integer)) or self.horizon < 1:
            raise ValueError(f"horizon must be a positive int, got {self.horizon!r}")
        if not (0.0 < float(self.gamma) <= 1.0):
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma!r}")
        s, a = p.shape[:2]
        g = np.arange(s * a).reshape(s, a) if self.groups is None else _int_array(self.groups, "groups", 2)
        if g.shape != (s, a):
            raise ValueError(f"groups must have shape ({s}, {a}), got {g.shape}")
        if np.any(g < 0):
            raise ValueError("groups must be non-negative ints")
        object.__setattr__(self, "transitions", p)
        object.__setattr__(self, "initial", mu0)
        object.__setattr__(self, "groups", g)

    @property
    def n_states(self) -> int:
        return int(self.transitions.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.transitions.shape[1])

    @property
    def n_groups(self) -> int:
        return int(self.groups.max()) + 1  # type: ignore[union-attr]


@dataclass(frozen=True)
class GaussianRewards:
    """Per-group reward distributions N(mean[k], std[k]^2) (the reward distribution R_phi of [P18], phi = (mu, sigma))."""

    mean: np.ndarray
    std: np.ndarray

    def __post_init__(self) -> None:
        m = np.asarray(self.mean, dtype=float)
        s = np.asarray(self.std, dtype=float)
        if m.ndim != 1 or m.size == 0 or m.shape != s.shape:
            raise ValueError(f"mean and std must be non-empty 1-D arrays of equal length, got {m.shape} and {s.shape}")
        if not (np.all(np.isfinite(m)) and np.all(np.isfinite(s))):
            raise ValueError("mean and std must be finite")
        if np.any(s < 0):
            raise ValueError("std must be >= 0")
        object.__setattr__(self, "mean", m)
        object.__setattr__(self, "std", s)


def check_policy(policy: np.ndarray, mdp: TabularMDP, name: str = "policy") -> np.ndarray:
    """Validate a stationary (S, A) or time-dependent (H, S, A) policy: probabilities whose rows sum to 1."""
    pi = np.asarray(policy, dtype=float)
    shapes = {(mdp.n_states, mdp.n_actions), (mdp.horizon, mdp.n_states, mdp.n_actions)}
    if pi.shape not in shapes:
        raise ValueError(f"{name} must have shape (S, A) or (H, S, A) = {sorted(shapes)}, got {pi.shape}")
    if not np.all(np.isfinite(pi)) or np.any(pi < 0) or np.any(pi > 1):
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    if not np.allclose(pi.sum(axis=-1), 1.0, atol=1e-8):
        raise ValueError(f"{name} rows must sum to 1")
    return pi


@dataclass(frozen=True)
class Demonstrations:
    """Offline demonstrations: state and action sequences only (rewards are never observed; [P18]'s offline setting).

    Attributes:
        states: (N, H) ints, the states s_0..s_{H-1} of N trajectories.
        actions: (N, H) ints, the actions taken.
    """

    states: np.ndarray
    actions: np.ndarray
    meta: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        s = _int_array(self.states, "states", 2)
        a = _int_array(self.actions, "actions", 2)
        if s.shape[0] == 0 or s.shape[1] == 0:
            raise ValueError("demonstrations are empty: states must have shape (N, H) with N, H >= 1")
        if s.shape != a.shape:
            raise ValueError(f"states and actions must have the same shape, got {s.shape} and {a.shape}")
        if np.any(s < 0) or np.any(a < 0):
            raise ValueError("states and actions must be non-negative indices")
        object.__setattr__(self, "states", s)
        object.__setattr__(self, "actions", a)

    def __len__(self) -> int:
        return int(self.states.shape[0])

    def check_against(self, mdp: TabularMDP) -> None:
        """Raise ValueError when the demonstrations do not fit ``mdp`` (horizon, state or action range)."""
        if self.states.shape[1] != mdp.horizon:
            raise ValueError(f"demonstrations have {self.states.shape[1]} steps, the MDP's horizon is {mdp.horizon}")
        if self.states.max() >= mdp.n_states:
            raise ValueError(f"demonstrations.states holds state {self.states.max()} >= n_states {mdp.n_states}")
        if self.actions.max() >= mdp.n_actions:
            raise ValueError(f"demonstrations.actions holds action {self.actions.max()} >= n_actions {mdp.n_actions}")


def rollout(
    mdp: TabularMDP, policy: np.ndarray, n: int, *, start: int | None = None, seed: int | np.random.Generator | None = 0
) -> Demonstrations:
    """Sample ``n`` trajectories of ``policy`` (stationary (S, A) or per-step (H, S, A)) from rho_0 or from ``start``.

    Produces the offline demonstrations (states and actions only) of [P18]'s setting and the learner's rollouts."""
    pi = check_policy(policy, mdp)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    g = make_rng(seed)
    S, A, H = mdp.n_states, mdp.n_actions, mdp.horizon
    states = np.empty((n, H), dtype=np.int64)
    actions = np.empty((n, H), dtype=np.int64)
    if start is None:
        s = g.choice(S, size=n, p=mdp.initial)
    else:
        if not 0 <= int(start) < S:
            raise ValueError(f"start must be a state in [0, {S}), got {start!r}")
        s = np.full(n, int(start), dtype=np.int64)
    cum_p = np.cumsum(mdp.transitions, axis=2)
    for t in range(H):
        pt = pi[t] if pi.ndim == 3 else pi
        cum_pi = np.cumsum(pt[s], axis=1)
        a = np.minimum((g.random((n, 1)) > cum_pi).sum(axis=1), A - 1)
        states[:, t], actions[:, t] = s, a
        s = np.minimum((g.random((n, 1)) > cum_p[s, a]).sum(axis=1), S - 1)
    return Demonstrations(states, actions)


def return_coefficients(
    mdp: TabularMDP, demos: Demonstrations, eps: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) with A[m, k] = sum_t gamma^t 1[k_t = k] and B[m, k] = sum_t gamma^t eps[m, t] 1[k_t = k].

    The sampled return of trajectory m under rewards (mu, sigma) is Z_m = A[m] @ mu + B[m] @ sigma.
    """
    k = mdp.groups[demos.states, demos.actions]  # type: ignore[index]
    n, h = k.shape
    if eps.shape != (n, h):
        raise ValueError(f"eps must have shape {(n, h)}, got {eps.shape}")
    disc = mdp.gamma ** np.arange(h)
    K = mdp.n_groups
    rows = np.repeat(np.arange(n), h)
    a = np.zeros((n, K))
    b = np.zeros((n, K))
    np.add.at(a, (rows, k.ravel()), np.tile(disc, n))
    np.add.at(b, (rows, k.ravel()), (eps * disc).ravel())
    return a, b


def exact_returns(
    mdp: TabularMDP, policy: np.ndarray, rewards: GaussianRewards, *, start: int, max_paths: int = 200_000
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact return distribution from ``start`` as a Gaussian mixture (weights, means, stds) by enumerating paths.

    This is the return law Z^pi whose quantiles [P18] compares, computed exactly instead of by a quantile critic.

    Each (state, action) path of probability p has a Gaussian return N(sum gamma^t mu_k_t, sum gamma^2t sigma_k_t^2).
    Exponential in H: for tiny MDPs only (the oracle of tests and claim checks); paths are merged when identical.
    """
    pi = check_policy(policy, mdp)
    if isinstance(start, (bool, np.bool_)) or not isinstance(start, (int, np.integer)):
        raise TypeError(f"start must be an int state index, got {start!r}")
    if not 0 <= int(start) < mdp.n_states:
        raise ValueError(f"start must be a state in [0, {mdp.n_states}), got {start!r}")
    if rewards.mean.size < mdp.n_groups:
        raise ValueError(f"rewards cover {rewards.mean.size} groups, the MDP has {mdp.n_groups}")
    paths: dict[tuple[int, float, float], float] = {(int(start), 0.0, 0.0): 1.0}
    for t in range(mdp.horizon):
        nxt: dict[tuple[int, float, float], float] = {}
        pt = pi[t] if pi.ndim == 3 else pi
        for (s, m, v), p in paths.items():
            for a, s2 in itertools.product(range(mdp.n_actions), range(mdp.n_states)):
                q = p * pt[s, a] * mdp.transitions[s, a, s2]
                if q <= 0:
                    continue
                k = mdp.groups[s, a]  # type: ignore[index]
                key = (s2, round(m + mdp.gamma**t * rewards.mean[k], 12), round(v + mdp.gamma ** (2 * t) * rewards.std[k] ** 2, 12))
                nxt[key] = nxt.get(key, 0.0) + q
        if len(nxt) > max_paths:
            raise ValueError(f"more than max_paths={max_paths} distinct paths: the MDP is too large to enumerate")
        paths = nxt
    w = np.array(list(paths.values()))
    means = np.array([k[1] for k in paths])
    stds = np.sqrt(np.array([k[2] for k in paths]))
    return w / w.sum(), means, stds
