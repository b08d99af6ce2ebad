"""Data containers and small building blocks of [P36]: logged trajectories with reward-observed indicators, target
policies that may depend on the last missingness indicator, and polynomial feature maps (linear sieves)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Protocol, runtime_checkable

import numpy as np

from icml26.common.validation import real, real_array

__all__ = [
    "FeatureSpec",
    "LogisticPolicy",
    "TargetPolicy",
    "Trajectories",
    "basis",
    "policy_probs",
]

#: a feature map: "linear" | "quadratic" | "cubic" | a degree 1..3 | a callable (n, d) -> (n, k)
FeatureSpec = str | int | Callable[[np.ndarray], np.ndarray]
_DEGREES = {"linear": 1, "quadratic": 2, "cubic": 3}


def _as_int_array(x: object, name: str, ndim: int) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
        raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {a.shape}")
    if np.issubdtype(a.dtype, np.floating):
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise ValueError(f"{name} must hold whole numbers")
    return a.astype(np.int64)


@dataclass(frozen=True, eq=False)
class Trajectories:
    """``n`` logged trajectories of horizon ``T`` with rewards that may be missing (the data model of [P36], paper card).

    Symbols: ``states[i, t]`` = S_t (t = 0..T, the last one is S_{T+1} in the paper's 1-based indexing, needed as the
    shadow variable of the last step), ``actions[i, t]`` = A_t, ``observed[i, t]`` = η_t (1: R_t recorded),
    ``rewards[i, t]`` = R_t where η_t = 1 (NaN elsewhere, whatever was passed), ``full_rewards`` = R_t everywhere
    (simulations only: the oracle baseline uses it).

    Validated on construction: shapes agree, n >= 1 and T >= 1, states finite, actions in [0, n_actions), observed
    0/1, rewards finite where observed, at least one reward observed at every step.
    """

    states: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    observed: np.ndarray
    n_actions: int = 2
    full_rewards: np.ndarray | None = None

    def __post_init__(self) -> None:
        s = real_array(self.states, "states", ndim=(2, 3), allow_empty=True)
        if s.ndim == 2:  # one-dimensional states given as (n, T+1)
            s = s[:, :, None]
        if s.ndim != 3:
            raise ValueError(f"states must have shape (n, T+1, d), got {s.shape}")
        n, t1, _ = s.shape
        if n < 1:
            raise ValueError("states is empty: need at least one trajectory")
        if t1 < 2:
            raise ValueError(f"states must hold T+1 >= 2 time points (S_1..S_{{T+1}}), got {t1}")
        T = t1 - 1
        if not isinstance(self.n_actions, (int, np.integer)) or isinstance(self.n_actions, bool) or self.n_actions < 1:
            raise ValueError(f"n_actions must be a positive int, got {self.n_actions!r}")
        a = _as_int_array(self.actions, "actions", 2)
        if a.shape != (n, T):
            raise ValueError(f"actions must have shape (n, T) = {(n, T)}, got {a.shape}")
        if np.any(a < 0) or np.any(a >= self.n_actions):
            raise ValueError(f"actions must lie in [0, n_actions) = [0, {self.n_actions})")
        o = np.asarray(self.observed)
        if o.shape != (n, T):
            raise ValueError(f"observed must have shape (n, T) = {(n, T)}, got {o.shape}")
        if not np.all((o == 0) | (o == 1)):
            raise ValueError("observed must hold only 0/1 (or booleans)")
        o = o.astype(bool)
        r = real_array(self.rewards, "rewards", allow_empty=True, finite=False)
        if r.shape != (n, T):
            raise ValueError(f"rewards must have shape (n, T) = {(n, T)}, got {r.shape}")
        if not np.all(np.isfinite(r[o])):
            raise ValueError("rewards must be finite wherever observed is 1")
        if np.any(o.sum(axis=0) == 0):
            raise ValueError(f"observed: no reward is observed at steps {np.flatnonzero(o.sum(axis=0) == 0).tolist()}")
        r = np.where(o, r, np.nan)
        full = None
        if self.full_rewards is not None:
            full = real_array(self.full_rewards, "full_rewards", allow_empty=True, finite=False)
            if full.shape != (n, T):
                raise ValueError(f"full_rewards must have shape (n, T) = {(n, T)}, got {full.shape}")
            if not np.all(np.isfinite(full)):
                raise ValueError("full_rewards must be finite")
            if not np.allclose(full[o], r[o]):
                raise ValueError("full_rewards disagree with rewards where observed is 1")
            full = full.copy()
            full.flags.writeable = False
        for arr in (s, a, o, r):
            arr.flags.writeable = False
        object.__setattr__(self, "states", s)
        object.__setattr__(self, "actions", a)
        object.__setattr__(self, "observed", o)
        object.__setattr__(self, "rewards", r)
        object.__setattr__(self, "full_rewards", full)
        object.__setattr__(self, "n_actions", int(self.n_actions))

    @property
    def n(self) -> int:
        """Number of trajectories."""
        return int(self.states.shape[0])

    @property
    def horizon(self) -> int:
        """T, the number of decision steps."""
        return int(self.actions.shape[1])

    @property
    def state_dim(self) -> int:
        """d, the dimension of S_t."""
        return int(self.states.shape[2])

    @property
    def eta_prev(self) -> np.ndarray:
        """η_{t-1} for t = 0..T-1, with η_{-1} := 1 (nothing is missing before the first step), shape (n, T)."""
        return np.concatenate([np.ones((self.n, 1), dtype=bool), self.observed[:, :-1]], axis=1)

    def take(self, idx: np.ndarray) -> Trajectories:
        """The trajectories at the integer indices ``idx`` (repeats allowed: bootstrap resamples)."""
        idx = np.asarray(idx, dtype=np.int64)
        full = None if self.full_rewards is None else self.full_rewards[idx]
        return Trajectories(self.states[idx], self.actions[idx], self.rewards[idx], self.observed[idx],
                            n_actions=self.n_actions, full_rewards=full)

    @property
    def missing_rate(self) -> float:
        """Share of rewards that are missing."""
        return float(1.0 - self.observed.mean())


@runtime_checkable
class TargetPolicy(Protocol):
    """A target policy π_t(a | s, η_{t-1}) of [P36] (it may depend on the last missingness indicator).

    ``policy(t, states, eta_prev)`` with ``t`` the 0-based step, ``states`` of shape (n, d) and ``eta_prev`` (n,) in
    {0, 1} returns an (n, n_actions) array of probabilities whose rows sum to 1.
    """

    def __call__(self, t: int, states: np.ndarray, eta_prev: np.ndarray) -> np.ndarray: ...


def policy_probs(policy: TargetPolicy, t: int, states: np.ndarray, eta_prev: np.ndarray, n_actions: int) -> np.ndarray:
    """Call ``policy`` and validate its output: shape (n, n_actions), finite, in [0, 1], rows summing to 1.

    These are the target-policy probabilities π_t(a | s, η_{t-1}) of [P36] that the FQE backups average Q over."""
    if not callable(policy):
        raise TypeError(f"target_policy must be callable (t, states, eta_prev) -> probabilities, got {type(policy).__name__}")
    p = np.asarray(policy(t, states, eta_prev), dtype=float)
    n = states.shape[0]
    if p.shape != (n, n_actions):
        raise ValueError(f"target_policy returned shape {p.shape} at step {t}, expected (n, n_actions) = {(n, n_actions)}")
    if not np.all(np.isfinite(p)) or np.any(p < -1e-12) or np.any(p > 1 + 1e-12):
        raise ValueError(f"target_policy returned probabilities outside [0, 1] at step {t}")
    if not np.allclose(p.sum(axis=1), 1.0, atol=1e-8):
        raise ValueError(f"target_policy probabilities do not sum to 1 at step {t}")
    return np.clip(p, 0.0, 1.0)


def _expit(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass(frozen=True)
class LogisticPolicy:
    """A two-action target policy π(a=1 | s, η_{t-1}) = expit(c₀ + cᵀs + c_m (1 − η_{t-1})) ([P36] abstract: policies
    may depend on past missingness indicators; ``missing_coef`` = c_m = 0 gives a missingness-blind policy).

    Args: ``coef`` (c, one entry per state dimension), ``intercept`` (c₀), ``missing_coef`` (c_m).
    """

    coef: tuple[float, ...]
    intercept: float = 0.0
    missing_coef: float = 0.0

    def __post_init__(self) -> None:
        c = real_array(self.coef, "coef", ndim=1)
        object.__setattr__(self, "coef", tuple(float(v) for v in c))
        object.__setattr__(self, "intercept", real(self.intercept, "intercept"))
        object.__setattr__(self, "missing_coef", real(self.missing_coef, "missing_coef"))

    def __call__(self, t: int, states: np.ndarray, eta_prev: np.ndarray) -> np.ndarray:
        s = np.asarray(states, dtype=float)
        if s.ndim != 2:
            raise ValueError(f"states must have shape (n, d), got {s.shape}")
        if s.shape[1] != len(self.coef):
            raise ValueError(f"LogisticPolicy coef has {len(self.coef)} entries but the states have dimension "
                             f"{s.shape[1]} (shape {s.shape}): coef needs one entry per state dimension")
        h = np.asarray(eta_prev, dtype=float).reshape(-1)
        logit = self.intercept + s @ np.asarray(self.coef) + self.missing_coef * (1.0 - h)
        p1 = _expit(logit)
        return np.stack([1.0 - p1, p1], axis=1)

    def blind(self) -> LogisticPolicy:
        """The same policy with the missingness term removed (it acts as if every past reward were recorded)."""
        return LogisticPolicy(self.coef, self.intercept, 0.0)


def basis(spec: FeatureSpec, x: np.ndarray, *, constant: bool = True) -> np.ndarray:
    """The linear-sieve basis of [P36] (the linear special case of its min-max function classes, Eq. B2): all
    monomials of ``x`` up to the degree named by ``spec`` (with the constant term when ``constant``), or ``spec(x)``
    when it is a callable (a column of ones is prepended when ``constant`` and no column of it is identically 1).

    Args: ``spec`` "linear" | "quadratic" | "cubic" | 1..3 | callable (n, d) -> (n, k); ``x`` of shape (n, d).
    """
    x = real_array(x, "x", ndim=(1, 2))
    if x.ndim == 1:
        x = x[:, None]
    if callable(spec):
        f = np.asarray(spec(x), dtype=float)
        if f.ndim != 2 or f.shape[0] != x.shape[0] or f.shape[1] < 1 or not np.all(np.isfinite(f)):
            raise ValueError(f"features callable must return a finite (n, k) array with n = {x.shape[0]}, got {f.shape}")
        if constant and not np.any(np.all(f == 1.0, axis=0)):
            f = np.concatenate([np.ones((x.shape[0], 1)), f], axis=1)
        return f
    check_features(spec, "spec")
    degree = _degree(spec)
    cols = [np.ones(x.shape[0])] if constant else []
    for k in range(1, degree + 1):
        for idx in combinations_with_replacement(range(x.shape[1]), k):
            cols.append(np.prod(x[:, list(idx)], axis=1))
    return np.stack(cols, axis=1)


def _degree(spec: object) -> int:
    if isinstance(spec, str):
        if spec not in _DEGREES:
            raise ValueError(f"features must be one of {sorted(_DEGREES)}, a degree 1..3 or a callable, got {spec!r}")
        return _DEGREES[spec]
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool) and 1 <= spec <= 3:
        return int(spec)
    raise ValueError(f"features must be one of {sorted(_DEGREES)}, a degree 1..3 or a callable, got {spec!r}")


def check_features(spec: object, name: str) -> None:
    """Raise a ValueError naming ``name`` when ``spec`` is not a valid :data:`FeatureSpec`."""
    if callable(spec):
        return
    try:
        _degree(spec)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
