"""The public entry points of [P36] for the bad-input conformance test."""

import numpy as np

from icml26.papers.ope_mnar import (
    MARIPWFQE,
    CompleteCaseFQE,
    LogisticPolicy,
    MNARSimulator,
    ShadowBridgeFQE,
    Trajectories,
    basis,
    fit_bridge,
    fitted_q_evaluation,
    shadow_relevance,
)
from support.badinput import Entry

_g = np.random.default_rng(0)
_n = 40
_s = _g.standard_normal(_n)
_r = _s + _g.standard_normal(_n)
_W = np.stack([np.ones(_n), _s], axis=1)
_X = (0.5 * _s + 2.0 * _r + 0.3 * _g.standard_normal(_n))[:, None]
_U = _r[:, None]
_sim = MNARSimulator()
_data = _sim.sample(1000, seed=0)
_pi = LogisticPolicy(coef=(0.0, 1.0), missing_coef=1.0)
_states = _g.standard_normal((5, 3, 2))
_actions = np.array([[0, 1]] * 5)
_obs = np.ones((5, 2), dtype=bool)
_DEGREE = "an int 1..3 is a polynomial degree, a valid feature sieve"

ENTRY_POINTS = [
    Entry("fit_bridge", fit_bridge, valid={"W": _W, "X": _X, "U": _U, "r": _r, "ridge": 1e-6},
          kinds={"W": "array", "X": "array", "U": "array", "r": "array", "ridge": "real"}),
    Entry("shadow_relevance", shadow_relevance, valid={"W": _W, "X": _X, "r": _r},
          kinds={"W": "array", "X": "array", "r": "array"}),
    Entry("basis", basis, valid={"spec": "quadratic", "x": _W[:, 1:]}, kinds={"spec": "str", "x": "array"},
          skip={"spec:int": _DEGREE}),
    Entry("LogisticPolicy", LogisticPolicy, valid={"coef": np.array([0.0, 1.0]), "intercept": 0.0, "missing_coef": 1.0},
          kinds={"coef": "array", "intercept": "real", "missing_coef": "real"}),
    Entry("MNARSimulator", MNARSimulator,
          valid={"horizon": 3, "shadow_strength": 0.8, "reward_noise": 1.0, "missing_slope": 1.5},
          kinds={"horizon": "int", "shadow_strength": "real", "reward_noise": "real", "missing_slope": "real"}),
    Entry("MNARSimulator.sample", _sim.sample, valid={"n": 20, "seed": 0}, kinds={"n": "int", "seed": "seed"}),
    Entry("MNARSimulator.true_value", _sim.true_value, valid={"policy": _pi, "n_mc": 1000, "seed": 0, "chunk": 500},
          kinds={"n_mc": "int", "seed": "seed", "chunk": "int"}),
    Entry("Trajectories", Trajectories,
          valid={"states": _states, "actions": _actions, "rewards": np.ones((5, 2)), "observed": _obs, "n_actions": 2},
          kinds={"states": "array", "actions": "array", "rewards": "array", "observed": "array", "n_actions": "int"},
          skip={"rewards:nan": "a NaN reward is valid where it is not observed; here every reward is observed, so "
                               "the NaN is refused by name (checked in test_data.py)"}),
    Entry("fitted_q_evaluation", fitted_q_evaluation,
          valid={"data": _data, "pseudo_rewards": np.nan_to_num(_data.rewards), "policy": _pi, "features": "linear",
                 "ridge": 1e-6},
          kinds={"pseudo_rewards": "array", "features": "str", "ridge": "real"}, skip={"features:int": _DEGREE}),
    Entry("ShadowBridgeFQE", ShadowBridgeFQE,
          valid={"features": "quadratic", "shadow_features": "linear", "ridge": 1e-6, "min_shadow_F": 10.0,
                 "on_unidentified": "raise", "random_state": 0},
          kinds={"features": "str", "shadow_features": "str", "ridge": "real", "min_shadow_F": "real",
                 "on_unidentified": "str", "random_state": "seed"},
          skip={"features:int": _DEGREE, "shadow_features:int": _DEGREE}),
    Entry("CompleteCaseFQE", CompleteCaseFQE, valid={"features": "quadratic", "ridge": 1e-6, "random_state": 0},
          kinds={"features": "str", "ridge": "real", "random_state": "seed"}, skip={"features:int": _DEGREE}),
    Entry("MARIPWFQE", MARIPWFQE, valid={"features": "quadratic", "ridge": 1e-6, "clip": 0.02, "random_state": 0},
          kinds={"features": "str", "ridge": "real", "clip": "real", "random_state": "seed"},
          skip={"features:int": _DEGREE}),
    Entry("ShadowBridgeFQE.estimate_interval", ShadowBridgeFQE().fit(_data).estimate_interval,
          valid={"target_policy": _pi, "n_boot": 3, "level": 0.9}, kinds={"n_boot": "int", "level": "real"}),
]
