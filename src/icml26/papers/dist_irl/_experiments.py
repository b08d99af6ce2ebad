"""One seed of the two-route experiment: expert demos -> DistributionalIRL, MaxEnt IRL, BC -> metrics vs the truth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._baselines import BehaviourCloning, MaxEntIRL
from ._dirl import DistributionalIRL
from ._dominance import fsd_violation, standardized_wasserstein
from ._game import linear_minimax_value
from ._risk import CVaR
from ._tasks import NEUTRAL, RISKY, SAFE, TwoRouteTask, make_two_route_task

__all__ = ["ExperimentConfig", "noisy_expert", "run_seed", "true_fsd_violation"]


@dataclass(frozen=True)
class ExperimentConfig:
    """Sizes of one run (the method's hyper-parameters are DistributionalIRL's defaults, fixed before any check)."""

    lengths: tuple[int, ...] = (1, 12)
    n_demos: int = 200
    n_iter: int = 2000
    n_quantiles: int = 32
    alpha: float = 0.2
    n_checkpoints: int = 12  # log-spaced iterations at which the true FSD violation is evaluated (plus T // 10)
    expert_noise: float = 0.1  # the demonstrator takes the other route with this probability (per episode)


def noisy_expert(task: TwoRouteTask, expert: np.ndarray, eps: float) -> np.ndarray:
    """The demonstrator: the risk-optimal ``expert`` that takes the other route with probability ``eps`` at each
    start state, so that each seed's demonstrations (hence the expert's empirical return law) differ."""
    pi = np.array(expert, dtype=float)
    for s in task.starts:
        pi[s] = (1.0 - eps) * pi[s] + eps * pi[s][::-1]
    return pi


def true_fsd_violation(task: TwoRouteTask, policy: np.ndarray, expert: np.ndarray, *, n_quantiles: int = 256) -> float:
    """Mean over contexts of the exact FSD violation int (q_pi - q_E)_+ dtau under the TRUE rewards, each divided
    by the standard deviation of a 50/50 mix of the context's two routes (a scale-free number)."""
    out = []
    half = np.full(len(task.starts), 0.5)
    for c in range(len(task.starts)):
        q_pi = task.true_quantiles(policy, context=c, n_quantiles=n_quantiles)
        q_e = task.true_quantiles(expert, context=c, n_quantiles=n_quantiles)
        mix = task.route_policy(np.zeros(len(task.starts), dtype=bool))
        mix[task.starts[c]] = half[c], 1 - half[c]
        scale = float(np.std(task.true_quantiles(mix, context=c, n_quantiles=n_quantiles)))
        out.append(fsd_violation(q_pi, q_e) / scale)
    return float(np.mean(out))


def run_seed(cfg: ExperimentConfig, seed: int) -> dict:
    """Fit the three methods on one seed's demonstrations and measure them against the truth."""
    task = make_two_route_task(cfg.lengths)
    risk = CVaR(cfg.alpha)
    expert = task.risk_optimal_policy(risk)
    demos = task.demonstrations(noisy_expert(task, expert, cfg.expert_noise), cfg.n_demos, seed=seed)
    # privileged setting: the absorbing start/goal cells are known to pay nothing (terminal-state convention)
    dirl = DistributionalIRL(risk_measure=risk, n_quantiles=cfg.n_quantiles, n_iter=cfg.n_iter,
                             known_rewards={NEUTRAL: (0.0, 0.0)}, store_path=True).fit(demos, task.mdp)
    # unprivileged setting: every reward group is learned
    dirl_free = DistributionalIRL(risk_measure=risk, n_quantiles=cfg.n_quantiles, n_iter=cfg.n_iter).fit(demos, task.mdp)
    maxent = MaxEntIRL().fit(demos, task.mdp)
    bc = BehaviourCloning().fit(demos, task.mdp)
    groups = [SAFE, RISKY]
    truth = (task.true_rewards.mean[groups], task.true_rewards.std[groups])
    w1_dirl = standardized_wasserstein((dirl.reward_mean_[groups], dirl.reward_std_[groups]), truth)
    w1_maxent = standardized_wasserstein((maxent.reward_[groups], np.zeros(2)), truth)
    # risk-averse imitation: the contexts where the expert takes the safe route
    safe_ctx = np.flatnonzero(task.p_risky(expert) < 0.5)
    agree = {name: float(np.mean(1.0 - task.p_risky(pi)[safe_ctx])) for name, pi in
             (("dirl", dirl.policy_), ("dirl_free", dirl_free.policy_), ("maxent", maxent.policy_),
              ("bc", bc.policy_))}
    agree_all = {name: float(np.mean(1.0 - np.abs(task.p_risky(pi) - task.p_risky(expert)))) for name, pi in
                 (("dirl", dirl.policy_), ("maxent", maxent.policy_), ("bc", bc.policy_))}
    cvar = {name: float(np.mean([task.true_risk(pi, risk, context=c) for c in range(len(task.starts))]))
            for name, pi in (("dirl", dirl.policy_), ("dirl_free", dirl_free.policy_), ("maxent", maxent.policy_),
                             ("expert", expert))}
    T = cfg.n_iter
    ckpt = np.unique(np.round(np.geomspace(1, T, cfg.n_checkpoints)).astype(int))
    ckpt = np.unique(np.concatenate([[0], ckpt, [T // 10]]))
    K = task.mdp.n_groups
    path = dirl.reward_path_  # running averages phi_bar_t, row 0 = phi_0
    pols = [dirl.risk_optimal_policy(path[t, :K], path[t, K:]) for t in ckpt]
    viol = np.array([true_fsd_violation(task, pi, expert) for pi in pols])
    # the game's value f* by LP (every piece is affine in phi on this task: single-path returns, neutral pinned)
    vals, grads = dirl._oracle(path[-1])
    f_star, _ = linear_minimax_value(vals, grads, path[-1], dirl.lower_, dirl.upper_)
    f_avg = np.array([float(dirl._oracle(path[t])[0].max()) for t in ckpt])
    return {
        "seed": seed,
        "sigma_ratio": float(dirl.reward_std_[RISKY] / max(dirl.reward_std_[SAFE], 1e-12)),
        "mu_gap": float(dirl.reward_mean_[RISKY] - dirl.reward_mean_[SAFE]),
        "w1_dirl": float(w1_dirl.mean()),
        "w1_maxent": float(w1_maxent.mean()),
        "agree_safe": agree,
        "agree_all": agree_all,
        "cvar": cvar,
        "checkpoints": ckpt.tolist(),
        "true_violation": viol.tolist(),
        "train_violation": dirl.history_["weighted_violation"].tolist(),
        "objective_avg": f_avg.tolist(),
        "f_star": f_star,
        "reward_mean": dirl.reward_mean_.tolist(),
        "reward_std": dirl.reward_std_.tolist(),
        "reward_mean_free": dirl_free.reward_mean_.tolist(),
        "reward_std_free": dirl_free.reward_std_.tolist(),
        "n_demos_per_route": [int(v) for v in np.bincount(
            demos.states[:, 0] * 2 + demos.actions[:, 0], minlength=2 * len(task.starts))],
        "maxent_reward": maxent.reward_.tolist(),
    }
