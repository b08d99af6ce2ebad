"""Trajectories, target policies and feature maps of ope_mnar: worked example, invariants, bad input (hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.ope_mnar import LogisticPolicy, Trajectories, basis, policy_probs


def _valid(n=4, T=3, d=2, seed=0):
    g = np.random.default_rng(seed)
    obs = g.random((n, T)) < 0.6
    obs[0] = True
    return dict(states=g.standard_normal((n, T + 1, d)), actions=g.integers(0, 2, (n, T)),
                rewards=g.standard_normal((n, T)), observed=obs)


def test_worked_example():
    states = np.zeros((2, 3, 1))
    states[:, :, 0] = [[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]]
    traj = Trajectories(states, [[0, 1], [1, 1]], [[1.0, 99.0], [2.0, 3.0]], [[1, 0], [1, 1]],
                        full_rewards=[[1.0, 5.0], [2.0, 3.0]])
    assert (traj.n, traj.horizon, traj.state_dim) == (2, 2, 1)
    assert np.isnan(traj.rewards[0, 1]) and traj.rewards[1, 1] == 3.0  # the unobserved 99 is masked
    np.testing.assert_array_equal(traj.eta_prev, [[True, True], [True, True]])
    assert traj.missing_rate == pytest.approx(0.25)
    with pytest.raises(ValueError):
        traj.rewards[0, 0] = 7.0  # read-only


def test_eta_prev_shifts_the_indicators():
    kw = _valid(n=5, T=4)
    traj = Trajectories(**kw)
    np.testing.assert_array_equal(traj.eta_prev[:, 1:], traj.observed[:, :-1])
    assert traj.eta_prev[:, 0].all()


@pytest.mark.parametrize("field,value,match", [
    ("states", np.zeros((0, 4, 2)), "states"),
    ("states", np.zeros((4, 1, 2)), "states"),
    ("states", np.full((4, 4, 2), np.nan), "states"),
    ("actions", np.zeros((4, 2), dtype=int), "actions"),
    ("actions", np.full((4, 3), 2), "actions"),
    ("actions", np.full((4, 3), 0.5), "actions"),
    ("observed", np.full((4, 3), 2), "observed"),
    ("observed", np.ones((3, 3)), "observed"),
    ("observed", np.zeros((4, 3)), "observed"),
    ("rewards", np.ones((4, 2)), "rewards"),
    ("rewards", np.full((4, 3), np.nan), "rewards"),
    ("full_rewards", np.ones((4, 3)) * 1e3, "full_rewards"),
    ("n_actions", 0, "n_actions"),
])
def test_bad_input_is_rejected(field, value, match):
    kw = _valid()
    kw[field] = value
    with pytest.raises(ValueError, match=match):
        Trajectories(**kw)


def test_non_numeric_input_is_a_type_error():
    kw = _valid()
    kw["rewards"] = np.array([["a"] * 3] * 4)
    with pytest.raises(TypeError, match="rewards"):
        Trajectories(**kw)
    kw = _valid()
    kw["actions"] = np.ones((4, 3), dtype=bool)
    with pytest.raises(TypeError, match="actions"):
        Trajectories(**kw)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), T=st.integers(1, 4), d=st.integers(1, 3), dn=st.integers(-2, 2), dT=st.integers(-2, 2))
def test_shapes_property(n, T, d, dn, dT):
    """Valid shapes construct and round-trip; any mismatch in actions' shape is a ValueError naming actions."""
    kw = _valid(n, T, d)
    traj = Trajectories(**kw)
    assert traj.states.shape == (n, T + 1, d)
    np.testing.assert_array_equal(traj.rewards[traj.observed], np.asarray(kw["rewards"])[kw["observed"]])
    if (dn, dT) != (0, 0) and n + dn >= 0 and T + dT >= 0:
        kw["actions"] = np.zeros((n + dn, T + dT), dtype=int)
        with pytest.raises(ValueError, match="actions"):
            Trajectories(**kw)


@settings(max_examples=40, deadline=None)
@given(coef=st.lists(st.floats(-5, 5), min_size=2, max_size=2), b=st.floats(-5, 5), m=st.floats(-5, 5),
       seed=st.integers(0, 100))
def test_logistic_policy_is_a_distribution(coef, b, m, seed):
    g = np.random.default_rng(seed)
    s, h = g.standard_normal((7, 2)), g.integers(0, 2, 7)
    pol = LogisticPolicy(tuple(coef), b, m)
    p = policy_probs(pol, 0, s, h, 2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.all((p >= 0) & (p <= 1))
    # the blind twin ignores η_{t-1}; the original only differs where η_{t-1} = 0
    pb = pol.blind()(0, s, h)
    np.testing.assert_allclose(pb, pol.blind()(0, s, np.ones(7)))
    np.testing.assert_allclose(p[h == 1], pb[h == 1])


@pytest.mark.parametrize("out,match", [
    (lambda n: np.full((n, 2), 0.7), "sum to 1"),
    (lambda n: np.tile([1.5, -0.5], (n, 1)), r"\[0, 1\]"),
    (lambda n: np.full((n, 3), 1 / 3), "shape"),
    (lambda n: np.full((n, 2), np.nan), r"\[0, 1\]"),
])
def test_bad_policies_are_rejected(out, match):
    with pytest.raises(ValueError, match=match):
        policy_probs(lambda t, s, h: out(s.shape[0]), 0, np.zeros((3, 2)), np.ones(3), 2)
    with pytest.raises(TypeError, match="target_policy"):
        policy_probs("greedy", 0, np.zeros((3, 2)), np.ones(3), 2)


def test_basis_monomials():
    x = np.array([[2.0, 3.0]])
    np.testing.assert_allclose(basis("linear", x), [[1, 2, 3]])
    np.testing.assert_allclose(basis("quadratic", x), [[1, 2, 3, 4, 6, 9]])
    np.testing.assert_allclose(basis(2, x, constant=False), [[2, 3, 4, 6, 9]])
    assert basis("cubic", np.ones((4, 3))).shape == (4, 20)  # C(3 + 3, 3)
    np.testing.assert_allclose(basis(lambda z: z**2, x), [[1, 4, 9]])  # a constant is added to a callable's output
    with pytest.raises(ValueError, match="features"):
        basis("quartic", x)
    with pytest.raises(ValueError, match="features"):
        basis(lambda z: z[:, :0], x)
