"""Distributional Inverse Reinforcement Learning (P18, ICML 2026).

Authors: Feiyang Wu, Ye Zhao, Anqi Wu. https://arxiv.org/abs/2510.03013

What it is: offline IRL that models the reward itself as a distribution R_phi(s, a) and compares the learner's and the
expert's *return distributions* rather than their means. The expert should first-order stochastically dominate the
learner (q_E(tau) >= q_pi(tau) for all tau, equivalently rho_g(Z^E) >= rho_g(Z^pi) for every distortion risk measure
rho_g(Z) = int q_Z dg); the reward step lowers the violation of that order, weighted by a DRM's quantile weights, and
the policy step maximises the DRM of the learner's return (a risk-aware policy). Here: tabular finite-horizon MDPs,
Gaussian rewards tied by reward group, returns sampled with reparameterised rewards, CVaR / Wang / dual-power / mean
distortions, and the baselines MaxEnt IRL (mean matching) and behaviour cloning.

Claims (paper.toml; checks in claims.py, all on our two-route benchmark with a CVaR_0.2 expert):
  1. ``reward_shape`` - the reward distribution's shape is recovered (standardised W1 to the truth, sigma ratio).
  2. ``risk_averse_imitation`` - the policy imitates a risk-averse expert where mean-matching IRL takes the risky route.
  3. ``fsd_decreases`` - the FSD violation against the expert falls during training.
  4. ``iteration_complexity`` - O(eps^-2) iterations, measured as a log-log slope of the best-so-far violation.

Deviations / reconstructions (only the abstract was available: no equations, no code):
  1. Alg. 1 is our reading: reward step = projected subgradient descent on the DRM-weighted quantile gap
     sum_i w_i (q_pi(tau_i) - q_E(tau_i)) (``loss="gap"``, default) or its hinge (``loss="hinge"``, the weighted FSD
     violation), per start state; policy step = entropy-regularised mirror ascent on rho_g with the DRM's
     likelihood-ratio weight as advantage. The reward output is the Polyak average of the second half of the
     iterates; the box |mu| <= 1, sigma in [0.01, 3] fixes the reward scale.
  2. Dynamics are given (a TabularMDP), as in tabular MaxEnt IRL; only rewards are unknown. "Offline" means no
     environment reward is ever observed; the learner's rollouts use the known model.
  3. The benchmark (two routes per context, rewards tied by cell type) is ours; the paper's synthetic tasks, MuJoCo and
     neuro-behavioural data are not reproduced.
  4. With this reconstruction the alternating game cycles and the claims fail at our budgets (README); this is a
     finding about our reading, not a verdict on the authors' implementation.
"""

from icml26.papers.dist_irl._baselines import BehaviourCloning, MaxEntIRL
from icml26.papers.dist_irl._dirl import DistributionalIRL, softmax
from icml26.papers.dist_irl._dominance import (
    empirical_quantiles,
    first_order_dominates,
    fsd_violation,
    gaussian_mixture_quantiles,
    standardized_wasserstein,
)
from icml26.papers.dist_irl._mdp import Demonstrations, GaussianRewards, TabularMDP, exact_returns, rollout
from icml26.papers.dist_irl._risk import CVaR, DistortionRiskMeasure, Expectation, PowerDistortion, WangTransform, quantile_grid
from icml26.papers.dist_irl._tasks import TwoRouteTask, make_two_route_task

__all__ = [
    "BehaviourCloning",
    "CVaR",
    "Demonstrations",
    "DistortionRiskMeasure",
    "DistributionalIRL",
    "Expectation",
    "GaussianRewards",
    "MaxEntIRL",
    "PowerDistortion",
    "TabularMDP",
    "TwoRouteTask",
    "WangTransform",
    "empirical_quantiles",
    "exact_returns",
    "first_order_dominates",
    "fsd_violation",
    "gaussian_mixture_quantiles",
    "make_two_route_task",
    "quantile_grid",
    "rollout",
    "softmax",
    "standardized_wasserstein",
]
