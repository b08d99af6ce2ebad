"""A finite-horizon MDP with rewards missing not at random and the next state as a shadow variable ([P36] simulations;
the design is reconstructed in the notes, not the paper's), with the policy value computed by Monte Carlo."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common.seeding import rng as _rng
from icml26.common.validation import int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.ope_mnar._data import TargetPolicy, Trajectories, _expit, policy_probs

__all__ = ["MNARSimulator"]


def _generator(seed: object) -> np.random.Generator:
    """An explicit seed (an int >= 0) or a numpy Generator, else an error naming ``seed``."""
    return seed if isinstance(seed, np.random.Generator) else _rng(check_seed(seed))


@dataclass(frozen=True, kw_only=True)
class MNARSimulator:
    """S_t ∈ ℝ², A_t ∈ {0, 1}, horizon T; the generative model (the shadow-variable structure of [P36], paper card):

    - S_1 ~ N(0, I₂); behaviour policy π_b(A=1 | s) = expit(s₁);
    - R_t = s₁ + a·s₂ + σ_R ε_t  (ε ~ N(0, 1));
    - missingness (MNAR, reward-dependent propensity): P(η_t = 1 | S_t, A_t, R_t) = expit(α − β R_t), so large
      rewards go unrecorded;
    - S_{t+1} = ρ S_t + κ a·1 + γ R_t e₁ + σ_S ν_t: the next state depends on R_t (shadow relevance, γ ≠ 0) and
      not on η_t (shadow exclusion: S_{t+1} ⊥ η_t | S_t, A_t, R_t).

    Args (keyword-only): ``horizon`` (T), ``shadow_strength`` (γ; 0 makes the shadow variable irrelevant: the
    identification ablation), ``reward_noise`` (σ_R), ``missing_intercept`` (α), ``missing_slope`` (β; 0 gives MCAR),
    ``state_decay`` (ρ), ``action_shift`` (κ), ``state_noise`` (σ_S).
    """

    horizon: int = 3
    shadow_strength: float = 0.8
    reward_noise: float = 1.0
    missing_intercept: float = 1.0
    missing_slope: float = 1.5
    state_decay: float = 0.5
    action_shift: float = 0.3
    state_noise: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "horizon", positive_int(self.horizon, "horizon"))
        for name in ("shadow_strength", "missing_intercept", "missing_slope", "state_decay", "action_shift"):
            object.__setattr__(self, name, real(getattr(self, name), name))
        for name in ("reward_noise", "state_noise"):
            object.__setattr__(self, name, real(getattr(self, name), name, lo=0.0))

    # ---- one transition -------------------------------------------------------------------------------------------
    def _reward(self, s: np.ndarray, a: np.ndarray, g: np.random.Generator) -> np.ndarray:
        return s[:, 0] + a * s[:, 1] + self.reward_noise * g.standard_normal(s.shape[0])

    def _observe(self, r: np.ndarray, g: np.random.Generator) -> np.ndarray:
        return g.random(r.shape[0]) < _expit(self.missing_intercept - self.missing_slope * r)

    def _next(self, s: np.ndarray, a: np.ndarray, r: np.ndarray, g: np.random.Generator) -> np.ndarray:
        nxt = self.state_decay * s + self.action_shift * a[:, None] + self.state_noise * g.standard_normal(s.shape)
        nxt[:, 0] += self.shadow_strength * r
        return nxt

    def observe_prob(self, rewards: np.ndarray) -> np.ndarray:
        """P(η = 1 | R = r) of the MNAR mechanism (the reward-dependent propensity model of [P36], logistic in the reward)."""
        return _expit(self.missing_intercept - self.missing_slope * np.asarray(rewards, dtype=float))

    def behaviour_probs(self, states: np.ndarray) -> np.ndarray:
        """π_b(· | s) as an (n, 2) array."""
        p1 = _expit(np.asarray(states, dtype=float)[:, 0])
        return np.stack([1.0 - p1, p1], axis=1)

    # ---- logged data ----------------------------------------------------------------------------------------------
    def sample(self, n: int, *, seed: int | np.random.Generator) -> Trajectories:
        """Draw ``n`` trajectories under the behaviour policy; ``full_rewards`` holds R_t everywhere (for the oracle).

        ``seed``: an int >= 0 or a numpy Generator (explicit: ``None`` is refused)."""
        n = positive_int(n, "n")
        g = _generator(seed)
        T = int(self.horizon)
        states = np.empty((n, T + 1, 2))
        actions = np.empty((n, T), dtype=np.int64)
        rewards = np.empty((n, T))
        observed = np.empty((n, T), dtype=bool)
        s = g.standard_normal((n, 2))
        for t in range(T):
            states[:, t] = s
            a = (g.random(n) < self.behaviour_probs(s)[:, 1]).astype(np.int64)
            r = self._reward(s, a, g)
            observed[:, t] = self._observe(r, g)
            actions[:, t], rewards[:, t] = a, r
            s = self._next(s, a, r, g)
        states[:, T] = s
        if np.any(observed.sum(axis=0) == 0):  # astronomically unlikely except for tiny n: record one reward
            observed[0, observed.sum(axis=0) == 0] = True
        return Trajectories(states, actions, np.where(observed, rewards, np.nan), observed, n_actions=2,
                            full_rewards=rewards)

    # ---- the truth ------------------------------------------------------------------------------------------------
    def true_value(self, policy: TargetPolicy, *, n_mc: int = 1_000_000, seed: int | np.random.Generator,
                   chunk: int = 250_000) -> tuple[float, float]:
        """V(π) = E^π[Σ_t R_t] (the estimand of [P36]) by Monte Carlo: ``n_mc`` rollouts of ``policy`` in
        this environment, missingness included (π may react to η_{t-1}), simulated ``chunk`` rollouts at a time (a
        positive int that bounds memory; the draws, so the Monte Carlo value, depend on it). Returns (value, Monte
        Carlo standard error).
        """
        n_mc = int_at_least(n_mc, "n_mc", 2)
        chunk = positive_int(chunk, "chunk")
        g = _generator(seed)
        total, total_sq, done = 0.0, 0.0, 0
        while done < n_mc:
            m = min(chunk, n_mc - done)
            ret = self._rollout_returns(policy, m, g)
            total, total_sq, done = total + ret.sum(), total_sq + (ret**2).sum(), done + m
        mean = total / n_mc
        var = max(total_sq / n_mc - mean**2, 0.0)
        return float(mean), float(np.sqrt(var / n_mc))

    def _rollout_returns(self, policy: TargetPolicy, m: int, g: np.random.Generator) -> np.ndarray:
        s = g.standard_normal((m, 2))
        h = np.ones(m, dtype=bool)
        ret = np.zeros(m)
        for t in range(int(self.horizon)):
            p = policy_probs(policy, t, s, h, 2)
            a = (g.random(m) < p[:, 1]).astype(np.int64)
            r = self._reward(s, a, g)
            h = self._observe(r, g)
            ret += r
            s = self._next(s, a, r, g)
        return ret
