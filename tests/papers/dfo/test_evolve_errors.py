"""evolve(): argument errors raise before the loop, genuine blow-ups are flagged, the end time is exact; PDEs take
keyword-only hyper-parameters; the truncated minimum of the velocity diagnostics."""

import numpy as np
import pytest

from icml26.papers.dfo import (
    AllenCahn,
    GaussianSum,
    LinearAdvection,
    evolve,
    velocity_and_info,
)

X = np.linspace(-6.0, 10.0, 60)
THETA0 = np.array([1.0, 0.0, 0.0])


class _Rhs:
    """A test PDE ``u_t = f`` whose output is chosen by ``fn(u, t)``."""

    order = 1

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, derivs, x, t):
        return self.fn(derivs[0], t)


def _run(rhs=None, **kw):
    args = {"x": X, "dt": 0.05, "method": "dfo"} | kw
    return evolve(GaussianSum(1), rhs or LinearAdvection(speed=1.0), THETA0, (0.0, 1.0), **args)


@pytest.mark.parametrize(("method", "reg"), [("tikhonov", -1.0), ("dfo", -1.0), ("tikhonov", float("nan"))])
def test_bad_reg_raises_before_the_loop(method, reg):
    with pytest.raises(ValueError, match="reg must be"):
        _run(method=method, reg=reg)


def test_tikhonov_without_regularisation_raises():
    with pytest.raises(ValueError, match="tikhonov needs reg > 0"):
        _run(method="tikhonov", tol=0.0)
    with pytest.raises(TypeError, match="reg must be a real number"):
        _run(method="tikhonov", reg="0.1")


def test_rhs_of_wrong_shape_raises():
    with pytest.raises(ValueError, match=r"rhs must return an array of shape \(60,\)"):
        _run(_Rhs(lambda u, t: u[:-1]))


def test_rhs_non_finite_at_theta0_raises():
    with pytest.raises(ValueError, match="rhs returned non-finite"):
        _run(_Rhs(lambda u, t: np.full_like(u, np.nan)))
    with pytest.raises(TypeError, match="rhs must return a real array"):
        _run(_Rhs(lambda u, t: u.astype(complex)))


def test_numerical_blow_up_during_the_integration_is_flagged():
    # finite at theta0, non-finite from t = 0.2 on: a genuine blow-up after four steps, not an error
    tr = _run(_Rhs(lambda u, t: -u if t < 0.2 - 1e-12 else np.full_like(u, np.inf)), scheme="euler")
    assert tr.blew_up
    np.testing.assert_allclose(tr.t, [0.0, 0.05, 0.1, 0.15, 0.2])
    assert tr.velocity.shape == (4, 3)
    # |theta| past max_abs is a blow-up too
    tr = _run(_Rhs(lambda u, t: 40.0 * u), max_abs=50.0)
    assert tr.blew_up and np.all(np.abs(tr.theta) <= 50.0)


@pytest.mark.parametrize("scheme", ["euler", "rk2", "rk4"])
def test_last_step_is_shortened_to_end_at_t1(scheme):
    tr = evolve(GaussianSum(1), LinearAdvection(speed=1.0), THETA0, (0.0, 0.1), x=X, dt=0.06, scheme=scheme)
    np.testing.assert_array_equal(tr.t, [0.0, 0.06, 0.1])
    np.testing.assert_allclose(tr.theta[-1], [1.0, 0.1, 0.0], atol=1e-10)  # transported exactly to t1 = 0.1
    # a span shorter than dt is one short step, and a divisible span keeps dt
    assert evolve(GaussianSum(1), LinearAdvection(), THETA0, (0.0, 0.01), x=X, dt=0.06).t.tolist() == [0.0, 0.01]
    tr = evolve(GaussianSum(1), LinearAdvection(), THETA0, (0.0, 1.0), x=X, dt=0.1, scheme=scheme)
    assert tr.t.size == 11 and tr.t[-1] == 1.0 and np.allclose(np.diff(tr.t), 0.1)


def test_pde_hyper_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        LinearAdvection(2.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        AllenCahn(0.1, 0.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        AllenCahn(eps=0.1, a=0.0, order=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="speed must be a real number"):
        LinearAdvection(speed="1")  # type: ignore[arg-type]
    assert LinearAdvection(speed=2.0).order == 1 and AllenCahn(eps=0.2, a=0.1).order == 2


def test_truncated_minimum_is_what_tsvd_and_dfo_reach():
    J = np.diag([1.0, 1e-6, 0.0])
    F = np.array([1.0, 1.0, 1.0])
    for method in ("tsvd", "dfo"):
        _, info = velocity_and_info(J, F, method=method, tol=1e-4, history=None if method == "tsvd" else np.ones(3))
        assert info.residual_trunc == pytest.approx(np.sqrt(2.0))  # the 1e-6 direction is cut at tol = 1e-4
        assert info.residual == pytest.approx(info.residual_trunc)
        assert info.residual_min == pytest.approx(1.0)  # machine precision keeps the 1e-6 direction
    _, info = velocity_and_info(J, F, method="tsvd", tol=1e-8)
    assert info.residual_trunc == pytest.approx(1.0)
