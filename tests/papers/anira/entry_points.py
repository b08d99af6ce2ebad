"""The public entry points of [P23] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.papers.anira import (
                                 RecurrentConfig,
                                 RecurrentTransformer,
                                 act_halting,
                                 addition,
                                 by_difficulty,
                                 carry_lookback,
                                 depth_difficulty_rho,
                                 evaluate_tokens,
                                 geometric_prior,
                                 pointer_chasing,
                                 ponder_distribution,
                                 r_squared,
                                 sparse_forward,
                                 straight_through_depth,
                                 token_flops,
                                 topological_levels,
                                 train_recurrent,
)
from support.badinput import Entry

_task = pointer_chasing(4, n_vars=(3, 5), max_hops=2, n_names=8, n_values=4, seed=0)
_cfg = RecurrentConfig(vocab_sizes=_task.vocab_sizes, n_classes=_task.n_classes, d_model=8, n_head=2, d_ff=16,
                       max_depth=3, mode="online")
_model = RecurrentTransformer(_cfg, seed=0)
_run = np.zeros((4, 3, _task.x.shape[1]), dtype=bool)
_run[:, 0] = _task.mask
_depth = np.array([1.0, 2.0, 2.0, 3.0, 1.0])
_cfg_kinds = {"n_classes": "int", "d_model": "int", "max_depth": "int", "capacity": "posreal", "cost_weight": "nonneg",
              "prior": "posreal", "eps": "nonneg", "tau": "posreal", "halt_bias": "real", "mode": "str",
              "halting": "str", "positions": "str"}
_cfg_valid = {"vocab_sizes": (8, 12), "n_classes": 4, "d_model": 8, "n_head": 2, "d_ff": 16, "max_depth": 3,
              "capacity": 0.5, "cost_weight": 0.01, "prior": 0.3, "eps": 0.01, "tau": 1.0, "halt_bias": -1.0,
              "mode": "early", "halting": "act", "positions": "none"}

ENTRY_POINTS = [
    Entry("pointer_chasing", pointer_chasing,
          valid={"n_seqs": 3, "n_vars": (3, 5), "max_hops": 2, "n_names": 8, "n_values": 4, "seed": 0},
          kinds={"n_seqs": "int", "max_hops": "int", "n_names": "int", "n_values": "int", "seed": "seed"}),
    Entry("addition", addition, valid={"n_seqs": 3, "digits": (2, 4), "p_propagate": 0.3, "seed": 0},
          kinds={"n_seqs": "int", "p_propagate": "nonneg", "seed": "seed"},
          skip={"p_propagate:zero": "no pair forced to sum to 9 is a valid choice"}),
    Entry("topological_levels", topological_levels,
          valid={"n_seqs": 3, "n_nodes": (3, 5), "max_parents": 2, "window": 2, "p_source": 0.2, "n_names": 8,
                 "n_classes": 8, "seed": 0},
          kinds={"n_seqs": "int", "max_parents": "int", "window": "int", "p_source": "nonneg", "n_names": "int",
                 "n_classes": "int", "seed": "seed"}),
    Entry("carry_lookback", carry_lookback, valid={"a": np.array([1, 9, 3]), "b": np.array([9, 0, 2])},
          kinds={"a": "array", "b": "array"}),
    Entry("RecurrentConfig", RecurrentConfig, valid=_cfg_valid, kinds=_cfg_kinds),
    Entry("RecurrentTransformer", RecurrentTransformer, valid={"cfg": _cfg, "seed": 0}, kinds={"seed": "seed"}),
    Entry("RecurrentTransformer.forward", _model.eval(), valid={"x": _task.x, "mask": _task.mask},
          kinds={"x": "array"}),
    Entry("sparse_forward", sparse_forward, valid={"model": _model, "x": _task.x, "mask": _task.mask},
          kinds={"x": "array"}),
    Entry("token_flops", token_flops, valid={"cfg": _cfg, "run": _run, "mask": _task.mask},
          kinds={"run": "array", "mask": "array"}),
    Entry("train_recurrent", train_recurrent,
          valid={"model": _model, "task": _task, "steps": 1, "lr": 1e-3, "batch_size": 2, "seed": 0},
          kinds={"steps": "int", "lr": "posreal", "batch_size": "int", "seed": "seed"}),
    Entry("evaluate_tokens", evaluate_tokens, valid={"model": _model, "task": _task, "batch_size": 2},
          kinds={"batch_size": "int"}),
    Entry("straight_through_depth", straight_through_depth,
          valid={"logits": torch.zeros(2, 3), "tau": 1.0, "generator": None}, kinds={"tau": "posreal"}),
    Entry("act_halting", act_halting, valid={"p": torch.full((2, 3), 0.4), "eps": 0.01}, kinds={"eps": "nonneg"}),
    Entry("ponder_distribution", ponder_distribution, valid={"lam": torch.full((2, 3), 0.4), "eps": 0.01},
          kinds={"eps": "nonneg"}),
    Entry("geometric_prior", geometric_prior, valid={"lambda_p": 0.3, "depth": 4},
          kinds={"lambda_p": "posreal", "depth": "int"}),
    Entry("depth_difficulty_rho", depth_difficulty_rho,
          valid={"depth": _depth, "difficulty": np.array([0.0, 1, 2, 3, 0])},
          kinds={"depth": "array", "difficulty": "array"}),
    Entry("r_squared", r_squared, valid={"depth": _depth, "features": np.arange(10.0).reshape(5, 2) ** 2},
          kinds={"depth": "array", "features": "array"}),
    Entry("by_difficulty", by_difficulty, valid={"values": _depth, "difficulty": np.array([0.0, 1, 1, 2, 0])},
          kinds={"values": "array", "difficulty": "array"}),
]
