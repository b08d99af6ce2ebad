"""Timing helpers of the speed claims of [P05]: rotated copies and paired rounds (their ratios: test_rules.py)."""

from __future__ import annotations

import pytest

from icml26.papers.macko._timing import (
    STREAM_BYTES,
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
