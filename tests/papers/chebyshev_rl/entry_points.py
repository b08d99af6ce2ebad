"""The public entry points of [P10] for the bad-input conformance test."""

import numpy as np

from icml26.papers.chebyshev_rl import (
    ChebyshevPolicy,
    MLPPolicy,
    ars,
    chebyshev_features,
    chebyshev_T,
    mc_rollout,
    mc_starts,
    optimal_mountain_car_return,
    optimal_params,
    pendulum_rollout,
    policy_returns,
    ppo,
    regret,
    reinforce,
)
from support.badinput import Entry

LOW, HIGH = np.array([-1.2, -0.07]), np.array([0.6, 0.07])
STARTS = mc_starts(100)[:2]  # tabulated starts: the reference optimum is only re-simulated


def _zero(obs):
    return np.zeros((obs.shape[0], 1))


def _policy():
    return ChebyshevPolicy(LOW, HIGH, 1, degree=1)


ENTRY_POINTS = [
    Entry("chebyshev_T", chebyshev_T, valid={"z": np.linspace(-1.0, 1.0, 5), "degree": 3},
          kinds={"z": "array", "degree": "int"}, skip={"z:extra_dim": "T_k is defined elementwise on any shape"}),
    Entry("chebyshev_features", chebyshev_features, valid={"z": np.zeros((4, 2)), "degree": 3},
          kinds={"z": "array", "degree": "int"}),
    Entry("mc_starts", mc_starts, valid={"n": 10}, kinds={"n": "int"}),
    Entry("mc_rollout", mc_rollout, valid={"policy": _zero, "x0": np.array([-0.5, -0.45]), "max_steps": 5},
          kinds={"x0": "array", "max_steps": "int"}),
    Entry("pendulum_rollout", pendulum_rollout,
          valid={"policy": _zero, "theta0": np.array([0.1, 0.2]), "thetadot0": np.array([0.0, 0.5]), "max_steps": 5},
          kinds={"theta0": "array", "thetadot0": "array", "max_steps": "int"}),
    Entry("ChebyshevPolicy", ChebyshevPolicy,
          valid={"obs_low": LOW, "obs_high": HIGH, "action_dim": 1, "degree": 3, "exploration_std": 0.5},
          kinds={"obs_low": "array", "obs_high": "array", "action_dim": "int", "degree": "int",
                 "exploration_std": "real"}),
    Entry("MLPPolicy", MLPPolicy, valid={"obs_dim": 2, "action_dim": 1, "hidden": (8, 8), "seed": 0},
          kinds={"obs_dim": "int", "action_dim": "int", "seed": "seed"}),
    Entry("ars", ars, valid={"policy": _policy(), "env": "mc", "total_steps": 1, "n_delta": 2, "n_top": 1,
                             "step_size": 0.018, "delta_std": 0.1, "seed": 0},
          kinds={"env": "str", "total_steps": "int", "n_delta": "int", "n_top": "int", "step_size": "real",
                 "delta_std": "real", "seed": "seed"}),
    Entry("reinforce", reinforce, valid={"policy": _policy(), "env": "mc", "total_steps": 1, "batch_episodes": 2,
                                         "lr": 0.01, "seed": 0},
          kinds={"env": "str", "total_steps": "int", "batch_episodes": "int", "lr": "real", "seed": "seed"}),
    Entry("optimal_params", optimal_params, valid={"x0": STARTS}, kinds={"x0": "array"}),
    Entry("optimal_mountain_car_return", optimal_mountain_car_return, valid={"x0": STARTS}, kinds={"x0": "array"}),
    Entry("policy_returns", policy_returns, valid={"policy": _zero, "starts": STARTS}, kinds={"starts": "array"}),
    Entry("regret", regret, valid={"policy": _zero, "starts": STARTS}, kinds={"starts": "array"}),
    Entry("ppo", ppo, valid={"kind": "chebyshev", "env": "mc", "total_steps": 64, "seed": 0, "n_envs": 1},
          kinds={"kind": "str", "env": "str", "total_steps": "int", "seed": "seed", "n_envs": "int"}),
]
