"""The shared seeding helpers: explicit seeds only, clear errors on bad ones."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.common.seeding import rng


def test_int_seed_is_reproducible_and_a_generator_passes_through() -> None:
    assert rng(5).integers(1 << 30) == rng(5).integers(1 << 30)
    assert rng(np.int64(5)).integers(1 << 30) == rng(5).integers(1 << 30)
    g = np.random.default_rng(1)
    assert rng(g) is g


@pytest.mark.parametrize("bad, exc, match", [(-1, ValueError, "seed must be >= 0"), (np.int32(-4), ValueError, "seed"),
                                             (True, TypeError, "seed must be an int"), (1.5, TypeError, "seed")])
def test_bad_seeds_are_named(bad, exc, match) -> None:
    with pytest.raises(exc, match=match):
        rng(bad)
