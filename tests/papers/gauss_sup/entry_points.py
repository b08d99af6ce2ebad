"""The public entry points of [P33] for the bad-input conformance test."""

import numpy as np

from icml26.papers.gauss_sup import (
    equal_split,
    expected_max,
    expected_max_and_grad,
    expected_sum_max,
    expected_sum_max_and_grad,
    greedy_buckets,
    mc_expected_max,
    mc_expected_sum_max,
    optimal_allocation_reference,
    project_to_sphere,
    ptas_grid_size,
    ptas_single,
)
from support.badinput import Entry

MU, SIGMA, SETS = np.array([0.0, 0.2, 0.1, 0.3]), np.full(4, 0.5), [[0, 1], [1, 2, 3]]
PAIR = {"mu": "array", "sigma": "array"}
MC = {"n_samples": 50, "seed": 0, "batch": 16}
MC_KINDS = {"n_samples": "int", "seed": "seed", "batch": "int"}

ENTRY_POINTS = [
    Entry("expected_max", expected_max, valid={"mu": MU, "sigma": SIGMA}, kinds=PAIR),
    Entry("expected_max_and_grad", expected_max_and_grad, valid={"mu": MU, "sigma": SIGMA}, kinds=PAIR),
    Entry("expected_sum_max", expected_sum_max, valid={"mu": MU, "sigma": SIGMA, "sets": SETS}, kinds=PAIR),
    Entry("expected_sum_max_and_grad", expected_sum_max_and_grad, valid={"mu": MU, "sigma": SIGMA, "sets": SETS},
          kinds=PAIR),
    Entry("mc_expected_max", mc_expected_max, valid={"mu": MU, "sigma": SIGMA, **MC}, kinds={**PAIR, **MC_KINDS}),
    Entry("mc_expected_max(cov)", mc_expected_max, valid={"mu": MU, "cov": np.eye(4) / 4, **MC},
          kinds={"mu": "array", "cov": "array", **MC_KINDS}),
    Entry("mc_expected_sum_max", mc_expected_sum_max, valid={"mu": MU, "sigma": SIGMA, "sets": SETS, **MC},
          kinds={**PAIR, **MC_KINDS}),
    Entry("optimal_allocation_reference", optimal_allocation_reference,
          valid={"mu": MU, "restarts": 1, "iters": 5, "tol": 1e-8, "seed": 0},
          kinds={"mu": "array", "restarts": "int", "iters": "int", "tol": "real", "seed": "seed"}),
    Entry("ptas_single", ptas_single, valid={"mu": MU, "eps": 0.5, "max_evaluations": 100, "chunk": 8},
          kinds={"mu": "array", "eps": "real", "max_evaluations": "int", "chunk": "int"}),
    Entry("ptas_grid_size", ptas_grid_size, valid={"n": 4, "eps": 0.5}, kinds={"n": "int", "eps": "real"}),
    Entry("greedy_buckets", greedy_buckets, valid={"mu": MU, "sets": SETS}, kinds={"mu": "array"}),
    Entry("equal_split", equal_split, valid={"n": 4, "support": np.array([0, 2])},
          kinds={"n": "int", "support": "array"}),
    Entry("project_to_sphere", project_to_sphere, valid={"x": np.array([0.5, -0.2, 1.0])}, kinds={"x": "array"}),
]
