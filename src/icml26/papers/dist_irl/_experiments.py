"""One seed of the two-route experiment: expert demos -> DistributionalIRL, MaxEnt IRL, BC -> metrics vs the truth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.papers.dist_irl._baselines import BehaviourCloning, MaxEntIRL
from icml26.papers.dist_irl._dirl import DistributionalIRL
from icml26.papers.dist_irl._dominance import fsd_violation, standardized_wasserstein
from icml26.papers.dist_irl._game import linear_minimax_value
from icml26.papers.dist_irl._risk import CVaR, DistortionRiskMeasure, WangTransform
from icml26.papers.dist_irl._tasks import NEUTRAL, RISKY, SAFE, TwoRouteTask, make_two_route_task

__all__ = ["MISMATCHED", "ExperimentConfig", "noisy_expert", "run_seed", "true_fsd_violation"]

# Learner distortions that differ from the expert's CVaR_0.2 (does imitation need the expert's exact g?).
MISMATCHED: tuple[tuple[str, DistortionRiskMeasure], ...] = (
    ("cvar_0.1", CVaR(0.1)), ("cvar_0.3", CVaR(0.3)), ("wang_0.75", WangTransform(0.75)))


@dataclass(frozen=True)
class ExperimentConfig:
    """Sizes of one run (the method's hyper-parameters are DistributionalIRL's defaults, fixed before any check)."""

    lengths: tuple[int, ...] = (1, 12)
    n_demos: int = 200
    n_iter: int = 2000
    n_quantiles: int = 32
    alpha: float = 0.2
    n_checkpoints: int = 12  # log-spaced iterations at which the true FSD violation is evaluated (plus fsd_step)
    expert_noise: float = 0.1  # the demonstrator takes the other route with this probability (per episode)
    fsd_step: int = 500  # the reward step at which fsd_decreases reads the violation (the notes' 500 iterations)


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


def _path_metrics(task: TwoRouteTask, dirl: DistributionalIRL, expert: np.ndarray, ckpt: np.ndarray) -> dict:
    """Along the averaged reward path phi_bar_t of a fit (store_path=True): the true FSD violation of the risk-optimal
    policy at each checkpoint, the game objective f(phi_bar_t), and f* = the LP value of the pieces linearised at the
    last iterate (exact when every piece is affine in phi; with mixture laws or a free neutral sigma, a linearisation)."""
    K = task.mdp.n_groups
    path = dirl.reward_path_  # running averages phi_bar_t, row 0 = phi_0
    if path is None:
        raise ValueError("the fit must keep its reward path (store_path=True)")
    pols = [dirl.risk_optimal_policy(path[t, :K], path[t, K:]) for t in ckpt]
    vals, grads = dirl._oracle(path[-1])
    f_star, _ = linear_minimax_value(vals, grads, path[-1], dirl.lower_, dirl.upper_)
    return {"true_violation": [true_fsd_violation(task, pi, expert) for pi in pols],
            "objective_avg": [float(dirl._oracle(path[t])[0].max()) for t in ckpt], "f_star": f_star,
            "train_violation": dirl.history_["weighted_violation"].tolist()}


def _shape(task: TwoRouteTask, mean: np.ndarray, std: np.ndarray) -> tuple[float, float]:
    """(mean standardised W1 to the true safe/risky laws, sigma_risky / sigma_safe) of a learned reward."""
    groups = [SAFE, RISKY]
    truth = (task.true_rewards.mean[groups], task.true_rewards.std[groups])
    w1 = float(standardized_wasserstein((mean[groups], std[groups]), truth).mean())
    return w1, float(std[RISKY] / max(std[SAFE], 1e-12))


def run_seed(cfg: ExperimentConfig, seed: int) -> dict:
    """Fit the methods on one seed's demonstrations and measure them against the truth.

    The headline numbers (keys without suffix) are DIRL's with every reward group learned (``dirl_free``); the
    privileged fit with the neutral cells known is reported under ``*_known``; the learners with a distortion other
    than the expert's under ``mismatched``."""
    task = make_two_route_task(cfg.lengths)
    risk = CVaR(cfg.alpha)
    expert = task.risk_optimal_policy(risk)
    demos = task.demonstrations(noisy_expert(task, expert, cfg.expert_noise), cfg.n_demos, seed=seed)
    kw = {"n_quantiles": cfg.n_quantiles, "n_iter": cfg.n_iter, "store_path": True}
    # unprivileged setting (the headline): every reward group is learned
    dirl_free = DistributionalIRL(risk_measure=risk, **kw).fit(demos, task.mdp)
    # privileged setting: the absorbing start/goal cells are known to pay nothing (terminal-state convention)
    dirl = DistributionalIRL(risk_measure=risk, known_rewards={NEUTRAL: (0.0, 0.0)}, **kw).fit(demos, task.mdp)
    maxent = MaxEntIRL().fit(demos, task.mdp)
    bc = BehaviourCloning().fit(demos, task.mdp)
    mism = {name: DistributionalIRL(risk_measure=g, n_quantiles=cfg.n_quantiles, n_iter=cfg.n_iter).fit(demos, task.mdp)
            for name, g in MISMATCHED}
    groups = [SAFE, RISKY]
    truth = (task.true_rewards.mean[groups], task.true_rewards.std[groups])
    w1_maxent = float(standardized_wasserstein((maxent.reward_[groups], np.zeros(2)), truth).mean())
    w1_free, sig_free = _shape(task, dirl_free.reward_mean_, dirl_free.reward_std_)
    w1_known, sig_known = _shape(task, dirl.reward_mean_, dirl.reward_std_)
    # risk-averse imitation: the contexts where the expert takes the safe route; risk = the expert's true CVaR_alpha
    safe_ctx = np.flatnonzero(task.p_risky(expert) < 0.5)

    def agree(pi: np.ndarray) -> float:
        return float(np.mean(1.0 - task.p_risky(pi)[safe_ctx]))

    def agree_all(pi: np.ndarray) -> float:  # decision-state agreement over every context
        return float(np.mean(1.0 - np.abs(task.p_risky(pi) - task.p_risky(expert))))

    def true_cvar(pi: np.ndarray) -> float:
        return float(np.mean([task.true_risk(pi, risk, context=c) for c in range(len(task.starts))]))

    pols = {"dirl_free": dirl_free.policy_, "dirl": dirl.policy_, "maxent": maxent.policy_, "bc": bc.policy_}
    T = cfg.n_iter
    ckpt = np.unique(np.round(np.geomspace(1, T, cfg.n_checkpoints)).astype(int))
    ckpt = np.unique(np.concatenate([[0], ckpt, [cfg.fsd_step] if cfg.fsd_step <= T else []])).astype(int)
    free, known = _path_metrics(task, dirl_free, expert, ckpt), _path_metrics(task, dirl, expert, ckpt)
    return {
        "seed": seed,
        "sigma_ratio": sig_free,
        "w1_dirl": w1_free,
        "w1_maxent": w1_maxent,
        "sigma_ratio_known": sig_known,
        "w1_dirl_known": w1_known,
        "agree_safe": {name: agree(pi) for name, pi in pols.items()},
        "agree_all": {name: agree_all(pi) for name, pi in pols.items()},
        "cvar": {**{name: true_cvar(pols[name]) for name in ("dirl_free", "dirl", "maxent")}, "expert": true_cvar(expert)},
        "mismatched": {name: {"agree_safe": agree(m.policy_), "agree_all": agree_all(m.policy_),
                              "cvar": true_cvar(m.policy_)} for name, m in mism.items()},
        "checkpoints": ckpt.tolist(),
        **free,
        **{f"{k}_known": v for k, v in known.items()},
        "reward_mean": dirl_free.reward_mean_.tolist(),
        "reward_std": dirl_free.reward_std_.tolist(),
        "reward_mean_known": dirl.reward_mean_.tolist(),
        "reward_std_known": dirl.reward_std_.tolist(),
        "n_demos_per_route": [int(v) for v in np.bincount(
            demos.states[:, 0] * 2 + demos.actions[:, 0], minlength=2 * len(task.starts))],
        "maxent_reward": maxent.reward_.tolist(),
    }
