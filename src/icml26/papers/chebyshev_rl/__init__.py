"""[P10] Chebyshev Policies and the Mountain Car Problem

Official code: JRC-ISIA/paper-2026-chebyshev-policies-low-dimensional-control-tasks (hyper-parameters read there).

**Method.** A *Chebyshev policy* normalises the state ``s`` in its box to ``z in [-1, 1]^n`` and outputs
``mu(s) = clip(C phi(z), -1, 1)`` (rescaled to the action box) with the tensor-product basis
``phi_i(z) = prod_j T_{i_j}(z_j)``, ``i in {0..d}^n`` (``d = 3``, ``n = 2``: 16 coefficients for Mountain Car,
against 4,417 for the 2-64-64-1 MLP). It is a drop-in policy class: :func:`ars` and :func:`reinforce` (numpy, on
:mod:`icml26.common.rl`) and :func:`ppo` (stable-baselines3 with a Chebyshev actor-critic as a custom policy) train
it or the MLP.

**Reference optimum (ours; the paper's closed form was not available).** With ``E = v^2/2 + (0.0025/3) sin 3x`` the
dynamics give ``dE/dt = 0.0015 a v``; for a given velocity profile the cheapest way to gain energy is ``a = k v``
(Cauchy-Schwarz, Eq. A1); ``a = clip(k v (1 + c |v| / 0.07))`` (Eq. A2) spends a little more at high speed. The left
wall (x = -1.2, v set to 0) caps the normalised energy ``eps = sin 3x + 3 v^2 / (2 * 0.0025)`` at ``sin(-3.6) = 0.44``
before the last pass, while the goal needs ``sin(1.35) = 0.98``: slow, cheap pumping up to the wall's energy, then one
hard final pass. Our reference R* is the two-phase, energy-scheduled law

    a = clip(kappa(eps) v (1 + c |v| / 0.07), -1, 1),   kappa = k1 if eps < e_th else k2          (Eq. A3)

with per-start ``(k1, e_th, k2, c)`` from a grid search + local refinement on the exact dynamics, seeded with the
Eq. (A2) optimum (which it contains: ``e_th = -2``); tabulated for the 100 evaluation starts (regenerate with
``optimal_params(x0, use_table=False)``), R* always re-simulated. It is not optimal: our own global search over
energy-dependent gain schedules beats it on every start (claim ``optimum``), so the claims' regrets are taken against
the best known return per start, max(R*, that search), and remain lower bounds. :func:`regret` = mean over the 100
equidistant ``x0 in [-0.6, -0.4]`` of ``R*(x0) - R_pi(x0)``.

**Claims** (words, bars and basis in paper.toml; measured in ``_checks*.py``, judged in ``_rules.py``):
  1. ``optimum`` — an analytically derived, simple optimal control (checks our reconstruction of it).
  2. ``mlp_gap`` — neural-net agents (ARS, PPO) display a large gap to optimality: at least twice the regret the
     same trainer reaches with a Chebyshev policy.
  3. ``regret_ratio`` — Chebyshev policies cut the regret 4.18-fold with 277 times fewer parameters.
  4. ``consistent_gains`` — gains over neural nets with PPO, ARS and REINFORCE (Mountain Car).
  5. ``pendulum_gains`` — the gains on a further task, Pendulum-v1 (ARS and PPO, a grid of initial states).

**Deviations.** Both the MLP and the Chebyshev policy see the state normalised to [-1, 1] on the observation box
(``MLPPolicy(..., obs_low=, obs_high=)``; for SB3's MLP a box-normalising features extractor). Environments: numpy
copies of MountainCarContinuous-v0 / Pendulum-v1 that match gymnasium 1.x bit for bit (tested), except that a NaN or
infinite action raises here; PPO trains on gymnasium itself, with 4 parallel environments (the authors' 2048
transitions per update kept). Both policy classes use the authors' CH hyper-parameters (ARS: delta_std 0.1, 4
directions, top 1, step 0.018; PPO: lr 1e-3, n_steps 2048, batch 1048, 2 epochs, clip 0.4), also on Pendulum; rl-zoo's
MLP settings are an alternative (``ppo(..., hyper=ZOO_MLP_PPO_HP, n_envs=1, normalize=True)``). The MLP has
PyTorch-default initialisation and a clipped linear output. REINFORCE uses a fixed exploration std 0.5 and a mean
baseline. ``small`` budget: PPO 20K steps (paper 70K), REINFORCE 100K, Pendulum ARS 64K and PPO 20K steps on a 20x20
start grid (paper 50x50); ARS on Mountain Car uses the paper's 80K steps.
"""

from icml26.papers.chebyshev_rl._envs import mc_rollout, mc_starts, pendulum_rollout
from icml26.papers.chebyshev_rl._optimal import (
    optimal_gains,
    optimal_mountain_car_policy,
    optimal_mountain_car_return,
    optimal_params,
    policy_returns,
    regret,
)
from icml26.papers.chebyshev_rl._policies import ChebyshevPolicy, MLPPolicy, chebyshev_features, chebyshev_T
from icml26.papers.chebyshev_rl._sb3 import ppo
from icml26.papers.chebyshev_rl._trainers import TrainLog, ars, reinforce

__all__ = [
    "ChebyshevPolicy",
    "MLPPolicy",
    "TrainLog",
    "ars",
    "chebyshev_T",
    "chebyshev_features",
    "mc_rollout",
    "mc_starts",
    "optimal_gains",
    "optimal_mountain_car_policy",
    "optimal_mountain_car_return",
    "optimal_params",
    "pendulum_rollout",
    "policy_returns",
    "ppo",
    "regret",
    "reinforce",
]
