"""The public entry points of [P37] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.papers.sparse_scaling import (
    R_D_star,
    R_N_star,
    RunConfig,
    SETMasker,
    density_factor,
    effective_data,
    fit_law,
    fit_repetition,
    iso_flop_optimum,
    loss_optimal_density,
    make_model,
    markov_corpus,
    n_star_unique,
    saturation_run,
    sparse_law,
)
from support.badinput import Entry

_N, _S = np.array([1e8, 4e8]), np.array([1.0, 0.5])
_chain = markov_corpus(vocab=4, order=1, concentration=0.5, seed=0)
_run = RunConfig(d_model=4, n_head=1, seq_len=4, unique_sequences=4, epochs=(1, 2), batch_size=2, val_sequences=2)
_model = make_model(_run, vocab=4, seed=0)
_runs = {"N_raw": np.array([1e8, 2e8, 4e8, 1e8]), "s": np.array([1.0, 1.0, 0.5, 0.5]),
         "U": np.array([1e9, 1e9, 1e9, 2e9]), "D": np.array([1e9, 4e9, 2e9, 2e9]),
         "loss": np.array([3.3, 3.1, 3.2, 3.25])}
_rep = {"s": np.array([1.0] * 3 + [0.5] * 3), "U": np.array([1e3, 2e3, 1e3] * 2), "D": np.array([1e3, 2e3, 2e3] * 2),
        "loss": np.array([3.0, 2.8, 2.9, 3.1, 2.9, 3.0])}
_EXTRA_DIM_OK = "a scalar with an extra dimension is a 1-D array, which broadcasts"

ENTRY_POINTS = [
    Entry("sparse_law", sparse_law, valid={"N_raw": _N, "s": _S, "U": 2.6e9, "D": 1e10},
          kinds={"N_raw": "array", "s": "array"}),
    Entry("R_D_star", R_D_star, valid={"s": _S}, kinds={"s": "array"}),
    Entry("R_N_star", R_N_star, valid={"s": _S}, kinds={"s": "array"}),
    Entry("density_factor", density_factor, valid={"s": _S}, kinds={"s": "array"}),
    Entry("n_star_unique", n_star_unique, valid={"U": np.array([1e9, 2e9]), "s": 0.5},
          kinds={"U": "array", "s": "posreal"}, skip={"s:extra_dim": _EXTRA_DIM_OK}),
    Entry("effective_data", effective_data, valid={"U": np.array([1e3, 1e3]), "D": np.array([1e3, 4e3]), "half_life": 4.0},
          kinds={"U": "array", "D": "array", "half_life": "posreal"}),
    Entry("fit_law", fit_law, valid={"runs": _runs, "free": ["e"], "grid": {"e": [0.9]}, "delta": 1e-3, "max_iter": 5,
                                     "max_starts": 4},
          kinds={"free": "str", "delta": "posreal", "max_iter": "int", "max_starts": "int"}),
    Entry("fit_repetition", fit_repetition, valid={"runs": _rep, "betas": [0.3], "half_lives": [4.0], "delta": 1e-3,
                                                   "max_iter": 5},
          kinds={"delta": "posreal", "max_iter": "int"}),
    Entry("loss_optimal_density", loss_optimal_density,
          valid={"U": 2.6e9, "N_raw": 5.2e8, "D": 4.16e10, "s_min": 0.05, "n_grid": 11},
          kinds={"U": "posreal", "N_raw": "posreal", "D": "posreal", "s_min": "posreal", "n_grid": "int"}),
    Entry("iso_flop_optimum", iso_flop_optimum, valid={"U": 1.3e9, "C": 1e20, "s_min": 0.2, "n_grid": 3},
          kinds={"U": "posreal", "C": "posreal", "s_min": "posreal", "n_grid": "int"}),
    Entry("markov_corpus", markov_corpus, valid={"vocab": 4, "order": 2, "concentration": 0.5, "seed": 0, "smoothing": 0.01},
          kinds={"vocab": "int", "order": "int", "concentration": "posreal", "seed": "seed", "smoothing": "posreal"}),
    Entry("MarkovChain.sample", _chain.sample, valid={"n_seq": 3, "length": 5, "seed": 0},
          kinds={"n_seq": "int", "length": "int", "seed": "seed"}),
    Entry("SETMasker", SETMasker, valid={"model": _model, "density": 0.5, "update_every": 2, "prune_rate": 0.3,
                                         "total_steps": 10, "generator": torch.Generator().manual_seed(0),
                                         "schedule": "cosine"},
          kinds={"density": "posreal", "update_every": "int", "prune_rate": "nonneg", "total_steps": "int",
                 "schedule": "str"}),
    Entry("make_model", make_model, valid={"cfg": _run, "vocab": 4, "seed": 0}, kinds={"vocab": "int", "seed": "seed"}),
    Entry("saturation_run", saturation_run, valid={"chain": _chain, "cfg": _run, "density": 0.5, "kind": "repeated",
                                                   "seed": 0, "val_seed": 1},
          kinds={"density": "posreal", "kind": "str", "seed": "seed", "val_seed": "seed"}),
]
