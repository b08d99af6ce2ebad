"""[P18] Distributional Inverse Reinforcement Learning

What it is: offline IRL that models the reward itself as a distribution R_phi(s, a) and compares the learner's and the
expert's *return distributions* rather than their means. The expert should first-order stochastically dominate the
learner (q_E(tau) >= q_pi(tau) for all tau, equivalently rho_g(Z^E) >= rho_g(Z^pi) for every distortion risk measure
rho_g(Z) = int q_Z dg); the reward step lowers the violation of that order, weighted by a DRM's quantile weights, and
the policy step maximises the DRM of the learner's return (a risk-aware policy). Here: tabular finite-horizon MDPs,
Gaussian rewards tied by reward group, returns sampled with reparameterised rewards, CVaR / Wang / dual-power / mean
distortions, and the baselines MaxEnt IRL (mean matching) and behaviour cloning.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``), all on our
two-route benchmark with a CVaR_0.2 expert that takes the other route in 10% of episodes, one shared run per seed:
  1. ``reward_shape`` - the reward distribution's shape is recovered. The two choices of the task identify at most
     the ordering of the safe and risky laws, and only with the start/goal cells known to pay 0: judged on the fit
     with every group learned (as a user would run it); the privileged fit and the size of the spread are reported.
  2. ``risk_averse_imitation`` - DIRL (every group learned) agrees with the risk-averse expert over every decision
     state (safe when short, risky when long) and more than BC and MaxEnt IRL; other learner distortions are reported.
  3. ``fsd_decreases`` - the FSD violation against the expert after 500 reward steps, relative to its start.
  4. ``iteration_complexity`` - O(eps^-2) iterations: not judged (a theorem about the paper's algorithm); our
     solver's best-so-far excess-objective slope is reported.

Deviations / reconstructions (only the abstract was available: no equations, no code):
  1. Alg. 1 is our reading, as a game: the policy player best-responds exactly (enumerating deterministic policies on
     tiny MDPs) with the deviation from the expert that maximises rho_g in the worst start state; the reward player
     minimises f(phi) = max_(c, j) [rho_g(Z^{pi_j}_c) - rho_g(Z^E_c)] (the signed, DRM-weighted quantile gap, i.e.
     the linear part of the DRM-weighted FSD violation) over a box. Solver: mirror-prox/extragradient on the mixed
     game with averaged iterates (default) or projected subgradient with averaging (O(log T / sqrt T) guarantee).
  2. Dynamics are given (a TabularMDP), return laws are exact Gaussian mixtures over paths; only rewards are unknown.
     "Offline" means no environment reward is ever observed.
  3. The box |mu| <= 1, sigma in [0.01, 3] fixes the reward scale; the max-margin solution sits on its sigma bounds,
     so the learned sigma_risky / sigma_safe reflects the box and the setting more than the truth (20).
  4. Declaring the absorbing start/goal cells reward-free (``known_rewards``, terminal-state convention) is extra
     information; every claim is judged without it. Without it the fit still imitates, but a
     wide neutral reward lets it do so with the safe/risky ordering inverted: the shape is not identified then.
  5. The benchmark (two routes per context, rewards tied by cell type) is ours; the paper's synthetic tasks, MuJoCo and
     neuro-behavioural data are not reproduced. The demonstrator is epsilon-noisy (epsilon = 0.1 per episode), so the
     expert's empirical return law and majority actions change with the seed; the FSD violation is measured against
     the noise-free CVaR-optimal policy.
  6. The learner's distortion: the judged fit uses the expert's own CVaR_0.2 (the notes' protocol; the abstract does
     not say whether g must be known). Fits with CVaR_0.1, CVaR_0.3 and Wang_0.75 are reported alongside.
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
from icml26.papers.dist_irl._mdp import (
    Demonstrations,
    GaussianRewards,
    TabularMDP,
    exact_returns,
    rollout,
)
from icml26.papers.dist_irl._risk import (
    CVaR,
    DistortionRiskMeasure,
    Expectation,
    PowerDistortion,
    WangTransform,
    quantile_grid,
)
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
