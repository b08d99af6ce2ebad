"""The synthetic "two routes" benchmark used by the claim checks (our construction; [P18]'s exact tasks are not public).

Each context c starts in its own state and offers two routes of the same length k_c to one absorbing goal: a safe
route whose cells pay N(mu_safe, sigma_safe^2) per step and a risky route whose cells pay N(mu_risky, sigma_risky^2),
with mu_risky > mu_safe and sigma_risky >> sigma_safe. Rewards are tied by cell type (groups: 0 = neutral start/goal,
1 = safe cell, 2 = risky cell). Over k cells the mean gap grows like k and the CVaR penalty like sqrt(k), so a
CVaR-averse expert takes the safe route in short contexts and the risky one in long contexts, while every
risk-neutral agent takes the risky route everywhere. No mean reward over cell types explains both choices: the
behaviour needs a reward *distribution*. What the two choices identify is limited, though. With the start/goal cells
known to pay 0 they fix the ordering of the laws (risky cells higher-mean and wider than safe ones) but not the size of
the spread: any sigma_risky > sigma_safe with a mean gap between c (sigma_risky - sigma_safe) / sqrt(12) and
c (sigma_risky - sigma_safe) (c = CVaR_0.2's Gaussian factor) explains them. With every group free, a wide neutral
reward explains them with the ordering inverted as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common.validation import real, real_array
from icml26.papers.dist_irl._dominance import gaussian_mixture_quantiles
from icml26.papers.dist_irl._mdp import Demonstrations, GaussianRewards, TabularMDP, exact_returns, rollout
from icml26.papers.dist_irl._risk import DistortionRiskMeasure, quantile_grid

__all__ = ["TwoRouteTask", "make_two_route_task"]

NEUTRAL, SAFE, RISKY = 0, 1, 2


@dataclass(frozen=True)
class TwoRouteTask:
    """A two-route MDP with its true reward distributions and per-context bookkeeping.

    Our benchmark for [P18]'s claims (the notes' risky-vs-safe route task), not one of the paper's own tasks.

    Attributes:
        mdp: the dynamics (2 actions; action 1 at a start state takes the risky route).
        true_rewards: the reward distributions per group (neutral, safe, risky).
        starts: the start state of each context.
        lengths: the route length k_c of each context.
    """

    mdp: TabularMDP
    true_rewards: GaussianRewards
    starts: tuple[int, ...]
    lengths: tuple[int, ...]

    def route_policy(self, risky: tuple[bool, ...] | np.ndarray) -> np.ndarray:
        """The stationary policy that takes the risky route in context c iff ``risky[c]`` (any action elsewhere)."""
        r = np.asarray(risky, dtype=bool)
        if r.shape != (len(self.starts),):
            raise ValueError(f"risky must have one entry per context ({len(self.starts)}), got shape {r.shape}")
        pi = np.full((self.mdp.n_states, 2), 0.5)
        for s, take in zip(self.starts, r):
            pi[s] = (0.0, 1.0) if take else (1.0, 0.0)
        return pi

    def risk_optimal_policy(self, risk_measure: DistortionRiskMeasure) -> np.ndarray:
        """The deterministic policy maximising rho_g of the true return in every context (exact, by enumeration)."""
        choice = []
        for c, s in enumerate(self.starts):
            vals = []
            for take in (False, True):
                flags = np.zeros(len(self.starts), dtype=bool)
                flags[c] = take
                vals.append(self.true_risk(self.route_policy(flags), risk_measure, context=c))
            choice.append(vals[1] > vals[0])
        return self.route_policy(tuple(choice))

    def true_quantiles(self, policy: np.ndarray, *, context: int, n_quantiles: int = 256) -> np.ndarray:
        """Exact quantiles of the true return of ``policy`` from context ``context``'s start state."""
        w, m, s = exact_returns(self.mdp, policy, self.true_rewards, start=self.starts[context])
        return gaussian_mixture_quantiles(w, m, s, quantile_grid(n_quantiles))

    def true_risk(self, policy: np.ndarray, risk_measure: DistortionRiskMeasure, *, context: int) -> float:
        """rho_g of the exact true return distribution of ``policy`` in context ``context``."""
        return risk_measure.from_quantiles(self.true_quantiles(policy, context=context, n_quantiles=1024))

    def p_risky(self, policy: np.ndarray) -> np.ndarray:
        """Probability of the risky route in each context (at the first step; per-step policies use step 0)."""
        pi = np.asarray(policy, dtype=float)
        p0 = pi[0] if pi.ndim == 3 else pi
        return np.array([p0[s, 1] for s in self.starts])

    def demonstrations(self, policy: np.ndarray, n: int, *, seed: int | np.random.Generator) -> Demonstrations:
        """``n`` trajectories of ``policy`` from the MDP's start distribution (rewards are not recorded)."""
        return rollout(self.mdp, policy, n, seed=seed)


def make_two_route_task(
    lengths: tuple[int, ...] = (1, 12),
    *,
    safe: tuple[float, float] = (0.0, 0.1),
    risky: tuple[float, float] = (1.0, 2.0),
    gamma: float = 1.0,
) -> TwoRouteTask:
    """Build the two-route benchmark: one context per entry of ``lengths``, uniform start distribution.

    Our risky-vs-safe task for [P18]'s claims (the notes' reproduction design); the paper's tasks are not public.

    Args:
        lengths: route length k_c of each context (the horizon is max(k_c) + 2).
        safe: (mean, std) of a safe cell's reward.
        risky: (mean, std) of a risky cell's reward.
        gamma: discount.
    """
    ks = real_array(lengths, "lengths", ndim=1)
    if np.any(ks < 1) or np.any(ks != np.round(ks)):
        raise ValueError(f"lengths must be a non-empty tuple of positive ints, got {lengths!r}")
    lengths = tuple(int(k) for k in ks)
    safe_law, risky_law = (real_array(v, name, shape=(2,)) for v, name in ((safe, "safe"), (risky, "risky")))
    if safe_law[1] < 0 or risky_law[1] < 0:
        raise ValueError(f"safe and risky are (mean, std) pairs with std >= 0, got {safe!r} and {risky!r}")
    gamma = real(gamma, "gamma", lo=0.0, hi=1.0, lo_open=True)
    n_ctx = len(lengths)
    starts = list(range(n_ctx))
    n_states = n_ctx + 2 * sum(lengths) + 1
    goal = n_states - 1
    P = np.zeros((n_states, 2, n_states))
    groups = np.full((n_states, 2), NEUTRAL, dtype=np.int64)
    nxt = n_ctx
    for c, k in enumerate(lengths):
        for a, kind in ((0, SAFE), (1, RISKY)):
            cells = list(range(nxt, nxt + k))
            nxt += k
            P[starts[c], a, cells[0]] = 1.0
            for i, cell in enumerate(cells):
                P[cell, :, cells[i + 1] if i + 1 < k else goal] = 1.0
                groups[cell, :] = kind
    P[goal, :, goal] = 1.0
    initial = np.zeros(n_states)
    initial[starts] = 1.0 / n_ctx
    mdp = TabularMDP(P, initial, horizon=max(lengths) + 2, gamma=gamma, groups=groups)
    rewards = GaussianRewards(np.array([0.0, safe_law[0], risky_law[0]]), np.array([0.0, safe_law[1], risky_law[1]]))
    return TwoRouteTask(mdp, rewards, tuple(starts), tuple(int(k) for k in lengths))
