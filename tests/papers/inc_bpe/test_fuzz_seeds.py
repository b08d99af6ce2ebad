"""Replays the fuzz target's seed corpus (fuzz_seeds/) through its entry function: fast, and keeps the target working."""

import pathlib

import pytest
from fuzz_inc_bpe import one_input

SEEDS = sorted((pathlib.Path(__file__).parent / "fuzz_seeds").iterdir())


def test_seed_corpus_is_small_and_present():
    assert len(SEEDS) >= 10
    assert all(p.stat().st_size <= 1024 for p in SEEDS)


@pytest.mark.parametrize("seed", SEEDS, ids=[p.name for p in SEEDS])
def test_fuzz_target_on_seed(seed):
    data = seed.read_bytes()
    one_input(data)
    for cut in (0, 1, len(data) // 2, 255):  # the same text with other streaming cut points
        one_input(bytes([cut]) + data[1:])
