"""Parameterised in-context tasks for the [P34] reproduction (notes §4, scaled to single-digit maps).

A task maps a digit x ∈ {0..9} to y = f_θ(x), with a hidden parameter θ per sequence:

- ``shift``  (θ = k ∈ 1..9): y = (x + k) mod 10 (modular add-k);
- ``cipher`` (θ = j): y = π_j(x), π_j a fixed permutation of the ten digits drawn from ``table_seed`` and j
  (a substitution map; the notes' affine and rotate families are such maps too).

A sequence is ``[BOS, x1, y1, x2, y2, ...]`` (tokens 0-9 are digits, 10 is BOS): in-context demonstrations of one
task, its parameter never shown. Held-out tasks are parameter values never seen in training.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml26.common.validation import choice, int_array, int_at_least, positive_int
from icml26.common.validation import seed as check_seed

__all__ = ["BOS", "DIGITS", "FAMILIES", "VOCAB", "Task", "TaskSplit", "make_sequences", "make_switch_sequences",
           "task_split", "task_table"]

DIGITS = 10
BOS = 10
VOCAB = 11
FAMILIES = ("shift", "cipher")


@dataclass(frozen=True)
class Task:
    """[P34] one in-context task: a family and its hidden parameter."""

    family: str
    key: int

    def __post_init__(self) -> None:
        choice(self.family, "family", FAMILIES)
        lo, hi = (1, DIGITS - 1) if self.family == "shift" else (0, None)
        int_at_least(self.key, "key", lo, hi=hi)


def task_table(task: Task, *, table_seed: int) -> np.ndarray:
    """[P34] the map of ``task`` as a table (10,): ``table[x] = f_θ(x)``."""
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task, got {type(task).__name__}")
    table_seed = check_seed(table_seed, "table_seed")
    if task.family == "shift":
        return (np.arange(DIGITS) + task.key) % DIGITS
    return np.random.default_rng([table_seed, task.key]).permutation(DIGITS)


@dataclass(frozen=True)
class TaskSplit:
    """[P34] the training tasks and the held-out ones (parameter values never seen in training)."""

    train: tuple[Task, ...]
    held_out: tuple[Task, ...]


def _int_set(x: Sequence[int], name: str) -> set[int]:
    if isinstance(x, (list, tuple, range)) and len(x) == 0:
        return set()
    return {int(v) for v in int_array(x, name, ndim=1, allow_empty=True)}


def task_split(*, shift_held: Sequence[int], cipher_keys: int, cipher_held: Sequence[int]) -> TaskSplit:
    """[P34] shifts 1..9 and ciphers 0..cipher_keys-1, the listed parameters held out of training."""
    n = positive_int(cipher_keys, "cipher_keys")
    sh, ch = _int_set(shift_held, "shift_held"), _int_set(cipher_held, "cipher_held")
    if not sh <= set(range(1, DIGITS)):
        raise ValueError(f"shift_held must lie in 1..9, got {sorted(sh)}")
    if not ch <= set(range(n)):
        raise ValueError(f"cipher_held must lie in 0..{n - 1}, got {sorted(ch)}")
    every = [Task("shift", k) for k in range(1, DIGITS)] + [Task("cipher", j) for j in range(n)]
    held = tuple(t for t in every if t.key in (sh if t.family == "shift" else ch))
    train = tuple(t for t in every if t not in held)
    if not train:
        raise ValueError("shift_held, cipher_held: every task is held out, none is left to train on")
    return TaskSplit(train=train, held_out=held)


def _tables(tasks: Sequence[Task], table_seed: int) -> np.ndarray:
    if not tasks:
        raise ValueError("tasks must not be empty")
    return np.stack([task_table(t, table_seed=table_seed) for t in tasks])


def _tokens(ys_from: np.ndarray, xs: np.ndarray) -> np.ndarray:
    n, m = xs.shape
    seq = np.empty((n, 2 * m + 1), dtype=np.int64)
    seq[:, 0] = BOS
    seq[:, 1::2] = xs
    seq[:, 2::2] = ys_from
    return seq


def make_sequences(tasks: Sequence[Task], *, n: int, pairs: int, table_seed: int,
                   seed: int) -> tuple[np.ndarray, np.ndarray]:
    """[P34] ``n`` sequences of ``pairs`` demonstrations, each of a task drawn uniformly from ``tasks``.

    Returns (tokens (n, 2·pairs + 1), task index into ``tasks`` (n,)); inputs x are uniform digits.
    """
    n, pairs = positive_int(n, "n"), positive_int(pairs, "pairs")
    tab = _tables(tasks, check_seed(table_seed, "table_seed"))
    g = np.random.default_rng(check_seed(seed))
    which = g.integers(len(tasks), size=n)
    xs = g.integers(DIGITS, size=(n, pairs))
    ys = tab[which[:, None], xs]
    return _tokens(ys, xs), which


def make_switch_sequences(tasks: Sequence[Task], *, n: int, first: int, second: int, table_seed: int,
                          seed: int) -> tuple[np.ndarray, np.ndarray]:
    """[P34] sequences whose task switches once: ``first`` pairs of task A, then ``second`` pairs of task B ≠ A.

    Returns (tokens (n, 2·(first + second) + 1), task indices (n, 2) into ``tasks``: A then B).
    """
    n, first, second = positive_int(n, "n"), positive_int(first, "first"), positive_int(second, "second")
    if len(tasks) < 2:
        raise ValueError(f"tasks: a switch needs at least 2 tasks, got {len(tasks)}")
    tab = _tables(tasks, check_seed(table_seed, "table_seed"))
    g = np.random.default_rng(check_seed(seed))
    a = g.integers(len(tasks), size=n)
    b = (a + 1 + g.integers(len(tasks) - 1, size=n)) % len(tasks)  # uniform over the other tasks
    xs = g.integers(DIGITS, size=(n, first + second))
    which = np.where(np.arange(first + second)[None, :] < first, a[:, None], b[:, None])
    ys = tab[which, xs]
    return _tokens(ys, xs), np.stack([a, b], axis=1)
