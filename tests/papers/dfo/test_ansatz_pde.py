"""Ansaetze (finite-difference Jacobians), PDE reference solver (known solutions), and the integrator."""

import numpy as np
import pytest

from icml26.papers.dfo import (
    AllenCahn,
    GaussianSum,
    LinearAdvection,
    TanhNetwork,
    allen_cahn_fft,
    evolve,
    total_variation,
)

X = np.linspace(-4.0, 5.0, 40)
ANSATZE = [
    (GaussianSum(3), np.array([0.7, -0.3, 1.1, -1.0, 0.5, 2.0, 0.1, -0.2, 0.3])),
    (TanhNetwork(2), np.array([-0.4, 1.0, -0.7, 1.3, 0.8, -1.0, 1.5])),
]


@pytest.mark.parametrize(("ansatz", "theta"), ANSATZE)
def test_jacobian_matches_finite_differences(ansatz, theta):
    J = ansatz.jacobian(theta, X)
    h = 1e-6
    fd = np.column_stack([(ansatz(theta + h * e, X) - ansatz(theta - h * e, X)) / (2 * h) for e in np.eye(theta.size)])
    np.testing.assert_allclose(J, fd, atol=1e-8)


@pytest.mark.parametrize(("ansatz", "theta"), ANSATZE)
def test_spatial_derivatives_match_finite_differences(ansatz, theta):
    d = ansatz.derivatives(theta, X, order=3)
    h = 1e-4
    for k in range(1, 4):
        lo = ansatz.derivatives(theta, X - h, order=k - 1)[k - 1]
        hi = ansatz.derivatives(theta, X + h, order=k - 1)[k - 1]
        np.testing.assert_allclose(d[k], (hi - lo) / (2 * h), atol=1e-6)


def test_singular_regimes_give_rank_deficient_jacobians():
    # duplicated Gaussians: columns coincide; zero amplitude: b and s columns vanish
    g = GaussianSum(2)
    assert np.linalg.matrix_rank(g.jacobian(np.array([0.5, 0.5, 0.0, 0.0, 0.0, 0.0]), X)) == 3
    assert np.linalg.matrix_rank(g.jacobian(np.array([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]), X)) == 4


def test_allen_cahn_kink_is_exact():
    pde = AllenCahn(eps=0.1, a=0.3)
    x, t, h = np.linspace(-3, 3, 50), 0.7, 1e-5
    u_t = (pde.kink(x, t + h) - pde.kink(x, t - h)) / (2 * h)
    k = 1 / np.sqrt(0.2)
    net = TanhNetwork(1)
    theta = np.array([0.0, 1.0, k, pde.front_speed * t])
    np.testing.assert_allclose(net(theta, x), pde.kink(x, t), atol=1e-14)
    np.testing.assert_allclose(u_t, pde(net.derivatives(theta, x, order=2), x, t), atol=1e-8)


def test_fft_solver_against_uniform_ode_solution():
    # spatially uniform data: u' = u - u^3 (a = 0) has u(t) = u0 e^t / sqrt(1 + u0^2 (e^{2t} - 1))
    u0, t = 0.2, 1.5
    out = allen_cahn_fft(np.full(16, u0), length=10.0, pde=AllenCahn(eps=0.1, a=0.0), t_end=t, dt=1e-2)[0]
    exact = u0 * np.exp(t) / np.sqrt(1 + u0**2 * (np.exp(2 * t) - 1))
    np.testing.assert_allclose(out, exact, rtol=1e-9)


def test_fft_solver_against_travelling_front_pair():
    pde = AllenCahn(eps=0.1, a=-0.5)
    L, n = 40.0, 256
    x = -20 + L * np.arange(n) / n
    k, c, T = 1 / np.sqrt(0.2), pde.front_speed, 2.0
    pair = lambda t: -1 + np.tanh(k * (x + 6 - c * t)) - np.tanh(k * (x - 6 + c * t))
    out = allen_cahn_fft(pair(0.0), length=L, pde=pde, t_end=T, dt=2e-3)[0]
    assert np.max(np.abs(out - pair(T))) < 1e-6


def test_evolve_advection_exact_transport():
    g = GaussianSum(1)
    x = np.linspace(-6, 10, 120)
    theta0 = np.array([1.0, 0.0, 0.0])
    for method in ("lstsq", "tsvd", "dfo"):
        tr = evolve(g, LinearAdvection(speed=1.0), theta0, (0.0, 1.0), x=x, dt=0.05, method=method)
        np.testing.assert_allclose(tr.theta[-1], [1.0, 1.0, 0.0], atol=1e-10)
        assert np.all(tr.residual <= 1e-10 * tr.rhs_norm + 1e-14)


def test_dfo_keeps_duplicated_units_together_and_at_minimum():
    # exactly duplicated, symmetric units: DFO stays at the least-squares minimum and is smooth
    g = GaussianSum(2)
    x = np.linspace(-6, 10, 120)
    tr = evolve(g, LinearAdvection(speed=1.0), np.array([0.5, 0.5, 0.0, 0.0, 0.0, 0.0]), (0.0, 1.0), x=x, dt=0.05)
    assert not tr.blew_up
    assert np.all(tr.residual <= 1.01 * tr.residual_min + 1e-10 * tr.rhs_norm)
    np.testing.assert_allclose(g(tr.theta[-1], x), np.exp(-0.5 * (x - 1.0) ** 2), atol=1e-10)


def test_total_variation_definition():
    v = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 4.0]])
    assert total_variation(v) == pytest.approx(5.0)
    assert total_variation(v[:1]) == 0.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dt": -0.1}, "dt must be"),
        ({"tol": -1.0}, "tol must be"),
        ({"tau": 0.0}, "tau must be"),
        ({"t_span": (1.0, 0.0)}, "t_span"),
        ({"theta0": np.ones(4)}, "theta0 must have shape"),
        ({"theta0": np.array([1.0, np.nan, 0.0])}, "theta0 must be finite"),
        ({"x": np.array([0.0, np.inf])}, "x must be"),
        ({"method": "adam"}, "method must be"),
        ({"scheme": "rk45"}, "scheme must be"),
    ],
)
def test_evolve_bad_input(kwargs, match):
    args = {"theta0": np.array([1.0, 0.0, 0.0]), "t_span": (0.0, 1.0), "x": np.linspace(-3, 3, 20), "dt": 0.1}
    args.update(kwargs)
    theta0, t_span = args.pop("theta0"), args.pop("t_span")
    with pytest.raises(ValueError, match=match):
        evolve(GaussianSum(1), LinearAdvection(), theta0, t_span, **args)


def test_constructors_reject_bad_input():
    with pytest.raises(ValueError, match="n_units"):
        GaussianSum(0)
    with pytest.raises(ValueError, match="eps"):
        AllenCahn(eps=-1.0)
    with pytest.raises(ValueError, match="a must be in"):
        AllenCahn(a=1.5)
    with pytest.raises(ValueError, match="theta must have shape"):
        TanhNetwork(2)(np.ones(3), X)
    with pytest.raises(ValueError, match="length"):
        allen_cahn_fft(np.zeros(8), length=0.0, pde=AllenCahn(), t_end=1.0)
