"""The public entry points of [P34] for the bad-input conformance test (a tiny random OLMoE model)."""

import numpy as np

from icml26.papers.moe_tta import (
    RouterBias,
    adapt,
    build_olmoe,
    full_ttt,
    generate_with_rerouting,
    make_sequences,
    make_switch_sequences,
    routing_stats,
    select_layers,
    task_split,
)
from icml26.papers.moe_tta.claims import SMOKE_MODEL
from support.badinput import Entry

_model = build_olmoe(SMOKE_MODEL, seed=0)
_ids = np.random.default_rng(0).integers(0, 11, size=(2, 9))
_split = task_split(shift_held=(4,), cipher_keys=3, cipher_held=(2,))

ENTRY_POINTS = [
    Entry("select_layers", select_layers, valid={"model": _model, "ids": _ids, "k": 1, "by": "entropy"},
          kinds={"ids": "array", "k": "int", "by": "str"}),
    Entry("routing_stats", routing_stats, valid={"model": _model, "ids": _ids}, kinds={"ids": "array"}),
    Entry("adapt", adapt, valid={"model": _model, "ids": _ids, "layers": [0], "steps": 2, "lr": 0.1, "l2": 1e-3},
          kinds={"ids": "array", "layers": "array", "steps": "int", "lr": "posreal", "l2": "nonneg"}),
    Entry("RouterBias", RouterBias, valid={"model": _model, "layers": [0, 1], "batch": 2},
          kinds={"layers": "array", "batch": "int"}),
    Entry("generate_with_rerouting", generate_with_rerouting,
          valid={"model": _model, "prompt": _ids, "max_new_tokens": 3, "refit_every": 2, "steps": 1, "lr": 0.1,
                 "l2": 1e-3, "k": 1, "by": "entropy"},
          kinds={"prompt": "array", "max_new_tokens": "int", "refit_every": "int", "steps": "int", "lr": "posreal",
                 "l2": "nonneg", "k": "int", "by": "str"}),
    Entry("full_ttt", full_ttt, valid={"model": _model, "ids": _ids, "steps": 1, "lr": 1e-3},
          kinds={"ids": "array", "steps": "int", "lr": "posreal"}),
    Entry("task_split", task_split, valid={"shift_held": [4, 8], "cipher_keys": 4, "cipher_held": [1]},
          kinds={"shift_held": "array", "cipher_keys": "int", "cipher_held": "array"},
          skip={"shift_held:empty": "holding out no shift is valid", "cipher_held:empty": "holding out no cipher is "
                "valid"}),
    Entry("make_sequences", make_sequences,
          valid={"tasks": _split.train, "n": 4, "pairs": 3, "table_seed": 0, "seed": 0},
          kinds={"n": "int", "pairs": "int", "table_seed": "seed", "seed": "seed"}),
    Entry("make_switch_sequences", make_switch_sequences,
          valid={"tasks": _split.train, "n": 4, "first": 2, "second": 2, "table_seed": 0, "seed": 0},
          kinds={"n": "int", "first": "int", "second": "int", "table_seed": "seed", "seed": "seed"}),
]
