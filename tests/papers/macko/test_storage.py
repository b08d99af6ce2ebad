"""Storage formulas of [P05]: 20 bits per stored entry, padding z/(1-z), break-even densities."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.papers.macko import (
    break_even_density,
    csr_bytes,
    dense_fp16_bytes,
    macko_expected_bytes,
)


def test_expected_ratio_at_half_density() -> None:
    # 1.25 d (1 + z/(1-z)) with z = 0.5**16, plus 4 bytes per row
    r = macko_expected_bytes(4096, 4096, 0.5) / dense_fp16_bytes(4096, 4096)
    assert r == pytest.approx(0.625 * (1 + 0.5**16 / (1 - 0.5**16)) + 4 * 4097 / (2 * 4096**2))


def test_break_even_points() -> None:
    d = np.linspace(0.05, 1.0, 96)
    n = 1024
    mac = np.array([macko_expected_bytes(n, n, x) for x in d]) / dense_fp16_bytes(n, n)
    csr = np.array([csr_bytes(n, n, int(x * n * n)) for x in d]) / dense_fp16_bytes(n, n)
    assert break_even_density(d, mac) == pytest.approx(0.8, abs=0.005)  # 1.25 d = 1
    assert break_even_density(d, csr) == pytest.approx(1 / 3, abs=0.01)  # 3 d = 1
    assert np.isnan(break_even_density(d[:10], mac[:10]))


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="density"):
        macko_expected_bytes(2, 2, 1.5)
    with pytest.raises(ValueError, match="nnz"):
        csr_bytes(2, 2, -1)
    with pytest.raises(ValueError, match="densities and ratios"):
        break_even_density(np.ones(3), np.ones(2))
