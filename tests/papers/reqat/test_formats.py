"""[P11] element formats and block scales against enumerated grids, brute force and torch's float8 cast."""

import itertools
import math

import numpy as np
import pytest
import torch

from icml26.papers.reqat import E1M2, E2M1, E4M3, round_to_format
from icml26.papers.reqat._formats import e4m3_round, e8m0_scale


def _bits_value(sign: int, e: int, m: int, exp_bits: int, man_bits: int, bias: int) -> float:
    """IEEE-style decoding written independently of MiniFloat.decode."""
    if e == 0:
        mag = (m / 2 ** man_bits) * 2.0 ** (1 - bias)
    else:
        mag = (1 + m / 2 ** man_bits) * 2.0 ** (e - bias)
    return -mag if sign else mag


def test_e2m1_and_e1m2_grids_are_the_specified_values():
    assert E2M1.grid() == (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
    assert E1M2.grid() == (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75)
    assert E2M1.max_value == 6.0 and E1M2.max_value == 1.75 and E4M3.max_value == 448.0
    assert E2M1.emax == 2 and E1M2.emax == 0 and E4M3.emax == 8


def test_e4m3_grid_matches_bit_decoding_and_torch():
    vals = sorted({abs(_bits_value(0, e, m, 4, 3, 7)) for e in range(16) for m in range(8) if (e, m) != (15, 7)})
    assert list(E4M3.grid()) == vals and len(vals) == 127
    codes = torch.arange(0, 127, dtype=torch.uint8).view(torch.float8_e4m3fn).float()  # torch's own decoding
    assert codes.tolist() == vals


def _brute(x: float, grid: tuple[float, ...]) -> float:
    """Nearest grid value by enumeration; at an exact tie the even code (index) wins; saturates."""
    a = abs(x)
    best = min(range(len(grid)), key=lambda i: (abs(grid[i] - a), i % 2))
    return math.copysign(grid[best], x) if grid[best] else 0.0


@pytest.mark.parametrize("fmt", [E2M1, E1M2, E4M3], ids=lambda f: f.name)
def test_rounding_equals_brute_force_on_every_midpoint_and_between(fmt):
    g = fmt.grid()
    mids = [(a + b) / 2 for a, b in itertools.pairwise(g)]
    rng = np.random.default_rng(0)
    probes = [*g, *mids, *np.nextafter(mids, 0), *np.nextafter(mids, np.inf), g[-1] * 1.01, g[-1] * 100,
              *rng.uniform(0, g[-1] * 1.2, 200)]
    probes = [float(np.float32(p)) for p in probes]
    xs = torch.tensor(probes + [-p for p in probes], dtype=torch.float32)
    got = round_to_format(xs, fmt).tolist()
    want = [_brute(float(x), g) for x in xs.tolist()]
    assert got == pytest.approx(want, abs=0.0)


def test_e2m1_ties_go_to_the_even_code():
    x = torch.tensor([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -5.0])
    assert round_to_format(x, E2M1).tolist() == [0.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, -4.0]


def test_e4m3_rounding_matches_torch_float8():
    rng = np.random.default_rng(1)
    x = torch.tensor(np.exp(rng.uniform(np.log(1e-4), np.log(400), 5000)), dtype=torch.float32)
    assert torch.equal(round_to_format(x, E4M3), x.to(torch.float8_e4m3fn).float())
    assert torch.equal(e4m3_round(x), round_to_format(x, E4M3))
    assert e4m3_round(torch.tensor([1e4])).item() == 448.0  # saturates


def test_e8m0_scale_is_the_mx_power_of_two():
    amax = torch.tensor([6.0, 7.9, 8.0, 0.3, 1e-30, 0.0, 3.0])
    got = e8m0_scale(amax, E2M1)
    want = [2.0 ** (math.floor(math.log2(a)) - 2) if a > 0 else 2.0 ** -127 for a in amax.tolist()]
    assert got.tolist() == pytest.approx(want, rel=0.0)
    assert e8m0_scale(torch.tensor([1.75, 2.0]), E1M2).tolist() == [1.0, 2.0]
