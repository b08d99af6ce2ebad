"""The [P12] approximation test problem: the gate offset (quadrature against Monte Carlo and a hand-derived limit),
the target's equivariance and missing linear part, the least-squares reference, the dense forward pass, a fit."""

import numpy as np
import pytest
import torch
from scipy import optimize

from icml26.papers.oenn import OENN, sheaf_symmetries
from icml26.papers.oenn._cases import build_case
from icml26.papers.oenn._uat import (
    basis_operators,
    best_linear_nmse,
    dense_forward,
    fit_width,
    gate_offset,
    make_target,
)

CASE = "C6-twisted-d2"


@pytest.mark.parametrize(("gain", "dof"), [(2.0, 2), (0.5, 2), (1.0, 3)])
def test_gate_offset_zeroes_the_moment(gain, dof):
    c = gate_offset(gain, dof=dof)
    t = np.random.default_rng(0).chisquare(dof, size=2_000_000)
    vals = t * np.tanh(gain * (t - c))
    assert abs(vals.mean()) < 4 * vals.std() / np.sqrt(t.size)


def test_gate_offset_sign_limit():
    # gain -> inf: E[t sign(t - c)] = 0 for t ~ chi2_2 means (c + 2) exp(-c/2) = 1 (by hand)
    c_inf = optimize.brentq(lambda c: (c + 2) * np.exp(-c / 2) - 1, 0.0, 20.0)
    assert gate_offset(500.0, dof=2) == pytest.approx(c_inf, abs=1e-3)
    with pytest.raises(ValueError, match="gain"):
        gate_offset(0.0, dof=2)


def test_target_is_equivariant_and_has_no_linear_part():
    ops = basis_operators(CASE, 0)
    f = make_target(ops, terms=8, gain=2.0, seed=3)
    _, sheaf = build_case(CASE, 0)
    x = np.random.default_rng(1).standard_normal((50, ops.dim))
    y = f(x)
    for g in sheaf_symmetries(sheaf).sample(5, seed=2):
        u = g.matrix(sheaf.offsets)
        assert np.abs(f(x @ u.T) - y @ u.T).max() <= 1e-10 * np.abs(y).max()
    big = np.random.default_rng(4).standard_normal((40_000, ops.dim))
    yb = f(big)
    _, test = best_linear_nmse(ops, big[:20_000], yb[:20_000], big[20_000:], yb[20_000:])
    assert test > 0.97  # population value 1 (Stein's lemma; module docstring), sampling error ~ K / n


def test_best_linear_recovers_a_linear_map():
    ops = basis_operators(CASE, 0)
    w = np.random.default_rng(5).standard_normal(len(ops))
    lin = np.einsum("k,kij->ij", w, ops.dense())
    x = np.random.default_rng(6).standard_normal((300, ops.dim))
    y = x @ lin.T
    tr, te = best_linear_nmse(ops, x[:200], y[:200], x[200:], y[200:])
    assert tr < 1e-20 and te < 1e-20


@pytest.mark.parametrize("width", [1, 5])
def test_dense_forward_matches_the_layers(width):
    ops = basis_operators(CASE, 0)
    net = OENN(ops, 1, width, 1, layers=2, seed=7, dtype=torch.float64)
    with torch.no_grad():
        net.layers[0].bias.normal_(generator=torch.Generator().manual_seed(8))
    x = torch.randn(6, ops.dim, 1, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    with torch.no_grad():
        assert torch.allclose(dense_forward(net, x), net(x), atol=1e-12, rtol=0)
    x.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: dense_forward(net, a), (x[:2],))


def test_fit_width_is_deterministic_and_learns():
    ops = basis_operators(CASE, 0)
    task = (ops, CASE, 4, 0, 128, 64, 30, 2, 2.0)
    a, b = fit_width(task), fit_width(task)
    assert a == b
    assert a["steps"] > 0 and np.isfinite(a["test_nmse"])
    assert a["train_nmse"] < 1.0  # better than predicting 0
    lin = fit_width((ops, CASE, 0, 0, 128, 64, 30, 2, 2.0))
    assert lin["steps"] == 0 and lin["params"] == len(ops)
    with pytest.raises(ValueError, match="terms"):
        make_target(ops, terms=0, gain=2.0, seed=0)
