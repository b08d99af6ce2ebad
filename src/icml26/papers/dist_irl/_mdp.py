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
from typing import cast

import numpy as np

from icml26.common.seeding import rng as make_rng
from icml26.common.validation import int_at_least, positive_int, probability_vector, real, real_array
from icml26.common.validation import seed as check_seed

__all__ = [
    "ROW_SUM_ATOL",
    "Demonstrations",
    "GaussianRewards",
    "TabularMDP",
    "check_policy",
    "exact_returns",
    "return_coefficients",
    "rollout",
]


#: how far a probability row (a policy's, a transition's) may sum from 1: an absolute tolerance, so that a row such as
#: [0.0, 0.99999] is refused rather than accepted by a relative test
ROW_SUM_ATOL = 1e-8


def _int_array(x: object, name: str, ndim: int) -> np.ndarray:
    a = real_array(x, name, ndim=ndim, allow_empty=True)
    if not np.all(np.mod(a, 1) == 0):
        raise TypeError(f"{name} must hold integers")
    return a.astype(np.int64)


def _rows_sum_to_one(p: np.ndarray) -> bool:
    return bool(np.all(np.abs(p.sum(axis=-1) - 1.0) <= ROW_SUM_ATOL))


def _generator(seed: object) -> np.random.Generator:
    """An explicit seed (int >= 0) or a numpy Generator; ``None`` and everything else refused, naming ``seed``."""
    return seed if isinstance(seed, np.random.Generator) else make_rng(check_seed(seed))


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
        p = real_array(self.transitions, "transitions", ndim=3)
        if p.shape[0] != p.shape[2] or 0 in p.shape:
            raise ValueError(f"transitions must have shape (S, A, S), got {p.shape}")
        if np.any(p < 0) or np.any(p > 1):
            raise ValueError("transitions must be probabilities in [0, 1]")
        if not _rows_sum_to_one(p):
            raise ValueError(f"transitions[s, a, :] must sum to 1 (within {ROW_SUM_ATOL:g}) for every (s, a)")
        mu0 = probability_vector(self.initial, "initial", atol=ROW_SUM_ATOL)
        if mu0.shape != (p.shape[0],):
            raise ValueError(f"initial must have shape ({p.shape[0]},), got {mu0.shape}")
        horizon = positive_int(self.horizon, "horizon")
        gamma = real(self.gamma, "gamma", lo=0.0, hi=1.0, lo_open=True)
        s, a = p.shape[:2]
        g = np.arange(s * a).reshape(s, a) if self.groups is None else _int_array(self.groups, "groups", 2)
        if g.shape != (s, a):
            raise ValueError(f"groups must have shape ({s}, {a}), got {g.shape}")
        if np.any(g < 0):
            raise ValueError("groups must be non-negative ints")
        object.__setattr__(self, "transitions", p)
        object.__setattr__(self, "initial", mu0)
        object.__setattr__(self, "horizon", horizon)
        object.__setattr__(self, "gamma", gamma)
        object.__setattr__(self, "groups", g)

    @property
    def n_states(self) -> int:
        return int(self.transitions.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.transitions.shape[1])

    @property
    def group_of(self) -> np.ndarray:
        """k[s, a]: the reward group of every (state, action) pair, an (S, A) int array (``groups`` after checking)."""
        return cast(np.ndarray, self.groups)

    @property
    def n_groups(self) -> int:
        return int(self.group_of.max()) + 1


@dataclass(frozen=True)
class GaussianRewards:
    """Per-group reward distributions N(mean[k], std[k]^2) (the reward distribution R_phi of [P18], phi = (mu, sigma))."""

    mean: np.ndarray
    std: np.ndarray

    def __post_init__(self) -> None:
        m = real_array(self.mean, "mean", ndim=1)
        s = real_array(self.std, "std", ndim=1)
        if m.shape != s.shape:
            raise ValueError(f"mean and std must have equal lengths, got {m.shape} and {s.shape}")
        if np.any(s < 0):
            raise ValueError("std must be >= 0")
        object.__setattr__(self, "mean", m)
        object.__setattr__(self, "std", s)


def check_policy(policy: np.ndarray, mdp: TabularMDP, name: str = "policy") -> np.ndarray:
    """Validate a stationary (S, A) or time-dependent (H, S, A) policy of [P18]'s tabular setting: probabilities in
    [0, 1] whose rows sum to 1 within the absolute tolerance :data:`ROW_SUM_ATOL`."""
    pi = real_array(policy, name, ndim=(2, 3))
    shapes = {(mdp.n_states, mdp.n_actions), (mdp.horizon, mdp.n_states, mdp.n_actions)}
    if pi.shape not in shapes:
        raise ValueError(f"{name} must have shape (S, A) or (H, S, A) = {sorted(shapes)}, got {pi.shape}")
    if np.any(pi < 0) or np.any(pi > 1):
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    if not _rows_sum_to_one(pi):
        worst = float(np.abs(pi.sum(axis=-1) - 1.0).max())
        raise ValueError(f"{name} rows must sum to 1 within {ROW_SUM_ATOL:g}, got a row {worst:.3g} away")
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
    mdp: TabularMDP, policy: np.ndarray, n: int, *, start: int | None = None, seed: int | np.random.Generator = 0
) -> Demonstrations:
    """Sample ``n`` trajectories of ``policy`` (stationary (S, A) or per-step (H, S, A)) from rho_0 or from ``start``.

    Produces the offline demonstrations (states and actions only) of [P18]'s setting and the learner's rollouts."""
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"mdp must be a TabularMDP, got {type(mdp).__name__}")
    pi = check_policy(policy, mdp)
    n = positive_int(n, "n")
    g = _generator(seed)
    S, A, H = mdp.n_states, mdp.n_actions, mdp.horizon
    states = np.empty((n, H), dtype=np.int64)
    actions = np.empty((n, H), dtype=np.int64)
    if start is None:
        s = g.choice(S, size=n, p=mdp.initial)
    else:
        s = np.full(n, int_at_least(start, "start", 0, hi=S - 1), dtype=np.int64)
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
    k = mdp.group_of[demos.states, demos.actions]
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
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"mdp must be a TabularMDP, got {type(mdp).__name__}")
    pi = check_policy(policy, mdp)
    start = int_at_least(start, "start", 0, hi=mdp.n_states - 1)
    if not isinstance(rewards, GaussianRewards):
        raise TypeError(f"rewards must be a GaussianRewards, got {type(rewards).__name__}")
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
                k = mdp.group_of[s, a]
                mean = float(m + mdp.gamma**t * rewards.mean[k])
                var = float(v + mdp.gamma ** (2 * t) * rewards.std[k] ** 2)
                key = (s2, round(mean, 12), round(var, 12))
                nxt[key] = nxt.get(key, 0.0) + q
        if len(nxt) > max_paths:
            raise ValueError(f"more than max_paths={max_paths} distinct paths: the MDP is too large to enumerate")
        paths = nxt
    w = np.array(list(paths.values()))
    means = np.array([k[1] for k in paths])
    stds = np.sqrt(np.array([k[2] for k in paths]))
    return w / w.sum(), means, stds
