"""Distributional offline IRL ([P18], Alg. 1 as we reconstruct it) as a worst-case game between reward and policy.

Symbols: R_phi(s, a) = N(mu_k, sigma_k^2), k = groups[s, a] (phi = (mu, sigma) in the box Phi); Z^E_c, Z^pi_c the returns
of expert and learner from start state c; q their quantile functions on the grid tau_i = (2i - 1)/(2N); g the
distortion of rho_g and w_i = g(i/N) - g((i-1)/N) its quantile weights.

  policy step (exact best response): for each start c and each deterministic policy j that deviates from the expert,
      D_g(c, j; phi) = sum_i w_i (q_{c,j}(tau_i) - q_{c,E}(tau_i)) = rho_g(Z^{pi_j}_c) - rho_g(Z^E_c)      (grid form);
      the policy player takes the maximiser over (c, j): the DRM-optimal deviation in the worst context.
  reward step: phi <- Proj_Phi(phi - eta_t g_t / ||g_t||), g_t a subgradient of f(phi) = max_{c,j} D_g(c, j; phi),
      eta_t = lr R / sqrt(t + 1); the output reward is the weighted average of the iterates (_game.py).
  risk-aware policy: the rho_g-optimal deterministic policy under the learned reward, from every start (exact).

Return laws are exact Gaussian mixtures over paths (known dynamics, tabular), so there is no sampling noise; the only
data are the demonstrated state/action paths. The expert is compared with *deviations* only (deterministic policies
that differ from the demonstrated majority action at a decision state the demonstrations visit), which is what keeps
phi = 0 (every policy tied) from being a minimiser: f(phi) < 0 iff phi makes the expert strictly rho_g-better than
every deviation, and the box fixes the otherwise free reward scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from icml26.common.validation import int_at_least, real, real_array
from icml26.papers.dist_irl._dominance import fsd_violation
from icml26.papers.dist_irl._game import minimax_extragradient, minimax_subgradient
from icml26.papers.dist_irl._laws import ReturnLaw, enumerate_policies, expert_law, law_quantiles, policy_law
from icml26.papers.dist_irl._mdp import Demonstrations, GaussianRewards, TabularMDP
from icml26.papers.dist_irl._risk import CVaR, DistortionRiskMeasure, quantile_grid

__all__ = ["DistributionalIRL", "softmax"]


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the last axis (at least 1-D, with at least one entry along it, else ValueError).

    A generic helper for softmax policies (the notes' policy step of [P18]); the tabular game here does not call it.
    """
    logits = real_array(logits, "logits", allow_empty=True)
    if logits.ndim == 0 or logits.shape[-1] == 0:
        raise ValueError(f"logits must have at least one entry along the last axis, got shape {logits.shape}")
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _pos(x: object, name: str, *, integer: bool = False, allow_zero: bool = False) -> None:
    """``x`` a positive number (an int with ``integer``; zero allowed with ``allow_zero``), else an error naming it."""
    if integer:
        int_at_least(x, name, 0 if allow_zero else 1)
    else:
        real(x, name, lo=0.0, lo_open=not allow_zero)


@dataclass
class _Context:
    start: int
    weight: float
    dec: np.ndarray  # decision states reachable from start
    acts: np.ndarray  # (J, d) all deterministic restrictions
    laws: list[ReturnLaw]  # law of each restriction
    deviating: np.ndarray  # indices j that deviate from the expert
    expert: ReturnLaw


class DistributionalIRL:
    """Distributional offline IRL: worst-case DRM-weighted dominance game over reward distributions ([P18], Alg. 1).

    Args (keyword-only hyper-parameters):
        risk_measure: the DRM rho_g of the policy and of the quantile weights w_i (default CVaR_0.2).
        n_quantiles: N, the size of the quantile grid tau_i.
        n_iter: T, the number of reward steps (each after an exact policy best response).
        lr_reward: the reward step scale (fraction of the box diameter R moved at t = 0; eta_t = lr R / sqrt(t+1)).
        mean_bound: the box |mu_k| <= mean_bound (IRL rewards have no intrinsic scale; the box fixes it).
        std_bounds: (sigma_min, sigma_max) for sigma_k; sigma_min > 0 keeps every return law non-degenerate.
        init_std: sigma of the initial reward phi_0 = (0, init_std).
        max_policies: cap on the enumerated deterministic policies per start state.
        known_rewards: {group: (mean, std)} for groups whose reward law is known and not learned (e.g. absorbing
            start/goal cells that pay nothing, the usual terminal-state convention); the box pins them.
        solver: "extragradient" (mirror-prox on the mixed game, default) or "subgradient" (exact best response,
            projected subgradient with averaging); both in _game.py.
        store_path: keep the running-average reward of every iteration in ``reward_path_``.

    Learned attributes: ``reward_mean_``, ``reward_std_`` (per reward group, the averaged iterate), ``last_reward_``,
    ``policy_`` (S, A) the rho_g-optimal policy under the learned reward, ``history_`` (per-iteration objective
    f(phi_t), DRM-weighted FSD violation of the best response), ``reward_path_`` (optional (T+1, 2K)), ``n_iter_``.
    """

    def __init__(
        self,
        *,
        risk_measure: DistortionRiskMeasure | None = None,
        n_quantiles: int = 32,
        n_iter: int = 500,
        lr_reward: float = 0.05,
        mean_bound: float = 1.0,
        std_bounds: tuple[float, float] = (0.01, 3.0),
        init_std: float = 0.5,
        max_policies: int = 4096,
        known_rewards: Mapping[int, tuple[float, float]] | None = None,
        solver: str = "extragradient",
        store_path: bool = False,
    ) -> None:
        self.risk_measure = CVaR(0.2) if risk_measure is None else risk_measure
        self.n_quantiles = n_quantiles
        self.n_iter = n_iter
        self.lr_reward = lr_reward
        self.mean_bound = mean_bound
        self.std_bounds = std_bounds
        self.init_std = init_std
        self.max_policies = max_policies
        self.known_rewards = known_rewards
        self.solver = solver
        self.store_path = store_path
        self._validate()  # bad hyper-parameters fail here, not only in fit (fit checks again: they may be reassigned)

    def _validate(self) -> None:
        if not isinstance(self.risk_measure, DistortionRiskMeasure):
            raise TypeError(f"risk_measure must be a DistortionRiskMeasure, got {type(self.risk_measure).__name__}")
        _pos(self.n_quantiles, "n_quantiles", integer=True)
        _pos(self.n_iter, "n_iter", integer=True, allow_zero=True)
        _pos(self.max_policies, "max_policies", integer=True)
        for name in ("lr_reward", "mean_bound", "init_std"):
            _pos(getattr(self, name), name)
        if self.solver not in ("extragradient", "subgradient"):
            raise ValueError(f"solver must be 'extragradient' or 'subgradient', got {self.solver!r}")
        if self.known_rewards is not None and not isinstance(self.known_rewards, Mapping):
            raise TypeError(f"known_rewards must be a mapping group -> (mean, std), got {type(self.known_rewards).__name__}")
        for k, val in (self.known_rewards or {}).items():
            if isinstance(val, (str, bytes)) or not isinstance(val, (tuple, list, np.ndarray)) or len(val) != 2:
                raise ValueError(f"known_rewards[{k!r}] must be a (mean, std) pair, got {val!r}")
            for v in val:
                if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                    raise TypeError(f"known_rewards[{k!r}] must hold numbers, got {val!r}")
        sb = self.std_bounds
        if isinstance(sb, (str, bytes)) or not isinstance(sb, (tuple, list, np.ndarray)):
            raise TypeError(f"std_bounds must be a (min, max) pair of numbers, got {type(sb).__name__}")
        if len(sb) != 2:
            raise ValueError(f"std_bounds must be a (min, max) pair, got {len(sb)} entries: {sb!r}")
        for v in sb:
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise TypeError(f"std_bounds entries must be numbers, got {type(v).__name__}")
        lo, hi = (float(v) for v in sb)
        if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo <= self.init_std <= hi):
            raise ValueError(f"std_bounds must satisfy 0 < min <= init_std <= max, got {self.std_bounds} and {self.init_std}")

    # -- the game ------------------------------------------------------------------------------------------------
    def _contexts(self, demos: Demonstrations, mdp: TabularMDP) -> list[_Context]:
        starts, counts = np.unique(demos.states[:, 0], return_counts=True)
        out = []
        for s0, n in zip(starts, counts):
            rows = np.flatnonzero(demos.states[:, 0] == s0)
            dec, acts = enumerate_policies(mdp, int(s0), max_policies=self.max_policies)
            # the expert's majority action at each decision state its demonstrations visit
            cnt = np.zeros((dec.size, mdp.n_actions))
            st, ac = demos.states[rows].ravel(), demos.actions[rows].ravel()
            for i, d in enumerate(dec):
                cnt[i] = np.bincount(ac[st == d], minlength=mdp.n_actions)
            visited = cnt.sum(axis=1) > 0
            major = cnt.argmax(axis=1)
            deviating = np.flatnonzero(np.any((acts != major[None, :]) & visited[None, :], axis=1))
            laws = []
            for j in range(acts.shape[0]):
                a = np.zeros(mdp.n_states, dtype=np.int64)
                a[dec] = acts[j]
                laws.append(policy_law(mdp, a, int(s0)))
            out.append(_Context(int(s0), n / len(demos), dec, acts, laws, deviating, expert_law(mdp, demos, rows)))
        return out

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x[: self._K], x[self._K :]

    def _oracle(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values D_g(c, j; phi) and gradients of every (start, deviating policy) pair: the policy player's options."""
        mu, sig = self._split(x)
        taus, w = self._taus, self._w
        vals, grads = [], []
        for ctx in self._ctx:
            qe, dme, dse = law_quantiles(ctx.expert, mu, sig, taus)
            for j in ctx.deviating:
                q, dm, ds = law_quantiles(ctx.laws[j], mu, sig, taus)
                vals.append(float(w @ (q - qe)))
                grads.append(np.concatenate([w @ (dm - dme), w @ (ds - dse)]))
        return np.array(vals), np.array(grads)

    def objective(self, mean: np.ndarray, std: np.ndarray) -> float:
        """f(phi) = max over starts and deviating policies of the DRM gap rho_g(deviation) - rho_g(expert)."""
        self._check_fitted()
        return float(self._oracle(np.concatenate([np.asarray(mean, float), np.asarray(std, float)]))[0].max())

    def fit(self, demonstrations: Demonstrations, mdp: TabularMDP) -> DistributionalIRL:
        """Learn reward distributions and a risk-aware policy from expert ``demonstrations`` (state/action only).

        ``mdp`` supplies the dynamics (transitions, horizon, discount, reward groups); its rewards are unknown.
        Returns ``self``.
        """
        if not isinstance(demonstrations, Demonstrations):
            raise TypeError(f"demonstrations must be a Demonstrations, got {type(demonstrations).__name__}")
        if not isinstance(mdp, TabularMDP):
            raise TypeError(f"mdp must be a TabularMDP, got {type(mdp).__name__}")
        self._validate()
        demonstrations.check_against(mdp)
        self._K = K = mdp.n_groups
        self._mdp = mdp
        self._taus = quantile_grid(self.n_quantiles)
        self._w = self.risk_measure.weights(self.n_quantiles)
        self._ctx = self._contexts(demonstrations, mdp)
        if not any(c.deviating.size for c in self._ctx):
            raise ValueError("the demonstrations visit no decision state: no deviation exists to identify a reward")
        lo, hi = self.std_bounds
        lower = np.concatenate([np.full(K, -float(self.mean_bound)), np.full(K, float(lo))])
        upper = np.concatenate([np.full(K, float(self.mean_bound)), np.full(K, float(hi))])
        x0 = np.concatenate([np.zeros(K), np.full(K, float(self.init_std))])
        for k, val in (self.known_rewards or {}).items():
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < K:
                raise ValueError(f"known_rewards keys must be reward groups in [0, {K}), got {k!r}")
            m, sd = (float(v) for v in val)
            if not (np.isfinite(m) and np.isfinite(sd) and sd >= 0):
                raise ValueError(f"known_rewards[{k}] must be a finite (mean, std >= 0), got {val!r}")
            lower[k] = upper[k] = x0[k] = m
            lower[K + k] = upper[K + k] = x0[K + k] = sd
        self.lower_, self.upper_ = lower, upper
        solve = minimax_extragradient if self.solver == "extragradient" else minimax_subgradient
        res = solve(self._oracle, x0, lower, upper, n_iter=int(self.n_iter), lr=float(self.lr_reward), store_path=True)
        self.reward_mean_, self.reward_std_ = (v.copy() for v in self._split(res.x))
        self.last_reward_ = GaussianRewards(*self._split(res.x_last))
        self.policy_ = self.risk_optimal_policy(self.reward_mean_, self.reward_std_)
        viol = []
        path = res.avg_path if res.avg_path is not None else np.empty((0, 2 * K))
        for x in path[1:: max(1, len(path) // 50)]:
            viol.append(self._weighted_violation(*self._split(x)))
        self.history_ = {"objective": res.values, "weighted_violation": np.asarray(viol)}
        self.reward_path_ = path if self.store_path else None
        self.n_iter_ = int(self.n_iter)
        return self

    # -- the risk-aware policy -----------------------------------------------------------------------------------
    def _risks(self, mu: np.ndarray, sig: np.ndarray) -> list[np.ndarray]:
        out = []
        for ctx in self._ctx:
            out.append(np.array([self._w @ law_quantiles(law, mu, sig, self._taus)[0] for law in ctx.laws]))
        return out

    def risk_optimal_policy(self, mean: np.ndarray, std: np.ndarray, *, tol: float = 1e-9) -> np.ndarray:
        """The rho_g-optimal deterministic policy from every demonstrated start under rewards N(mean, std^2), (S, A).

        Exact (enumeration). Ties within ``tol`` are mixed uniformly; non-decision states get the uniform row (all
        actions are equivalent there). Where the decision states of two starts overlap, the more frequent start wins.
        """
        self._check_fitted(policy=False)
        mu, sig = np.asarray(mean, float), np.asarray(std, float)
        pi = np.full((self._mdp.n_states, self._mdp.n_actions), 1.0 / self._mdp.n_actions)
        order = np.argsort([-c.weight for c in self._ctx], kind="stable")
        risks = self._risks(mu, sig)
        for i in order[::-1]:  # most frequent start last, so it overwrites shared states
            ctx, r = self._ctx[i], risks[i]
            best = np.flatnonzero(r >= r.max() - tol)
            for col, s in enumerate(ctx.dec):
                pi[s] = np.bincount(ctx.acts[best, col], minlength=self._mdp.n_actions) / best.size
        return pi

    def _weighted_violation(self, mu: np.ndarray, sig: np.ndarray) -> float:
        """Start-weighted DRM-weighted FSD violation sum_i w_i (q_pi - q_E)_+ of the rho_g-best deviation."""
        total = 0.0
        for ctx, r in zip(self._ctx, self._risks(mu, sig)):
            if ctx.deviating.size == 0:
                continue
            j = ctx.deviating[np.argmax(r[ctx.deviating])]
            q = law_quantiles(ctx.laws[j], mu, sig, self._taus)[0]
            qe = law_quantiles(ctx.expert, mu, sig, self._taus)[0]
            total += ctx.weight * fsd_violation(q, qe, risk_measure=self.risk_measure)
        return total

    def reward_distribution(self) -> GaussianRewards:
        """The learned reward distributions N(reward_mean_[k], reward_std_[k]^2) per group."""
        self._check_fitted()
        return GaussianRewards(self.reward_mean_.copy(), self.reward_std_.copy())

    def predict(self, states: np.ndarray | list[int]) -> np.ndarray:
        """Greedy action of the learned risk-aware policy in each of ``states``."""
        self._check_fitted()
        s = np.asarray(states)
        if s.size and (not np.issubdtype(s.dtype, np.integer) or s.min() < 0 or s.max() >= self.policy_.shape[0]):
            raise ValueError(f"states must be ints in [0, {self.policy_.shape[0]})")
        return self.policy_[s].argmax(axis=-1)

    def _check_fitted(self, *, policy: bool = True) -> None:
        if not hasattr(self, "_ctx") or (policy and not hasattr(self, "policy_")):
            raise RuntimeError("this DistributionalIRL is not fitted yet; call fit(demonstrations, mdp) first")
