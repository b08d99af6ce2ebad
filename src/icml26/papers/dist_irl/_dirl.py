"""Distributional offline IRL ([P18], Alg. 1 as we reconstruct it): alternate a reward-distribution step that lowers
the DRM-weighted FSD violation of the learner against the expert and a policy step that raises the learner's DRM.

Symbols: R_phi(s, a) = N(mu_k, sigma_k^2), k = groups[s, a] (phi = (mu, sigma)); Z^E, Z^pi the returns of expert and
learner; q_E, q_pi their quantile functions on the grid tau_i = (2i - 1)/(2N); g the distortion of the DRM rho_g and
w_i = g(i/N) - g((i-1)/N) its quantile weights.

  reward step:  phi <- Proj[phi - eta_r (grad_phi V_g(phi) + lambda (phi - phi_0))],
                V_g(phi) = sum_{s0} p(s0) sum_i w_i (q_pi(tau_i | s0) - q_E(tau_i | s0))_+        (DRM-weighted FSD)
  policy step:  theta <- theta + eta_pi (A_g - beta theta)   (entropy-regularised mirror ascent on rho_g(Z^pi | s0),
                A_g[s, a] = E[-psi(Z) | s, a] - E[-psi(Z) | s], -psi the likelihood-ratio weight of grad rho_g)

Quantiles come from sampled returns with reparameterised rewards (common random numbers within an iteration), so
q(tau_i) is piecewise linear in phi; rho_g's policy gradient is the likelihood-ratio form -E[psi(Z) grad log p].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common.seeding import rng as make_rng

from ._dominance import fsd_violation
from ._mdp import Demonstrations, GaussianRewards, TabularMDP, return_coefficients, rollout
from ._risk import CVaR, DistortionRiskMeasure, quantile_grid

__all__ = ["DistributionalIRL", "softmax"]


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the last axis."""
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _pos(x: object, name: str, *, integer: bool = False, allow_zero: bool = False) -> None:
    ok_type = isinstance(x, (int, np.integer)) if integer else isinstance(x, (int, float, np.integer, np.floating))
    if isinstance(x, bool) or not ok_type:
        raise TypeError(f"{name} must be {'an int' if integer else 'a number'}, got {type(x).__name__}")
    if not np.isfinite(x) or (x < 0 if allow_zero else x <= 0):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {x!r}")


@dataclass
class _Batch:
    idx: list[np.ndarray]  # per start state: indices of its trajectories
    a: np.ndarray
    b: np.ndarray
    demos: Demonstrations


class DistributionalIRL:
    """Distributional offline IRL by FSD-violation minimisation with a distortion risk measure ([P18], Alg. 1).

    Args (keyword-only hyper-parameters):
        risk_measure: the DRM rho_g of the risk-aware policy and of the weights of the FSD violation
            (default CVaR_0.2).
        n_quantiles: N, the size of the quantile grid tau_i.
        n_iter: T, the number of alternating reward/policy iterations.
        n_rollouts: M, learner trajectories per start state and iteration.
        lr_reward: eta_r, the reward step size.
        lr_policy: eta_pi, the policy (softmax logits) step size.
        entropy: beta, the policy-entropy bonus.
        reward_reg: lambda, the pull of phi towards phi_0 = (0, init_std).
        mean_bound: the box |mu_k| <= mean_bound (IRL rewards have no intrinsic scale; the box fixes it).
        std_bounds: (sigma_min, sigma_max) for sigma_k.
        init_std: sigma of the initial (and reference) reward distribution.
        store_path: keep the policy of every iteration in ``policy_path_``.
        random_state: seed of the sampled rollouts and reward noise.

    Learned attributes: ``reward_mean_``, ``reward_std_`` (per reward group, averaged over the second half of the
    iterations), ``last_reward_`` (the last iterate), ``policy_`` (S, A), ``logits_``,
    ``history_`` (per-iteration FSD violations and DRM gap under the learned reward), ``policy_path_`` (optional),
    ``n_iter_``.
    """

    def __init__(
        self,
        *,
        risk_measure: DistortionRiskMeasure | None = None,
        n_quantiles: int = 32,
        n_iter: int = 400,
        n_rollouts: int = 128,
        lr_reward: float = 0.01,
        lr_policy: float = 1.0,
        entropy: float = 0.05,
        reward_reg: float = 0.0,
        mean_bound: float = 1.0,
        std_bounds: tuple[float, float] = (0.01, 3.0),
        init_std: float = 0.5,
        loss: str = "gap",
        store_path: bool = False,
        random_state: int | None = 0,
    ) -> None:
        self.risk_measure = CVaR(0.2) if risk_measure is None else risk_measure
        self.n_quantiles = n_quantiles
        self.n_iter = n_iter
        self.n_rollouts = n_rollouts
        self.lr_reward = lr_reward
        self.lr_policy = lr_policy
        self.entropy = entropy
        self.reward_reg = reward_reg
        self.mean_bound = mean_bound
        self.std_bounds = std_bounds
        self.init_std = init_std
        self.loss = loss
        self.store_path = store_path
        self.random_state = random_state

    def _validate(self) -> None:
        if not isinstance(self.risk_measure, DistortionRiskMeasure):
            raise TypeError(f"risk_measure must be a DistortionRiskMeasure, got {type(self.risk_measure).__name__}")
        _pos(self.n_quantiles, "n_quantiles", integer=True)
        _pos(self.n_iter, "n_iter", integer=True, allow_zero=True)
        _pos(self.n_rollouts, "n_rollouts", integer=True)
        for name in ("lr_reward", "lr_policy", "mean_bound", "init_std"):
            _pos(getattr(self, name), name)
        for name in ("entropy", "reward_reg"):
            _pos(getattr(self, name), name, allow_zero=True)
        lo, hi = self.std_bounds
        if not (0 <= lo <= self.init_std <= hi):
            raise ValueError(f"std_bounds must satisfy 0 <= min <= init_std <= max, got {self.std_bounds} and {self.init_std}")

    # -- quantiles of sampled returns, with the sample each quantile selects (its subgradient) -------------------
    def _quantiles(self, z: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        zz = z[idx]
        order = np.argsort(zz, kind="stable")
        pos = np.minimum((quantile_grid(self.n_quantiles) * zz.size).astype(int), zz.size - 1)
        sel = idx[order[pos]]
        return z[sel], sel

    def _batch(self, mdp: TabularMDP, demos: Demonstrations, starts: np.ndarray, g: np.random.Generator) -> _Batch:
        eps = g.standard_normal(demos.states.shape)
        a, b = return_coefficients(mdp, demos, eps)
        idx = [np.flatnonzero(demos.states[:, 0] == s) for s in starts]
        return _Batch(idx, a, b, demos)

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
        g = make_rng(self.random_state)
        K, S, A = mdp.n_groups, mdp.n_states, mdp.n_actions
        starts, counts = np.unique(demonstrations.states[:, 0], return_counts=True)
        p0 = counts / counts.sum()
        w_g = self.risk_measure.weights(self.n_quantiles)
        mu = np.zeros(K)
        sigma = np.full(K, float(self.init_std))
        logits = np.zeros((S, A))
        hist: dict[str, list[float]] = {"fsd_violation": [], "weighted_violation": [], "drm_gap": []}
        path = [softmax(logits)] if self.store_path else []
        avg_mu, avg_sigma, n_avg = np.zeros(K), np.zeros(K), 0
        burn = self.n_iter // 2
        lo, hi = self.std_bounds
        M = self.n_rollouts
        for it in range(self.n_iter):
            pi = softmax(logits)
            exp_b = self._batch(mdp, demonstrations, starts, g)
            learner = [rollout(mdp, pi, M, start=int(s), seed=g) for s in starts]
            lrn = Demonstrations(np.concatenate([d.states for d in learner]), np.concatenate([d.actions for d in learner]))
            lrn_b = self._batch(mdp, lrn, starts, g)
            z_e = exp_b.a @ mu + exp_b.b @ sigma
            z_l = lrn_b.a @ mu + lrn_b.b @ sigma
            g_mu = np.zeros(K)
            g_sigma = np.zeros(K)
            adv_sum = np.zeros((S, A))
            adv_cnt = np.zeros((S, A))
            v_plain = v_w = gap = 0.0
            for j, w0 in enumerate(p0):
                q_e, sel_e = self._quantiles(z_e, exp_b.idx[j])
                q_l, sel_l = self._quantiles(z_l, lrn_b.idx[j])
                v_plain += w0 * fsd_violation(q_l, q_e)
                v_w += w0 * fsd_violation(q_l, q_e, risk_measure=self.risk_measure)
                gap += w0 * float(w_g @ (q_e - q_l))
                # reward step: subgradient of the DRM-weighted hinge through the selected samples
                act = w0 * w_g * ((q_l > q_e) if self.loss == "hinge" else 1.0)
                g_mu += act @ lrn_b.a[sel_l] - act @ exp_b.a[sel_e]
                g_sigma += act @ lrn_b.b[sel_l] - act @ exp_b.b[sel_e]
                # policy step: the DRM's likelihood-ratio weight -psi(Z) as a per-visit advantage signal
                rows = lrn_b.idx[j]
                adv = -self.risk_measure.tail_weights(z_l[rows])
                adv = np.repeat(adv - adv.mean(), lrn.states.shape[1])
                st, ac = lrn.states[rows].ravel(), lrn.actions[rows].ravel()
                np.add.at(adv_sum, (st, ac), adv)
                np.add.at(adv_cnt, (st, ac), 1.0)
            # soft policy mirror-descent step: theta <- theta + eta_pi (A_hat - beta theta) on visited states,
            # A_hat[s, a] = E[-psi | s, a] - E[-psi | s] (fixed point: pi = softmax(A_hat / beta))
            seen = adv_cnt.sum(axis=1) > 0
            q_sa = np.where(adv_cnt > 0, adv_sum / np.maximum(adv_cnt, 1.0), 0.0)
            base = adv_sum.sum(axis=1) / np.maximum(adv_cnt.sum(axis=1), 1.0)
            a_hat = np.where(adv_cnt > 0, q_sa - base[:, None], 0.0)
            logits[seen] += self.lr_policy * (a_hat[seen] - self.entropy * logits[seen])
            mu = np.clip(mu - self.lr_reward * (g_mu + self.reward_reg * mu), -self.mean_bound, self.mean_bound)
            sigma = np.clip(sigma - self.lr_reward * (g_sigma + self.reward_reg * (sigma - self.init_std)), lo, hi)
            if it >= burn:  # Polyak average of the reward iterates over the second half (the game cycles)
                avg_mu, avg_sigma, n_avg = avg_mu + mu, avg_sigma + sigma, n_avg + 1
            hist["fsd_violation"].append(v_plain)
            hist["weighted_violation"].append(v_w)
            hist["drm_gap"].append(gap)
            if self.store_path:
                path.append(softmax(logits))
        self.reward_mean_ = avg_mu / n_avg if n_avg else mu
        self.reward_std_ = avg_sigma / n_avg if n_avg else sigma
        self.last_reward_ = GaussianRewards(mu, sigma)
        self.logits_ = logits
        self.policy_ = softmax(logits)
        self.history_ = {k: np.asarray(v) for k, v in hist.items()}
        self.policy_path_ = np.asarray(path) if self.store_path else None
        self.n_iter_ = int(self.n_iter)
        return self

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

    def _check_fitted(self) -> None:
        if not hasattr(self, "policy_"):
            raise RuntimeError("this DistributionalIRL is not fitted yet; call fit(demonstrations, mdp) first")
