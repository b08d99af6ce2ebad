"""The public entry points of [P11] for the bad-input conformance test."""

import numpy as np

from icml26.papers.reqat import fp4_quantize, make_problems, sem_weights
from support.badinput import Entry

_W = np.random.default_rng(0).normal(size=(4, 32))

ENTRY_POINTS = [
    Entry("fp4_quantize", fp4_quantize, valid={"x": _W, "scheme": "nvfp4", "kind": "weight"},
          kinds={"x": "array", "scheme": "str", "kind": "str"},
          skip={"x:extra_dim": "any number of dimensions is valid: blocks run along the last axis"}),
    Entry("sem_weights", sem_weights, valid={"entropies": np.array([0.1, 0.5, 1.0, 2.0]), "percentile": 75.0,
                                             "eps": 1e-6},
          kinds={"entropies": "array", "percentile": "posreal", "eps": "posreal"},
          skip={"entropies:extra_dim": "entropies of any shape are pooled"}),
    Entry("make_problems", make_problems, valid={"n": 5, "seed": 0, "min_terms": 2, "max_terms": 3, "low": 1,
                                                 "high": 9},
          kinds={"n": "int", "seed": "seed", "min_terms": "int", "max_terms": "int", "low": "int", "high": "int"}),
]
