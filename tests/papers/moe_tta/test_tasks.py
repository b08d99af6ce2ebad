"""[P34] the in-context task generators against brute force: every pair follows its task's map, the split is a
partition, the switch changes task exactly once."""

import numpy as np
import pytest

from icml26.papers.moe_tta import Task, make_sequences, make_switch_sequences, task_split, task_table
from icml26.papers.moe_tta._tasks import BOS

SPLIT = task_split(shift_held=(4, 8), cipher_keys=8, cipher_held=(6, 7))


def _brute_map(task: Task, x: int, table_seed: int) -> int:
    if task.family == "shift":
        y = x
        for _ in range(task.key):  # add one, k times, wrapping at 10
            y = 0 if y == 9 else y + 1
        return y
    return int(task_table(task, table_seed=table_seed)[x])


def test_shift_tables_by_brute_force():
    for k in range(1, 10):
        t = Task("shift", k)
        assert [int(v) for v in task_table(t, table_seed=0)] == [_brute_map(t, x, 0) for x in range(10)]


def test_cipher_tables_are_seeded_permutations():
    tabs = [task_table(Task("cipher", j), table_seed=0) for j in range(8)]
    assert all(sorted(t.tolist()) == list(range(10)) for t in tabs)
    assert len({tuple(t) for t in tabs}) == 8
    assert np.array_equal(tabs[3], task_table(Task("cipher", 3), table_seed=0))
    assert not np.array_equal(tabs[3], task_table(Task("cipher", 3), table_seed=1))


def test_the_split_is_a_partition_with_the_held_out_parameters():
    assert {(t.family, t.key) for t in SPLIT.held_out} == {("shift", 4), ("shift", 8), ("cipher", 6), ("cipher", 7)}
    assert not set(SPLIT.train) & set(SPLIT.held_out)
    assert len(SPLIT.train) + len(SPLIT.held_out) == 9 + 8


def test_every_pair_follows_its_task():
    tok, which = make_sequences(SPLIT.train, n=50, pairs=7, table_seed=0, seed=3)
    assert tok.shape == (50, 15) and (tok[:, 0] == BOS).all()
    for row, w in zip(tok, which):
        for x, y in zip(row[1::2], row[2::2]):
            assert y == _brute_map(SPLIT.train[w], int(x), 0)
    again, _ = make_sequences(SPLIT.train, n=50, pairs=7, table_seed=0, seed=3)
    other, _ = make_sequences(SPLIT.train, n=50, pairs=7, table_seed=0, seed=4)
    assert np.array_equal(tok, again) and not np.array_equal(tok, other)
    assert set(which.tolist()) == set(range(len(SPLIT.train)))  # every task drawn in 50 sequences


def test_the_switch_changes_task_once():
    tok, ab = make_switch_sequences(SPLIT.train, n=40, first=4, second=3, table_seed=0, seed=5)
    assert tok.shape == (40, 15) and (ab[:, 0] != ab[:, 1]).all()
    for row, (a, b) in zip(tok, ab):
        for j, (x, y) in enumerate(zip(row[1::2], row[2::2])):
            assert y == _brute_map(SPLIT.train[a if j < 4 else b], int(x), 0)


@pytest.mark.parametrize(("fn", "kw", "err", "match"), [
    (Task, {"family": "rotate", "key": 1}, ValueError, "family must be one of"),
    (Task, {"family": "shift", "key": 0}, ValueError, "key"),
    (Task, {"family": "shift", "key": 10}, ValueError, "key"),
    (task_split, {"shift_held": (0,), "cipher_keys": 2, "cipher_held": ()}, ValueError, "shift_held"),
    (task_split, {"shift_held": (), "cipher_keys": 2, "cipher_held": (2,)}, ValueError, "cipher_held"),
    (task_split, {"shift_held": range(1, 10), "cipher_keys": 1, "cipher_held": (0,)}, ValueError, "every task"),
    (make_sequences, {"tasks": [], "n": 2, "pairs": 2, "table_seed": 0, "seed": 0}, ValueError, "tasks"),
    (make_sequences, {"tasks": SPLIT.train, "n": 2, "pairs": 2, "table_seed": 0, "seed": None}, TypeError, "seed"),
    (make_switch_sequences, {"tasks": SPLIT.train[:1], "n": 2, "first": 1, "second": 1, "table_seed": 0, "seed": 0},
     ValueError, "at least 2 tasks"),
])
def test_bad_task_arguments_are_refused(fn, kw, err, match):
    with pytest.raises(err, match=match):
        fn(**kw)
