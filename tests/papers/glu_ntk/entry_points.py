"""The public entry points of [P21] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.papers.glu_ntk import (
    TwoLayerMLP,
    count_params,
    digits_split,
    empirical_ntk,
    gaussian_regression_task,
    jacobian,
    linearized_gd_losses,
    loss_crossing,
    make_mlp,
    matched_glu_width,
    ntk_spectrum_stats,
    steps_to_target,
    train_classifier,
    train_regression,
)
from support.badinput import Entry

_task = gaussian_regression_task(6, 3, seed=0)
_net = make_mlp("reglu", in_dim=3, width=8, seed=0)
_K = empirical_ntk(_net, _task.X).numpy()
_r0 = -_task.y.numpy()
_eta = 1.0 / float(np.linalg.eigvalsh(_K)[-1])
_digits = digits_split(seed=0, n_max=100)

ENTRY_POINTS = [
    Entry("make_mlp", make_mlp, valid={"kind": "reglu", "in_dim": 3, "width": 8, "out_dim": 1, "seed": 0},
          kinds={"kind": "str", "in_dim": "int", "width": "int", "out_dim": "int", "seed": "seed"}),
    Entry("TwoLayerMLP", TwoLayerMLP, valid={"kind": "relu", "in_dim": 3, "hidden": 4, "out_dim": 2, "seed": 0},
          kinds={"kind": "str", "in_dim": "int", "hidden": "int", "out_dim": "int", "seed": "seed"}),
    Entry("count_params", count_params, valid={"kind": "geglu", "in_dim": 3, "hidden": 4, "out_dim": 2},
          kinds={"kind": "str", "in_dim": "int", "hidden": "int", "out_dim": "int"}),
    Entry("matched_glu_width", matched_glu_width, valid={"width": 100, "in_dim": 75, "out_dim": 1},
          kinds={"width": "int", "in_dim": "int", "out_dim": "int"}),
    Entry("empirical_ntk", empirical_ntk, valid={"model": _net, "X": _task.X.numpy()}, kinds={"X": "array"}),
    Entry("jacobian", jacobian, valid={"model": _net, "X": _task.X.numpy()}, kinds={"X": "array"}),
    Entry("ntk_spectrum_stats", ntk_spectrum_stats, valid={"K": _K, "quantiles": np.array([0.1, 0.9])},
          kinds={"K": "array", "quantiles": "array"}),
    Entry("linearized_gd_losses", linearized_gd_losses, valid={"K": _K, "r0": _r0, "eta": _eta, "steps": 5},
          kinds={"K": "array", "r0": "array", "eta": "real", "steps": "int"}),
    Entry("steps_to_target", steps_to_target,
          valid={"K": _K, "r0": _r0, "eta": _eta, "rel_target": 0.1, "max_steps": 1000},
          kinds={"K": "array", "r0": "array", "eta": "real", "rel_target": "real", "max_steps": "int"}),
    Entry("loss_crossing", loss_crossing,
          valid={"loss_nonglu": np.array([1.0, 0.5, 0.3, 0.2]), "loss_glu": np.array([1.0, 0.7, 0.25, 0.1]),
                 "margin": 0.0},
          kinds={"loss_nonglu": "array", "loss_glu": "array", "margin": "real"}),
    Entry("gaussian_regression_task", gaussian_regression_task, valid={"n": 5, "d": 3, "noise": 0.1, "seed": 0},
          kinds={"n": "int", "d": "int", "noise": "real", "seed": "seed"}),
    Entry("train_regression", train_regression,
          valid={"model": make_mlp("relu", in_dim=3, width=4, seed=1), "task": _task, "lr": 0.01, "epochs": 2,
                 "batch_size": 3, "seed": 0},
          kinds={"lr": "real", "epochs": "int", "batch_size": "int", "seed": "seed"}),
    Entry("digits_split", digits_split, valid={"test_fraction": 0.5, "n_max": 60, "seed": 0},
          kinds={"test_fraction": "real", "n_max": "int", "seed": "seed"}),
    Entry("train_classifier", train_classifier,
          valid={"model": make_mlp("relu", in_dim=64, width=4, out_dim=10, seed=0, dtype=torch.float32),
                 "data": _digits, "lr": 1e-3, "weight_decay": 0.01, "epochs": 1, "batch_size": 16, "seed": 0},
          kinds={"lr": "real", "weight_decay": "real", "epochs": "int", "batch_size": "int", "seed": "seed"}),
]
