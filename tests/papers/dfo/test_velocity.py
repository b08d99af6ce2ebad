"""Velocity solvers of P14 (dfo): closed-form least squares, nullspace invariants, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.dfo import dirac_frenkel_velocity, velocity_and_info


def _rank_deficient(seed: int, n: int = 12, p: int = 5, r: int = 3) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    J = g.normal(size=(n, r)) @ g.normal(size=(r, p))
    return J, g.normal(size=n)


def test_worked_example_full_rank_matches_normal_equations():
    J = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    F = np.array([1.0, 2.0, 3.0])
    exact = np.linalg.solve(J.T @ J, J.T @ F)  # closed-form least squares
    for method in ("lstsq", "tsvd", "dfo"):
        np.testing.assert_allclose(dirac_frenkel_velocity(J, F, method=method, history=np.ones(2)), exact, atol=1e-13)


def test_tikhonov_matches_closed_form():
    J, F = _rank_deficient(0)
    lam = 0.3
    expected = np.linalg.solve(J.T @ J + lam * np.eye(J.shape[1]), J.T @ F)
    np.testing.assert_allclose(dirac_frenkel_velocity(J, F, method="tikhonov", reg=lam), expected, atol=1e-12)


def test_dfo_is_the_minimiser_closest_to_history():
    # Onsager selection: argmin ||eta - m|| s.t. J^T J eta = J^T F equals pinv(J) F + (I - pinv(J) J) m
    J, F = _rank_deficient(1)
    m = np.random.default_rng(2).normal(size=J.shape[1])
    P = np.linalg.pinv(J)
    expected = P @ F + (np.eye(J.shape[1]) - P @ J) @ m
    v, info = velocity_and_info(J, F, method="dfo", tol=1e-10, history=m)
    np.testing.assert_allclose(v, expected, atol=1e-10)
    assert info.rank == 3
    # the residual is the least-squares minimum whatever the history (exact nullspace)
    assert info.residual == pytest.approx(info.residual_min, rel=1e-10)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(1e-3, 1e3))
def test_history_only_moves_velocity_in_nullspace(seed, scale):
    J, F = _rank_deficient(seed)
    m = scale * np.random.default_rng(seed + 1).normal(size=J.shape[1])
    v0 = dirac_frenkel_velocity(J, F, method="tsvd", tol=1e-8)
    v = dirac_frenkel_velocity(J, F, method="dfo", tol=1e-8, history=m)
    # same predicted time derivative J v, difference orthogonal to the row space of J
    np.testing.assert_allclose(J @ v, J @ v0, atol=1e-9 * (1 + scale) * np.linalg.norm(F))
    Vr = np.linalg.svd(J)[2][:3].T
    assert np.linalg.norm(Vr.T @ (v - v0)) <= 1e-9 * (1 + scale)


def test_tikhonov_residual_is_biased_above_minimum():
    J, F = _rank_deficient(3)
    _, info = velocity_and_info(J, F, method="tikhonov", reg=1.0)
    assert info.residual > info.residual_min * (1 + 1e-4)


def test_tsvd_drops_small_singular_values():
    J = np.diag([1.0, 1e-6, 0.0])[:, :3]
    F = np.array([1.0, 1.0, 1.0])
    np.testing.assert_allclose(dirac_frenkel_velocity(J, F, method="tsvd", tol=1e-4), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(dirac_frenkel_velocity(J, F, method="lstsq"), [1.0, 1e6, 0.0], rtol=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"J": np.ones((3, 2)), "F": np.ones(4)}, "F must have shape"),
        ({"J": np.ones(3), "F": np.ones(3)}, "J must be"),
        ({"J": np.array([[1.0, np.nan]]), "F": np.ones(1)}, "J must be finite"),
        ({"J": np.ones((2, 2)), "F": np.array([1.0, np.inf])}, "F must be finite"),
        ({"J": np.ones((2, 2)), "F": np.ones(2), "tol": -1e-3}, "tol must be"),
        ({"J": np.ones((2, 2)), "F": np.ones(2), "method": "tikhonov", "reg": -1.0}, "reg must be"),
        ({"J": np.ones((2, 2)), "F": np.ones(2), "method": "ridge"}, "method must be one of"),
        ({"J": np.ones((2, 2)), "F": np.ones(2), "history": np.ones(3)}, "history must have shape"),
        ({"J": np.ones((2, 2)), "F": np.ones(2), "history": np.array([0.0, np.nan])}, "history must be finite"),
    ],
)
def test_bad_input_rejected(kwargs, match):
    J, F = kwargs.pop("J"), kwargs.pop("F")
    with pytest.raises(ValueError, match=match):
        dirac_frenkel_velocity(J, F, **kwargs)


def test_complex_input_rejected():
    with pytest.raises(TypeError, match="J must hold real numbers"):
        dirac_frenkel_velocity(np.ones((2, 2), dtype=complex), np.ones(2))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "tikhonov", "reg": "0.1"}, "reg must be a real number"),
        ({"method": "tikhonov", "reg": [0.1]}, "reg must be a real number"),
        ({"method": "tikhonov", "reg": True}, "reg must be a real number"),
        ({"history": np.array(["a", "b"])}, "history must hold real numbers"),
        ({"history": [None, 1.0]}, "history must hold real numbers"),
        ({"history": np.ones(2, dtype=complex)}, "history must hold real numbers"),
    ],
)
def test_non_numeric_reg_or_history_raise_type_error(kwargs, match):
    with pytest.raises(TypeError, match=match):
        dirac_frenkel_velocity(np.eye(2), np.ones(2), **kwargs)


def test_numpy_scalar_reg_and_integer_history_accepted():
    v = dirac_frenkel_velocity(np.eye(2), np.ones(2), method="tikhonov", reg=np.float32(1.0))
    np.testing.assert_allclose(v, [0.5, 0.5])
    np.testing.assert_allclose(dirac_frenkel_velocity(np.eye(2), np.ones(2), history=np.array([3, 4])), [1.0, 1.0])
