"""The public entry points of [P14] for the bad-input conformance test."""

import numpy as np

from icml26.papers.dfo import (
    AllenCahn,
    GaussianSum,
    LinearAdvection,
    TanhNetwork,
    allen_cahn_fft,
    dirac_frenkel_velocity,
    evolve,
    total_variation,
    velocity_and_info,
)
from support.badinput import Entry

_X = np.linspace(-3.0, 4.0, 20)
_THETA = np.array([0.5, 0.5, 0.0, 1e-3, 0.0, 0.0])
_J = GaussianSum(2).jacobian(_THETA, _X)
_F = -GaussianSum(2).derivatives(_THETA, _X, order=1)[1]
_VEL = {"J": _J, "F": _F, "method": "dfo", "tol": 1e-4, "history": np.ones(6)}
_VEL_KINDS = {"J": "array", "F": "array", "method": "str", "tol": "real", "history": "array"}
_TIK = {"J": _J, "F": _F, "method": "tikhonov", "reg": 1e-3}
_EVOLVE = {"ansatz": GaussianSum(1), "rhs": LinearAdvection(speed=1.0), "theta0": np.array([1.0, 0.0, 0.0]),
           "t_span": np.array([0.0, 0.1]), "x": _X, "dt": 0.05, "method": "dfo", "tol": 1e-4, "tau": 0.1,
           "scheme": "rk2", "max_abs": 1e3}
_EVOLVE_KINDS = {"theta0": "array", "t_span": "array", "x": "array", "dt": "real", "method": "str", "tol": "real",
                 "tau": "real", "scheme": "str", "max_abs": "real"}
_TV_SKIP = "a trajectory that stopped before its first step has no velocities: its total variation is 0"

ENTRY_POINTS = [
    Entry("dirac_frenkel_velocity", dirac_frenkel_velocity, valid=_VEL, kinds=_VEL_KINDS),
    Entry("dirac_frenkel_velocity(tikhonov)", dirac_frenkel_velocity, valid=_TIK, kinds={"reg": "real"}),
    Entry("velocity_and_info", velocity_and_info, valid=_VEL, kinds=_VEL_KINDS),
    Entry("evolve", evolve, valid=_EVOLVE, kinds=_EVOLVE_KINDS),
    Entry("total_variation", total_variation, valid={"velocity": np.ones((4, 3))}, kinds={"velocity": "array"},
          skip={"velocity:empty": _TV_SKIP}),
    Entry("GaussianSum", GaussianSum, valid={"n_units": 2}, kinds={"n_units": "int"}),
    Entry("TanhNetwork", TanhNetwork, valid={"n_units": 2}, kinds={"n_units": "int"}),
    Entry("GaussianSum.jacobian", GaussianSum(2).jacobian, valid={"theta": _THETA, "x": _X},
          kinds={"theta": "array", "x": "array"}),
    Entry("TanhNetwork.derivatives", TanhNetwork(1).derivatives,
          valid={"theta": np.array([0.0, 1.0, 2.0, 0.5]), "x": _X, "order": 2},
          kinds={"theta": "array", "x": "array", "order": "int"}),
    Entry("LinearAdvection", LinearAdvection, valid={"speed": 1.0}, kinds={"speed": "real"}),
    Entry("AllenCahn", AllenCahn, valid={"eps": 0.1, "a": -0.5}, kinds={"eps": "real", "a": "real"}),
    Entry("allen_cahn_fft", allen_cahn_fft,
          valid={"u0": np.tanh(np.linspace(-3.0, 3.0, 16)), "length": 6.0, "pde": AllenCahn(eps=0.1, a=0.0),
                 "t_end": 0.01, "dt": 1e-3},
          kinds={"u0": "array", "length": "real", "t_end": "real", "dt": "real"}),
]
