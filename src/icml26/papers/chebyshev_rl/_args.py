"""Argument checks shared by the [P10] trainers and policies (on top of :mod:`icml26.common.validation`)."""

from __future__ import annotations

import numpy as np

from icml26.common import validation

__all__ = ["MAX_ELEMENTS", "generator", "positive_real"]

#: the largest array a basis, a coefficient matrix or a network may allocate (2**27 float64 = 1 GiB): a request
#: above it is refused before any memory is taken
MAX_ELEMENTS = 2**27


def generator(seed: object, name: str = "seed") -> np.random.Generator:
    """An explicit seed as a numpy ``Generator``: an int >= 0 or a ``Generator`` (returned as is); ``None`` refused."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(validation.seed(seed, name))


def positive_real(x: object, name: str) -> float:
    """A finite real number > 0 (bools and complex refused), naming ``name``."""
    return validation.real(x, name, lo=0.0, lo_open=True)
