"""Timing helpers of the speed claims of [P05]: rotated copies, paired rounds, median of per-round ratios."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.papers.macko._timing import (
    STREAM_BYTES,
    median_ratio_ci,
    n_copies,
    paired_rounds,
)


def test_n_copies_reaches_the_stream_size() -> None:
    assert n_copies(STREAM_BYTES) == 1
    assert n_copies(STREAM_BYTES + 1) == 1  # larger than the target: one copy streams anyway
    assert n_copies(STREAM_BYTES // 4) == 4
    assert n_copies(1000, 2500) == 3
    assert n_copies(1000, 0) == 1 and n_copies(0) == 1


def test_paired_rounds_rotate_order_and_copies() -> None:
    log: list[tuple[str, int]] = []
    fns = {k: [lambda k=k, j=j: log.append((k, j)) for j in range(n)] for k, n in (("a", 2), ("b", 1), ("c", 3))}
    t = paired_rounds(fns, 6)
    assert {k: v.shape for k, v in t.items()} == {"a": (6,), "b": (6,), "c": (6,)}
    timed = log[6:]  # after one warm-up call per copy (2 + 1 + 3)
    assert [k for k, _ in timed[:3]] == ["a", "b", "c"] and [k for k, _ in timed[3:6]] == ["b", "c", "a"]
    assert [j for k, j in timed if k == "c"] == [0, 1, 2, 0, 1, 2]
    assert [j for k, j in timed if k == "a"] == [0, 1, 0, 1, 0, 1]


def test_median_ratio_is_robust_to_one_slow_round() -> None:
    den = np.ones(11)
    num = np.full(11, 2.0)
    num[3] = 500.0  # one round disturbed by another process: a ratio of means would report ~47x
    est = median_ratio_ci(num, den, seed=0)
    assert est.value == 2.0 and est.lo <= 2.0 <= est.hi
    assert np.mean(num) / np.mean(den) > 40


def test_median_ratio_bad_input() -> None:
    with pytest.raises(ValueError, match="num and den"):
        median_ratio_ci(np.ones(3), np.ones(4), seed=0)


def test_device_time_cycles_through_the_copies() -> None:
    from icml26.papers.macko._timing import device_time

    calls: list[int] = []
    fns = [lambda i=i: calls.append(i) for i in range(3)]
    t = device_time(fns, calls=7, torch=None)
    assert t >= 0.0
    assert calls == [0, 1, 2] + [0, 1, 2, 0, 1, 2, 0]  # one warm-up each, then round robin
    with pytest.raises(ValueError, match="calls >= 1"):
        device_time(fns, calls=0, torch=None)
    with pytest.raises(ValueError, match="at least one function"):
        device_time([], calls=3, torch=None)
