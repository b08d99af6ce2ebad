"""The public entry points of [P26] for the bad-input conformance test."""

import numpy as np

from icml26.papers.affine_smooth import (
    LogisticRegression,
    SoftmaxBandit,
    TwoLayerNet,
    adagrad,
    adam,
    amsgrad,
    estimate_affine_smoothness,
    gd,
    heavy_ball,
    hessian_norm,
    iterations_to_eps,
    linear_rate,
    log_softplus_neg,
    lower_bound_instance,
    make_separable_data,
    normalized_gd,
    rmsprop,
    run_method,
    sign_gd,
    torch_optimizer,
)
from support.badinput import Entry

_X, _y = make_separable_data(8, 3, margin=0.2, seed=0)
_logistic = LogisticRegression(_X, _y)
_theta = np.array([0.3, -0.2, 0.1])
_log_f = np.log(0.9) * np.arange(6)
_adam = adam(lr=0.1, beta1=0.9, beta2=0.9)


def _hv(v: np.ndarray) -> np.ndarray:
    return 2.0 * v


def _torch_params() -> list:
    import torch

    return [torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))]


ENTRY_POINTS = [
    Entry("make_separable_data", make_separable_data, valid={"n": 8, "d": 3, "margin": 0.2, "seed": 0},
          kinds={"n": "int", "d": "int", "margin": "real", "seed": "seed"}),
    Entry("LogisticRegression", LogisticRegression, valid={"X": _X, "y": _y}, kinds={"X": "array", "y": "array"}),
    Entry("LogisticRegression.grad", _logistic.grad, valid={"theta": _theta}, kinds={"theta": "array"}),
    Entry("LogisticRegression.hess_vec", _logistic.hess_vec, valid={"theta": _theta, "v": _theta},
          kinds={"theta": "array", "v": "array"}),
    Entry("SoftmaxBandit", SoftmaxBandit, valid={"rewards": np.array([0.1, 0.9, 0.5])}, kinds={"rewards": "array"}),
    Entry("TwoLayerNet", TwoLayerNet,
          valid={"X": _X, "y": _y, "width": 4, "alpha": 0.2, "seed": 0, "init_scale": 0.1},
          kinds={"X": "array", "y": "array", "width": "int", "alpha": "real", "seed": "seed", "init_scale": "real"}),
    Entry("log_softplus_neg", log_softplus_neg, valid={"m": np.array([-2.0, 0.0, 40.0])}, kinds={"m": "array"},
          skip={"m:extra_dim": "elementwise: any shape is valid", "m:empty": "elementwise: an empty array maps to one"}),
    *[Entry(f.__name__, f, valid={"lr": 0.1}, kinds={"lr": "real"}) for f in (gd, sign_gd, normalized_gd, adagrad)],
    Entry("heavy_ball", heavy_ball, valid={"lr": 0.1, "momentum": 0.5}, kinds={"lr": "real", "momentum": "real"}),
    Entry("rmsprop", rmsprop, valid={"lr": 0.1, "beta2": 0.9, "eps": 0.0},
          kinds={"lr": "real", "beta2": "real", "eps": "real"}),
    *[Entry(f.__name__, f, valid={"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 0.0},
            kinds={"lr": "real", "beta1": "real", "beta2": "real", "eps": "real"}) for f in (adam, amsgrad)],
    Entry("GradientMethod.init", _adam.init, valid={"theta": _theta}, kinds={"theta": "array"}),
    Entry("GradientMethod.update", _adam.update, valid={"grad": _theta, "state": _adam.init(_theta), "theta": _theta},
          kinds={"grad": "array", "theta": "array"}),
    Entry("run_method", run_method,
          valid={"objective": lower_bound_instance(), "method": gd(lr=1.0), "iters": 3, "theta0": np.array([0.5]),
                 "keep": 2, "log_f_floor": -50.0},
          kinds={"iters": "int", "theta0": "array", "keep": "int", "log_f_floor": "real"}),
    Entry("linear_rate", linear_rate, valid={"log_f": _log_f, "window": 4}, kinds={"log_f": "array", "window": "int"}),
    Entry("iterations_to_eps", iterations_to_eps, valid={"log_f": _log_f, "eps": np.array([0.5, 0.1])},
          kinds={"log_f": "array", "eps": "array"}),
    Entry("hessian_norm", hessian_norm, valid={"hess_vec": _hv, "dim": 3, "iters": 5, "seed": 0},
          kinds={"dim": "int", "iters": "int", "seed": "seed"}),
    Entry("estimate_affine_smoothness", estimate_affine_smoothness,
          valid={"f": _logistic.loss, "grad": _logistic.grad, "hess_vec": _logistic.hess_vec,
                 "trajectory": np.array([_theta, 2 * _theta]), "power_iters": 5, "seed": 0},
          kinds={"trajectory": "array", "power_iters": "int", "seed": "seed"}),
    Entry("torch_optimizer", lambda name: torch_optimizer(_torch_params(), name, lr=0.1), valid={"name": "sign_gd"},
          kinds={"name": "str"}),
]
