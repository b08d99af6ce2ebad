"""Chebyshev Policies and the Mountain Car Problem — Huber, Unger, Schäfer, Rehrl (ICML 2026) [P10].

https://arxiv.org/abs/2605.22305 — official code: JRC-ISIA/paper-2026-chebyshev-policies-low-dimensional-control-tasks.

**Method.** A *Chebyshev policy* normalises the state ``s`` in its box to ``z in [-1, 1]^n`` and outputs
``mu(s) = clip(C phi(z), -1, 1)`` (rescaled to the action box) with the tensor-product basis
``phi_i(z) = prod_j T_{i_j}(z_j)``, ``i in {0..d}^n`` (``d = 3``, ``n = 2``: 16 coefficients for Mountain Car,
against 4,417 for the 2-64-64-1 MLP). It is a drop-in policy class: :func:`ars` and :func:`reinforce` (ours, numpy /
torch) and :func:`ppo` (stable-baselines3 with a Chebyshev actor-critic as a custom policy) train it or the MLP.

**Optimal control (our derivation; the paper's closed form was not available to us).** With
``E = v^2/2 + (0.0025/3) sin 3x`` the dynamics give ``dE/dt = 0.0015 a v``; for a given velocity profile the cheapest
way to gain the energy the goal needs is ``a = k v`` (Cauchy-Schwarz, Eq. A1). Spending slightly more at high speed
pays, so the reference optimum is ``a = clip(k v (1 + c |v| / 0.07), -1, 1)`` (Eq. A2) with per-start ``(k, c)``
found by dense grid search + refinement on the exact dynamics: :func:`optimal_mountain_car_policy`,
:func:`optimal_mountain_car_return`. Regret (:func:`regret`) = mean over the 100 equidistant ``x0 in [-0.6, -0.4]``
of ``R*(x0) - R_pi(x0)``.

**Claims** (``claims.py``): ``optimum`` (R* reaches the goal everywhere, a denser 3-parameter family and no trained
agent beat it), ``mlp_gap`` (MLP-ARS / MLP-PPO regret CI above 0.5), ``regret_ratio`` (regret MLP/CH CI >= 2, paper
4.18; parameters 4417/16 = 276.06, paper "277"), ``consistent_gains`` (CH - MLP return CI > 0 for ARS, REINFORCE,
PPO on Mountain Car and ARS on Pendulum-v1).

**Deviations.** The optimum is our Eq. (A2), not the paper's analytic formula (unread); it improves the notes'
``a = k v`` (mean 99.35) to 99.46. Environments: numpy copies of MountainCarContinuous-v0 / Pendulum-v1 that match
gymnasium 1.x bit for bit (tested) for ARS, REINFORCE and all evaluation; PPO trains on gymnasium itself. Both policy
classes use the authors' CH hyper-parameters (ARS: delta_std 0.1, 4 directions, top 1, step 0.018; PPO: lr 1e-3,
n_steps 2048, batch 1048, 2 epochs, clip 0.4); the paper's MLP baselines may have used other (rl-zoo) settings.
The MLP (ours) has PyTorch-default initialisation and a clipped linear output. REINFORCE uses a fixed exploration
std 0.5 and a mean baseline. ``small`` budget: PPO 20K steps (paper 70K), REINFORCE 160K, Pendulum ARS 64K steps on a
20x20 start grid (paper 50x50); ARS on Mountain Car uses the paper's 80K steps.
"""

from ._envs import mc_rollout, mc_starts, pendulum_rollout
from ._optimal import optimal_gains, optimal_mountain_car_policy, optimal_mountain_car_return, policy_returns, regret
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
    "pendulum_rollout",
    "policy_returns",
    "ppo",
    "reinforce",
    "regret",
]
