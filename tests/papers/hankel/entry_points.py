"""The public entry points of [P03] for the bad-input conformance test."""

import numpy as np

from icml26.papers.hankel import hankel_complete, make_spectral_signal
from support.badinput import Entry

_x, _, _ = make_spectral_signal(31, 2, kappa=10.0, seed=0)
_mask = np.zeros(31, dtype=bool)
_mask[::2] = True


ENTRY_POINTS = [
    Entry("hankel_complete", hankel_complete,
          valid={"y": np.where(_mask, _x, 0), "mask": _mask, "rank": 2, "max_iter": 5, "seed": 0, "tol": 1e-8},
          kinds={"y": "carray", "rank": "int", "max_iter": "int", "seed": "seed", "tol": "real"}),
    Entry("make_spectral_signal", make_spectral_signal, valid={"n": 31, "rank": 2, "kappa": 10.0, "seed": 0},
          kinds={"n": "int", "rank": "int", "kappa": "real", "seed": "seed"}),
]
