"""Chebyshev Policies and the Mountain Car Problem — Huber, Unger, Schäfer, Rehrl (ICML 2026) [P10].

https://arxiv.org/abs/2605.22305 — official code: JRC-ISIA/paper-2026-chebyshev-policies-low-dimensional-control-tasks.

**Method.** A *Chebyshev policy* normalises the state ``s`` in its box to ``z in [-1, 1]^n`` and outputs
``mu(s) = clip(C phi(z), -1, 1)`` (rescaled to the action box) with the tensor-product basis
``phi_i(z) = prod_j T_{i_j}(z_j)``, ``i in {0..d}^n`` (``d = 3``, ``n = 2``: 16 coefficients for Mountain Car,
against 4,417 for the 2-64-64-1 MLP). It is a drop-in policy class: :func:`ars` and :func:`reinforce` (ours, numpy /
torch) and :func:`ppo` (stable-baselines3 with a Chebyshev actor-critic as a custom policy) train it or the MLP.

**Optimal control (our derivation; the paper's closed form was not available to us).** With
``E = v^2/2 + (0.0025/3) sin 3x`` the dynamics give ``dE/dt = 0.0015 a v``; for a given velocity profile the cheapest
way to gain energy is ``a = k v`` (Cauchy-Schwarz, Eq. A1); ``a = clip(k v (1 + c |v| / 0.07))`` (Eq. A2) spends a
little more at high speed. But the left wall (x = -1.2, v set to 0) caps the normalised energy
``eps = sin 3x + 3 v^2 / (2 * 0.0025)`` at ``sin(-3.6) = 0.44`` before the last pass, while the goal needs
``sin(1.35) = 0.98``: the problem splits into slow, cheap pumping up to the wall's energy over many swings and one hard
final pass. The reference optimum is therefore the two-phase, energy-scheduled law

    a = clip(kappa(eps) v (1 + c |v| / 0.07), -1, 1),   kappa = k1 if eps < e_th else k2          (Eq. A3)

with per-start ``(k1, e_th, k2, c)`` from a dense grid search + local refinement on the exact dynamics, seeded with the
Eq. (A2) optimum (which it contains: ``e_th = -2``). It raises the mean return over the 100 starts from 99.461
(Eq. A2; notes' ``a = k v``: 99.35) to 99.528 (up to +0.18 on a start). Parameters for the 100 evaluation starts are
tabulated (regenerate with ``optimal_params(x0, use_table=False)``); R* is always re-simulated.
:func:`optimal_params`, :func:`optimal_mountain_car_policy`, :func:`optimal_mountain_car_return`; :func:`regret` =
mean over the 100 equidistant ``x0 in [-0.6, -0.4]`` of ``R*(x0) - R_pi(x0)``.

**Claims** (``claims.py``): ``optimum`` (R* reaches the goal everywhere; a dense 5-parameter search around it
(Eq. A3 + a position term) and a global cross-entropy search over energy-dependent gain schedules gain <= 0.02, and
no trained ARS, REINFORCE or PPO agent beats it on any start), ``mlp_gap`` (MLP-ARS / MLP-PPO
regret CI above 0.5; an algorithm counts only if CH or MLP learns with it), ``regret_ratio`` (regret MLP/CH with ARS, CI >= 2, paper 4.18; parameters 4417/16 = 276.06,
paper "277"; reported without verdict: the MLP with rl-zoo's own PPO settings), ``consistent_gains`` (CH - MLP
return CI > 0 for ARS, REINFORCE, PPO on Mountain Car, and the full regret table), ``pendulum_gains`` (the same for
ARS and PPO on Pendulum-v1 over a grid of initial states; the issue's claim 4 split in two to fit the budget). Regrets in the claims are taken against
the best known return per start, max(Eq. A3, the global schedule search). In both
gains claims an algorithm counts only if one of the two classes learns (Mountain Car: mean regret < 50; Pendulum: mean
return > zero-torque return + 300); holds needs every counted CI > 0 and at least two counted algorithms.

**Deviations.** The optimum is our Eq. (A3), not the paper's analytic formula (unread); a local 5-parameter search
around it gains up to 0.027 and a global search over energy-dependent gain schedules up to 0.13 (see README): it is
not optimal.
Both the MLP and the Chebyshev policy see the state normalised to [-1, 1] on the observation box
(``MLPPolicy(..., obs_low=, obs_high=)``; for SB3's MLP a box-normalising features extractor). Environments: numpy copies of MountainCarContinuous-v0
/ Pendulum-v1 that match gymnasium 1.x bit for bit (tested) for ARS, REINFORCE and all evaluation; PPO trains on
gymnasium itself, with 4 parallel environments (the authors' 2048 transitions per update kept; 4x faster here). Both
policy classes use the authors' CH hyper-parameters (ARS: delta_std 0.1, 4 directions, top 1, step 0.018; PPO: lr 1e-3,
n_steps 2048, batch 1048, 2 epochs, clip 0.4), also on Pendulum; the paper's MLP baselines probably used rl-zoo's
settings, which we measure as an alternative (``ppo(..., hyper=ZOO_MLP_PPO_HP, n_envs=1, normalize=True)``).
The MLP (ours) has PyTorch-default initialisation and a clipped linear output. REINFORCE uses a fixed exploration
std 0.5 and a mean baseline. ``small`` budget: PPO 20K steps (paper 70K), REINFORCE 100K, Pendulum ARS 64K and PPO
20K steps on a 20x20 start grid (paper 50x50); ARS on Mountain Car uses the paper's 80K steps.
"""

from ._envs import mc_rollout, mc_starts, pendulum_rollout
from ._optimal import (
                       optimal_gains,
                       optimal_mountain_car_policy,
                       optimal_mountain_car_return,
                       optimal_params,
                       policy_returns,
                       regret,
)
from ._policies import ChebyshevPolicy, MLPPolicy, chebyshev_features, chebyshev_T
from ._sb3 import ppo
from ._trainers import TrainLog, ars, reinforce

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
