"""The public entry points of [P01] for the bad-input conformance test."""

import numpy as np

from icml26.papers.capacity import (
    MarkovChain,
    SweepPoint,
    TrainConfig,
    UniformReference,
    capacity_sweep,
    code_lengths,
    fit_bits_per_param,
    fit_to_plateau,
    make_model,
    membership_inference,
    memorization_bits,
    plateau_reached,
    unintended_memorization,
)
from support.badinput import Entry

V, S = 4, 4
_model = make_model(1, 4, vocab_size=V, seq_len=S, seed=0)
_x = np.random.default_rng(0).integers(0, V, size=(6, S))
_ref = UniformReference(V)
_tiny = TrainConfig(lr=1e-2, batch_size=4, max_steps=4, eval_every=2, patience=1)
_chain = MarkovChain.random(V, concentration=0.5, seed=0)

ENTRY_POINTS = [
    Entry("code_lengths", code_lengths, valid={"model": _model, "dataset": _x, "batch_size": 4},
          kinds={"dataset": "array", "batch_size": "int"}),
    Entry("unintended_memorization", unintended_memorization, valid={"model": _model, "dataset": _x, "reference": _ref},
          kinds={"dataset": "array"}),
    Entry("memorization_bits", memorization_bits, valid={"model": _model, "dataset": _x, "reference": _chain},
          kinds={"dataset": "array"}),
    Entry("membership_inference", membership_inference, valid={"model": _model, "members": _x[:3], "non_members": _x[3:]},
          kinds={"members": "array", "non_members": "array"}),
    Entry("make_model", make_model, valid={"n_layer": 1, "d_model": 4, "vocab_size": V, "seq_len": S, "n_head": 2, "seed": 0},
          kinds={"n_layer": "int", "d_model": "int", "vocab_size": "int", "seq_len": "int", "n_head": "int", "seed": "seed"}),
    Entry("fit_to_plateau", fit_to_plateau,
          valid={"model": make_model(1, 4, vocab_size=V, seq_len=S, seed=1), "dataset": _x, "config": _tiny, "seed": 0},
          kinds={"dataset": "array", "seed": "seed"}),
    Entry("TrainConfig", TrainConfig,
          valid={"lr": 1e-2, "batch_size": 4, "max_steps": 4, "eval_every": 2, "patience": 1, "min_delta_bits": 0.0,
                 "rel_tol": 0.0, "lr_decay": 1.0, "n_decays": 0, "min_epochs": 0.0, "weight_decay": 0.0},
          kinds={"lr": "real", "batch_size": "int", "max_steps": "int", "eval_every": "int", "patience": "int",
                 "min_delta_bits": "real", "rel_tol": "real", "lr_decay": "real", "n_decays": "int",
                 "min_epochs": "real", "weight_decay": "real"}),
    Entry("plateau_reached", plateau_reached,
          valid={"loss_bits": np.array([2.0, 1.9, 1.89]), "vocab_size": V, "patience": 1, "min_delta_bits": 0.05,
                 "rel_tol": 0.0},
          kinds={"loss_bits": "array", "vocab_size": "int", "patience": "int", "min_delta_bits": "real",
                 "rel_tol": "real"}),
    Entry("fit_bits_per_param", fit_bits_per_param,
          valid={"n_params": np.array([100.0, 200.0, 400.0]), "capacity_bits": np.array([350.0, 730.0, 1400.0]),
                 "n_boot": 50, "seed": 0},
          kinds={"n_params": "array", "capacity_bits": "array", "n_boot": "int", "seed": "seed"}),
    Entry("capacity_sweep", capacity_sweep,
          valid={"model_sizes": [(1, 4)], "dataset_sizes": [4], "seeds": (0,), "vocab_size": V, "seq_len": S,
                 "data": "uniform", "concentration": 0.1, "n_head": 2, "train": _tiny},
          kinds={"dataset_sizes": "array", "vocab_size": "int", "seq_len": "int", "data": "str",
                 "concentration": "real", "n_head": "int"}),
    Entry("SweepPoint", SweepPoint,
          valid={"n_layer": 1, "d_model": 4, "n_sequences": 4, "seed": 0, "vocab_size": V, "seq_len": S,
                 "data": "markov", "concentration": 0.1, "n_head": 2, "train": _tiny},
          kinds={"n_layer": "int", "d_model": "int", "n_sequences": "int", "seed": "seed", "vocab_size": "int",
                 "seq_len": "int", "data": "str", "concentration": "real", "n_head": "int"}),
    Entry("UniformReference", UniformReference, valid={"vocab_size": V}, kinds={"vocab_size": "int"}),
    Entry("MarkovChain", MarkovChain, valid={"initial": _chain.initial, "transition": _chain.transition},
          kinds={"initial": "prob", "transition": "array"}),
    Entry("MarkovChain.random", MarkovChain.random, valid={"vocab_size": V, "concentration": 0.5, "seed": 0},
          kinds={"vocab_size": "int", "concentration": "real", "seed": "seed"}),
    Entry("MarkovChain.sample", _chain.sample, valid={"n": 5, "seq_len": S, "seed": 0},
          kinds={"n": "int", "seq_len": "int", "seed": "seed"}),
]
