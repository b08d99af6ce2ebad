"""The reward/policy game solvers: convergence to closed-form equilibria, LP oracle, the O(1/sqrt T) guarantee."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.dist_irl._game import (
    linear_minimax_value,
    minimax_extragradient,
    minimax_subgradient,
)


def _affine(G, b):
    G, b = np.asarray(G, float), np.asarray(b, float)
    return lambda x: (G @ x + b, G.copy())


def test_abs_game_closed_form():
    """min_{x in [-1, 1]} max_{y in {-1, 1}} x y = min |x| = 0 at x = 0: the pieces x and -x cross at the solution."""
    oracle = _affine([[1.0], [-1.0]], [0.0, 0.0])
    for solve in (minimax_subgradient, minimax_extragradient):
        res = solve(oracle, np.array([0.9]), np.array([-1.0]), np.array([1.0]), n_iter=2000, lr=0.5)
        assert abs(res.x[0]) < 0.02, solve.__name__


def test_simultaneous_play_would_cycle_but_extragradient_converges():
    """Bilinear matching-pennies-type game x * (2y - 1): plain simultaneous gradient play rotates around (0, 1/2);
    the mixed-strategy mirror-prox average converges to the equilibrium x = 0, y = (1/2, 1/2)."""
    x, u = 0.5, 0.4  # u = y - 1/2 (interior play)
    r0 = np.hypot(x, u)
    for _ in range(50):
        x, u = x - 0.1 * 2 * u, u + 0.1 * 2 * x
    assert np.hypot(x, u) > r0  # simultaneous GDA spirals away from the equilibrium
    oracle = _affine([[1.0], [-1.0]], [0.0, 0.0])
    res = minimax_extragradient(oracle, np.array([0.5]), np.array([-1.0]), np.array([1.0]), n_iter=3000, lr=0.5)
    assert abs(res.x[0]) < 1e-2


def test_two_dimensional_lp_matches_scipy_and_rate():
    """Pieces with very different scales (like the short and long contexts); f(x_bar_T) - f* shrinks like the bound."""
    G = np.array([[1.0, -1.4], [-12.0, 4.8], [0.0, -1.0]])
    b = np.array([0.0, 0.0, -0.5])
    lo, hi = np.array([-2.0, 0.0]), np.array([2.0, 3.0])
    oracle = _affine(G, b)
    f_star, x_star = linear_minimax_value(*oracle(np.zeros(2)), np.zeros(2), lo, hi)
    assert np.max(G @ x_star + b) == pytest.approx(f_star, abs=1e-9)
    grid = np.stack(np.meshgrid(np.linspace(-2, 2, 401), np.linspace(0, 3, 301)), -1).reshape(-1, 2)
    assert f_star <= np.max(grid @ G.T + b, axis=1).min() + 1e-9  # brute force over a grid
    gaps = []
    for T in (100, 1000, 10000):
        res = minimax_subgradient(oracle, np.array([0.0, 0.5]), lo, hi, n_iter=T, lr=0.1)
        gaps.append(np.max(G @ res.x + b) - f_star)
    assert gaps[2] < 0.5 * gaps[0]
    # the textbook bound G (R^2 + sum eta^2) / (2 sum eta) on the step-weighted average
    R = np.linalg.norm(hi - lo)
    eta = 0.1 * R / np.sqrt(np.arange(10000) + 1.0)
    assert gaps[2] <= np.linalg.norm(G, axis=1).max() * (R**2 + np.sum(eta**2)) / (2 * eta.sum())
    ext = minimax_extragradient(oracle, np.array([0.0, 0.5]), lo, hi, n_iter=10000, lr=1.0)
    assert np.max(G @ ext.x + b) - f_star < 0.05


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=6, max_size=6), st.lists(st.floats(-1, 1), min_size=3, max_size=3))
def test_solvers_stay_in_the_box_and_never_beat_the_lp(g, b):
    G = np.array(g).reshape(3, 2)
    oracle = _affine(G, b)
    lo, hi = np.array([-1.0, 0.0]), np.array([1.0, 2.0])
    f_star, _ = linear_minimax_value(*oracle(np.zeros(2)), np.zeros(2), lo, hi)
    for solve in (minimax_subgradient, minimax_extragradient):
        res = solve(oracle, np.array([0.3, 0.3]), lo, hi, n_iter=200)
        assert np.all(res.x >= lo - 1e-12) and np.all(res.x <= hi + 1e-12)
        assert np.max(G @ res.x + np.asarray(b)) >= f_star - 1e-7


def test_bad_solver_input():
    oracle = _affine([[1.0]], [0.0])
    with pytest.raises(ValueError, match="n_iter"):
        minimax_subgradient(oracle, np.zeros(1), -np.ones(1), np.ones(1), n_iter=-1)
    with pytest.raises(ValueError, match="lr"):
        minimax_extragradient(oracle, np.zeros(1), -np.ones(1), np.ones(1), n_iter=5, lr=0.0)
    with pytest.raises(ValueError, match="lower"):
        minimax_extragradient(oracle, np.zeros(1), np.ones(1), -np.ones(1), n_iter=5)
    with pytest.raises(ValueError, match="oracle"):
        minimax_subgradient(lambda x: (np.zeros(2), np.zeros((3, 1))), np.zeros(1), -np.ones(1), np.ones(1), n_iter=2)
