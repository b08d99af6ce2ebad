"""Fitted-Q evaluation with missingness-aware target policies ([P36], paper card Eq. B3) and the estimators built on it:
the proposed shadow-bridge FQE and the baselines a user would otherwise reach for (oracle, complete-case, zero
imputation, MAR inverse-probability weighting). They differ only in the per-step pseudo-reward fed to FQE."""

from __future__ import annotations

import inspect
import logging
import warnings
from typing import Literal

import numpy as np

from icml26.common.seeding import rng as _rng
from icml26.common.validation import choice, int_at_least, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.ope_mnar._bridge import fit_bridge, ridge_solve
from icml26.papers.ope_mnar._data import (
    FeatureSpec,
    LogisticPolicy,
    TargetPolicy,
    Trajectories,
    _expit,
    basis,
    check_features,
    policy_probs,
)

__all__ = [
    "CompleteCaseFQE",
    "IdentificationError",
    "IdentificationWarning",
    "MARIPWFQE",
    "OracleFQE",
    "ShadowBridgeFQE",
    "ZeroImputationFQE",
    "fitted_q_evaluation",
]


log = logging.getLogger(__name__)

class IdentificationError(ValueError):
    """The shadow variable is not relevant enough in the data: the bridge equation has no reliable solution.

    [P36] identifies the mean reward only under shadow relevance (completeness); our diagnostic finds it fails."""


class IdentificationWarning(UserWarning):
    """Issued instead of :class:`IdentificationError` when ``on_unidentified="warn"``.

    Same case: [P36]'s shadow relevance (completeness) fails in the data."""


def fitted_q_evaluation(data: Trajectories, pseudo_rewards: np.ndarray, policy: TargetPolicy, *,
                        features: FeatureSpec = "quadratic", ridge: float = 1e-6) -> float:
    """FQE for a target policy that may depend on the last missingness indicator (paper card, Eq. B3 of [P36]):

        Q_T+1 ≡ 0;  for t = T..1:  Q_t(s, a, h) = ridge-regression of  Ỹ_t + V_{t+1}(S_{t+1}, η_t)  on features of S_t,
        separately in every cell (A_t = a, η_{t-1} = h);  V_t(s, h) = Σ_a π_t(a | s, h) Q_t(s, a, h);
        V̂(π) = mean_i V_1(S_1^i, 1).

    Args: ``data`` (the logged trajectories), ``pseudo_rewards`` (n, T) = Ỹ_t, any row-wise quantity with
    E[Ỹ_t | S_t, A_t] = E[R_t | S_t, A_t] (the recovered reward), ``policy`` = π, ``features`` = the sieve for Q,
    ``ridge`` = Tikhonov weight (finite, >= 0). Raises ValueError when π puts mass on a cell (a, h) the data never
    visit, or on a bad ``features`` / ``ridge``; TypeError when ``data`` is not a :class:`Trajectories`.
    """
    if not isinstance(data, Trajectories):
        raise TypeError(f"data must be a Trajectories, got {type(data).__name__}")
    _check_common(features, ridge)
    y_tilde = real_array(pseudo_rewards, "pseudo_rewards", shape=(data.n, data.horizon))
    coef = policy.coef if isinstance(policy, LogisticPolicy) else None
    if coef is not None and len(coef) != data.state_dim:
        raise ValueError(f"target_policy.coef has {len(coef)} entries but the data's states have dimension "
                         f"{data.state_dim}: a LogisticPolicy needs one coef per state dimension")
    h_all = data.eta_prev
    v_next = np.zeros(data.n)
    for t in reversed(range(data.horizon)):
        s, a, h = data.states[:, t], data.actions[:, t], h_all[:, t]
        phi = basis(features, s)
        y = y_tilde[:, t] + v_next  # Eq. B3: recovered reward + V_{t+1}(S_{t+1}, η_t)
        probs = policy_probs(policy, t, s, h.astype(float), data.n_actions)
        v = np.zeros(data.n)
        for hv in (False, True):
            rows_h = h == hv
            if not np.any(rows_h):
                continue
            for act in range(data.n_actions):
                cell = rows_h & (a == act)
                need = probs[rows_h, act] > 0
                if not np.any(cell):
                    if np.any(need):
                        raise ValueError(f"target_policy puts mass on action {act} with eta_prev={int(hv)} at step "
                                         f"{t}, which the data never visit (no overlap with the behaviour policy)")
                    continue
                theta = ridge_solve(phi[cell], y[cell], ridge)
                v[rows_h] += probs[rows_h, act] * (phi[rows_h] @ theta)
        v_next = v
    return float(v_next.mean())


def _check_common(features: object, ridge: object) -> None:
    check_features(features, "features")
    real(ridge, "ridge", lo=0.0)


class _FQEEstimator:
    """Shared scikit-learn-style shell: ``fit(trajectories)`` stores the pseudo-rewards, ``estimate(policy)`` runs FQE.
    Keyword-only ``features``, ``ridge`` and ``random_state`` (seed of :meth:`estimate_interval`, default 0)."""

    def __init__(self, *, features: FeatureSpec = "quadratic", ridge: float = 1e-6,
                 random_state: int | np.random.Generator = 0) -> None:
        _check_common(features, ridge)  # checked again at fit: the attributes may be reassigned
        if not isinstance(random_state, np.random.Generator):
            check_seed(random_state, "random_state")
        self.features = features
        self.ridge = ridge
        self.random_state = random_state

    def get_params(self) -> dict:
        """The constructor's keyword arguments (scikit-learn convention)."""
        names = [k for k in inspect.signature(type(self).__init__).parameters if k != "self"]
        return {k: getattr(self, k) for k in names}

    def _pseudo_rewards(self, data: Trajectories) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, trajectories: Trajectories) -> _FQEEstimator:
        """Learn the per-step recovered rewards ``pseudo_rewards_`` (n, T) from ``trajectories``; returns self."""
        _check_common(self.features, self.ridge)
        if not isinstance(trajectories, Trajectories):
            raise TypeError(f"trajectories must be a Trajectories, got {type(trajectories).__name__}")
        self.pseudo_rewards_ = self._pseudo_rewards(trajectories)
        self.data_ = trajectories
        self.n_ = trajectories.n
        self.horizon_ = trajectories.horizon
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "pseudo_rewards_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted: call fit(trajectories) first")

    def estimate(self, target_policy: TargetPolicy) -> float:
        """V̂(π) by FQE on the recovered rewards (see :func:`fitted_q_evaluation`)."""
        self._check_fitted()
        return fitted_q_evaluation(self.data_, self.pseudo_rewards_, target_policy, features=self.features,
                                   ridge=self.ridge)

    def estimate_interval(self, target_policy: TargetPolicy, *, n_boot: int = 200,
                          level: float = 0.95) -> tuple[float, float, float]:
        """(V̂(π), lo, hi): the estimate and a percentile interval from the trajectory bootstrap (resample whole
        trajectories with replacement, refit, re-estimate). Not in [P36]: a convenience.

        Draws from ``random_state`` (constructor; default 0, so repeated calls give the same interval; pass another
        int or a numpy Generator for another resampling). A resample that cannot be fitted (no observed reward
        at some step, a policy cell it never visits) or whose bridge is not identified when ``on_unidentified="raise"``
        (``identified_`` False: the estimator would refuse it; with "warn" it is kept, as ``estimate`` keeps it) is skipped and counted in ``n_boot_skipped_``; ValueError (naming ``n_boot``) when
        fewer than 2 remain."""
        n_boot = int_at_least(n_boot, "n_boot", 2)
        level = real(level, "level", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        point = self.estimate(target_policy)
        g = _rng(self.random_state)
        vals = []
        for _ in range(int(n_boot)):
            idx = g.integers(0, self.n_, self.n_)  # drawn first: the stream does not depend on which resamples fail
            try:
                est = type(self)(**self.get_params()).fit(self.data_.take(idx))
                if not getattr(est, "identified_", True) and getattr(est, "on_unidentified", "raise") == "raise":
                    continue  # the guard of ShadowBridgeFQE.estimate, not bypassed (in "warn" mode it only warns)
                vals.append(est.estimate(target_policy))
            except ValueError:  # e.g. no observed reward at some step in this resample: skip it
                continue
        self.n_boot_skipped_ = int(n_boot) - len(vals)  # resamples skipped (reported, not hidden)
        if len(vals) < 2:
            raise ValueError(f"n_boot: only {len(vals)} of {int(n_boot)} bootstrap resamples could be fitted with an "
                             "identified bridge (too few observed rewards, or an irrelevant shadow variable)")
        if self.n_boot_skipped_:
            log.warning("estimate_interval: %d of %d bootstrap resamples could not be fitted or identified: skipped",
                        self.n_boot_skipped_, int(n_boot))
        a = (1 - level) / 2
        return point, float(np.quantile(vals, a)), float(np.quantile(vals, 1 - a))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()) + ")"


class OracleFQE(_FQEEstimator):
    """FQE on the full rewards (simulations only; needs ``trajectories.full_rewards``): the infeasible benchmark.

    The oracle FQE of the notes' simulation design for [P36] (no rewards missing)."""

    def _pseudo_rewards(self, data: Trajectories) -> np.ndarray:
        if data.full_rewards is None:
            raise ValueError("trajectories has no full_rewards: OracleFQE needs the unmasked rewards (simulations only)")
        return np.array(data.full_rewards)


class ZeroImputationFQE(_FQEEstimator):
    """FQE with missing rewards set to 0 (the default of many logging pipelines; biased unless E[R] = 0).

    The zero-imputation baseline of the notes' simulation design for [P36]."""

    def _pseudo_rewards(self, data: Trajectories) -> np.ndarray:
        return np.where(data.observed, np.nan_to_num(data.rewards), 0.0)


class CompleteCaseFQE(_FQEEstimator):
    """Complete-case FQE: the reward model E[R_t | S_t, A_t] is fitted on the transitions whose reward was recorded
    and plugged into FQE (consistent under MAR given (S_t, A_t); biased under MNAR).

    A MAR-valid baseline of [P36]'s comparison (the ``mar_biased`` claim).
    """

    def _pseudo_rewards(self, data: Trajectories) -> np.ndarray:
        out = np.zeros((data.n, data.horizon))
        for t in range(data.horizon):
            phi = basis(self.features, data.states[:, t])
            for act in range(data.n_actions):
                rows = data.actions[:, t] == act
                cc = rows & data.observed[:, t]
                theta = ridge_solve(phi[cc], data.rewards[cc, t], self.ridge)
                out[rows, t] = phi[rows] @ theta
        return out


class MARIPWFQE(_FQEEstimator):
    """FQE on the inverse-probability-weighted reward η_t R_t / p̂(S_t, A_t), with p̂ a logistic model of the
    missingness given (S_t, A_t) only (the MAR assumption; biased under MNAR). ``clip`` bounds p̂ from below.

    The MAR-IPW baseline of the notes' simulation design for [P36] (the ``mar_biased`` claim).
    """

    def __init__(self, *, features: FeatureSpec = "quadratic", ridge: float = 1e-6, clip: float = 0.02,
                 random_state: int | np.random.Generator = 0) -> None:
        super().__init__(features=features, ridge=ridge, random_state=random_state)
        self.clip = clip
        self._check_clip()

    def _check_clip(self) -> None:
        real(self.clip, "clip", lo=0.0, hi=1.0, lo_open=True)

    def _pseudo_rewards(self, data: Trajectories) -> np.ndarray:
        self._check_clip()
        out = np.zeros((data.n, data.horizon))
        self.propensity_ = np.zeros((data.n, data.horizon))
        for t in range(data.horizon):
            phi = basis(self.features, data.states[:, t])
            for act in range(data.n_actions):
                rows = data.actions[:, t] == act
                if not np.any(rows):
                    continue
                p = np.maximum(_logistic_fit_predict(phi[rows], data.observed[rows, t].astype(float)), self.clip)
                self.propensity_[rows, t] = p
                out[rows, t] = np.where(data.observed[rows, t], np.nan_to_num(data.rewards[rows, t]), 0.0) / p
        return out


def _logistic_fit_predict(X: np.ndarray, y: np.ndarray, *, l2: float = 1e-4, iters: int = 50) -> np.ndarray:
    """Fitted probabilities of an L2-penalised logistic regression (Newton / IRLS), deterministic."""
    n, k = X.shape
    w = np.zeros(k)
    for _ in range(iters):
        p = _expit(X @ w)
        grad = X.T @ (p - y) / n + l2 * w
        H = (X * (p * (1 - p))[:, None]).T @ X / n + l2 * np.eye(k)
        step = np.linalg.solve(H, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return _expit(X @ w)


class ShadowBridgeFQE(_FQEEstimator):
    """The proposed estimator of [P36]: recover the conditional mean reward through a bridge function of the shadow
    variable Z = S_{t+1} (paper card Eq. B1: E{b_t(S_t, A_t, S_{t+1}) | R_t, S_t, A_t} = R_t), fitted on the complete
    cases by the linear-sieve min-max problem (Eq. B2, :func:`fit_bridge`), then evaluated on every row (S_{t+1} is
    always observed) as the pseudo-reward of FQE (Eq. B3). No model of the MNAR propensity is needed.

    Args (keyword-only): ``features`` the sieve of S_t (Q-function and the bridge's conditioning part w(S_t));
    ``shadow_features`` the sieve of the shadow variable x(S_{t+1}) and of the reward instruments u(R_t), both
    without their constant; ``ridge`` the Tikhonov weight (bridge and FQE); ``min_shadow_F`` the smallest
    shadow-relevance F statistic (Eq. B4) accepted at every (step, action), 10 by the weak-instrument rule of thumb;
    ``on_unidentified`` "raise" (estimate raises :class:`IdentificationError`) or "warn" (returns the number with an
    :class:`IdentificationWarning`); ``random_state`` seeds :meth:`estimate_interval` (default 0: a fixed
    seed, repeated calls agree; the fit itself is deterministic).

    Learned attributes: ``bridge_coef_[t][a]`` (β), ``shadow_F_`` and ``shadow_pvalue_`` (T, n_actions),
    ``condition_`` (T, n_actions) condition numbers of the instrumented designs, ``identified_`` (bool),
    ``pseudo_rewards_`` (n, T) = b̂_t(S_t, A_t, S_{t+1}).
    """

    def __init__(self, *, features: FeatureSpec = "quadratic", shadow_features: FeatureSpec = "linear",
                 ridge: float = 1e-6, min_shadow_F: float = 10.0,
                 on_unidentified: Literal["raise", "warn"] = "raise",
                 random_state: int | np.random.Generator = 0) -> None:
        super().__init__(features=features, ridge=ridge, random_state=random_state)
        self.shadow_features = shadow_features
        self.min_shadow_F = min_shadow_F
        self.on_unidentified = on_unidentified
        self._check_bridge_params()

    def _check_bridge_params(self) -> None:
        check_features(self.shadow_features, "shadow_features")
        real(self.min_shadow_F, "min_shadow_F", lo=0.0)
        choice(self.on_unidentified, "on_unidentified", ("raise", "warn"))

    def _pseudo_rewards(self, data: Trajectories) -> np.ndarray:
        self._check_bridge_params()
        T, K = data.horizon, data.n_actions
        out = np.zeros((data.n, T))
        self.bridge_coef_: list[list[np.ndarray]] = []
        self.shadow_F_ = np.zeros((T, K))
        self.shadow_pvalue_ = np.ones((T, K))
        self.condition_ = np.full((T, K), np.inf)
        for t in range(T):
            W = basis(self.features, data.states[:, t])
            X = basis(self.shadow_features, data.states[:, t + 1], constant=False)
            U = basis(self.shadow_features, np.nan_to_num(data.rewards[:, t])[:, None], constant=False)
            coefs = []
            need = W.shape[1] + X.shape[1] + 1  # the relevance test's regression needs n - p - k >= 1 residual dof
            for act in range(K):
                rows = data.actions[:, t] == act
                cc = rows & data.observed[:, t]
                if np.any(rows) and cc.sum() < need:
                    raise ValueError(
                        f"too few rows: step {t}, action {act} has {int(cc.sum())} complete cases (observed reward), "
                        f"but the bridge and its shadow-relevance test need at least {need} = {W.shape[1]} features "
                        f"of S_t + {X.shape[1]} shadow features + 1; pass more trajectories or smaller feature sieves")
                if not np.any(rows):  # a cell the data never visit: nothing to fit, no pseudo-reward to give
                    coefs.append(np.zeros(W.shape[1] + X.shape[1]))
                    continue
                fit = fit_bridge(W[cc], X[cc], U[cc], data.rewards[cc, t], ridge=self.ridge)
                coefs.append(fit.beta)
                self.shadow_F_[t, act], self.shadow_pvalue_[t, act] = fit.shadow_F, fit.shadow_pvalue
                self.condition_[t, act] = fit.condition
                # Eq. B1 → E[R | S, A] = E[b(S, A, S') | S, A]: the bridge evaluated on every row is the pseudo-reward
                out[rows, t] = np.concatenate([W[rows], X[rows]], axis=1) @ fit.beta
            self.bridge_coef_.append(coefs)
        visited = np.array([[np.any(data.actions[:, t] == a) for a in range(K)] for t in range(T)])
        self.identified_ = bool(np.all(self.shadow_F_[visited] >= self.min_shadow_F))
        return out

    def estimate(self, target_policy: TargetPolicy) -> float:
        """V̂(π) (Eq. B3 on the bridge pseudo-rewards); refuses (or warns) when the shadow variable is not relevant."""
        self._check_fitted()
        if not self.identified_:
            worst = float(np.min(self.shadow_F_))
            msg = (f"the shadow variable S_(t+1) is not relevant for the reward (min shadow-relevance F = {worst:.2f} "
                   f"< min_shadow_F = {self.min_shadow_F}): the bridge equation is not identified and the estimate "
                   "would be unreliable")
            if self.on_unidentified == "raise":
                raise IdentificationError(msg)
            warnings.warn(msg, IdentificationWarning, stacklevel=2)
        return super().estimate(target_policy)

