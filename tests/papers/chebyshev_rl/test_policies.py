"""Chebyshev basis and policy: recursion/orthogonality against numpy.polynomial, normalisation, clipping, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import chebyshev as npcheb

from icml26.papers.chebyshev_rl import (
    ChebyshevPolicy,
    MLPPolicy,
    chebyshev_features,
    chebyshev_T,
)

MC_LOW, MC_HIGH = np.array([-1.2, -0.07]), np.array([0.6, 0.07])


@given(st.integers(0, 8), st.lists(st.floats(-1, 1), min_size=1, max_size=20))
@settings(max_examples=40, deadline=None)
def test_recursion_matches_numpy_chebval(degree, zs):
    z = np.array(zs)
    T = chebyshev_T(z, degree)
    for k in range(degree + 1):
        np.testing.assert_allclose(T[:, k], npcheb.chebval(z, np.eye(degree + 1)[k]), atol=1e-12)


def test_orthogonality_under_chebyshev_weight():
    # Gauss-Chebyshev nodes: sum_j T_a(z_j) T_b(z_j) = N delta_ab (1 + delta_a0) / 2 exactly for a + b < 2N
    nodes, _ = npcheb.chebgauss(16)
    T = chebyshev_T(nodes, 6)
    G = T.T @ T
    expected = np.diag([16.0] + [8.0] * 6)
    np.testing.assert_allclose(G, expected, atol=1e-10)


def test_tensor_product_features_worked_example():
    z = np.array([[0.5, -0.25]])
    phi = chebyshev_features(z, 3)
    assert phi.shape == (1, 16)
    tx, tv = npcheb.chebvander(np.array([0.5]), 3)[0], npcheb.chebvander(np.array([-0.25]), 3)[0]
    np.testing.assert_allclose(phi[0], np.outer(tx, tv).ravel())
    # column 4*i + j is T_i(x) T_j(v): column 1 is T_1(v) = v
    assert phi[0, 1] == pytest.approx(-0.25) and phi[0, 4] == pytest.approx(0.5)


def test_normalisation_at_box_edges_and_parameter_count():
    pol = ChebyshevPolicy(MC_LOW, MC_HIGH, 1, degree=3)
    assert pol.n_params == 16
    z = pol.normalize(np.array([[-1.2, -0.07], [0.6, 0.07], [-0.3, 0.0]]))
    np.testing.assert_allclose(z, [[-1, -1], [1, 1], [0, 0]], atol=1e-12)
    # float32(0.07) is a hair above 0.07: accepted and clamped
    assert pol.normalize(np.array([0.6, 0.07], dtype=np.float32)).max() == 1.0
    assert MLPPolicy(2, 1).n_params == 4417


def test_act_is_clipped_to_the_action_box_and_params_roundtrip():
    pol = ChebyshevPolicy(MC_LOW, MC_HIGH, 1, degree=3, action_low=-2.0, action_high=2.0)
    theta = np.zeros(16)
    theta[1] = 50.0  # mu = 50 v_norm: saturates
    pol.set_params(theta)
    np.testing.assert_array_equal(pol.get_params(), theta)
    a = pol.act(np.array([[0.0, 0.07], [0.0, -0.07], [0.0, 0.0007]]))
    np.testing.assert_allclose(a[:, 0], [2.0, -2.0, 2.0 * 0.5])  # u = 50*0.01 = 0.5 -> 2*0.5
    b = pol.sample(np.array([[0.0, 0.07]] * 200), seed=0)
    assert np.all(np.abs(b) <= 2.0)
    np.testing.assert_allclose(pol.act_with(np.tile(theta, (3, 1)), np.zeros((3, 2)) + [0, 0.07]), 2.0)


def test_exploration_has_its_own_scale():
    pol = ChebyshevPolicy(MC_LOW, MC_HIGH, 1, degree=2, exploration_std=0.1)
    s = pol.sample(np.zeros((4000, 2)), seed=1)[:, 0]
    assert abs(s.std() - 0.1) < 0.01 and abs(s.mean()) < 0.01


def test_bad_input():
    with pytest.raises(ValueError, match="degree"):
        ChebyshevPolicy(MC_LOW, MC_HIGH, 1, degree=-1)
    with pytest.raises(ValueError, match="obs_low"):
        ChebyshevPolicy([-np.inf, -1.0], [np.inf, 1.0], 1, degree=3)
    with pytest.raises(ValueError, match="obs_low"):
        ChebyshevPolicy([0.0, 0.0, 0.0], [1.0, 1.0], 1, degree=3)
    with pytest.raises(ValueError, match="action_dim"):
        ChebyshevPolicy(MC_LOW, MC_HIGH, 0, degree=3)
    pol = ChebyshevPolicy(MC_LOW, MC_HIGH, 1, degree=3)
    with pytest.raises(ValueError, match="outside"):
        pol.act(np.array([0.7, 0.0]))
    with pytest.raises(ValueError, match="obs"):
        pol.act(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="theta"):
        pol.set_params(np.zeros(15))


def test_from_space_needs_explicit_scaling_for_infinite_boxes():
    import gymnasium as gym

    env = gym.make("MountainCarContinuous-v0")
    pol = ChebyshevPolicy.from_space(env.observation_space, env.action_space, degree=3)
    assert pol.n_params == 16
    inf_box = gym.spaces.Box(-np.inf, np.inf, shape=(2,))
    with pytest.raises(ValueError, match="obs_low"):
        ChebyshevPolicy.from_space(inf_box, env.action_space, degree=3)
    ok = ChebyshevPolicy.from_space(inf_box, env.action_space, degree=1, obs_low=[-1, -1], obs_high=[1, 1])
    assert ok.n_params == 4


def test_mlp_box_normalisation_is_an_affine_input_map():
    from icml26.papers.chebyshev_rl import MLPPolicy

    low, high = np.array([-1.2, -0.07]), np.array([0.6, 0.07])
    raw = MLPPolicy(2, 1, seed=3)
    box = MLPPolicy(2, 1, seed=3, obs_low=low, obs_high=high)
    obs = np.array([[-0.5, 0.01], [0.3, -0.06], [-1.2, 0.07]])
    z = 2.0 * (obs - low) / (high - low) - 1.0
    np.testing.assert_allclose(box.act(obs), raw.act(z))
    np.testing.assert_allclose(box.act_with(box.get_params()[None], obs), raw.act(z))
    with pytest.raises(ValueError, match="obs_low"):
        MLPPolicy(2, 1, obs_low=low)
    with pytest.raises(ValueError, match="obs_low"):
        MLPPolicy(2, 1, obs_low=high, obs_high=low)


def test_mlp_rejects_bad_sizes_action_box_and_nan_observations():
    with pytest.raises(ValueError, match="action_high > action_low"):
        MLPPolicy(2, 1, action_low=1.0, action_high=-1.0)
    with pytest.raises(ValueError, match="action_low/action_high"):
        MLPPolicy(2, 1, action_high=np.inf)
    with pytest.raises(TypeError, match="obs_dim"):
        MLPPolicy(2.0, 1)
    with pytest.raises(TypeError, match="hidden"):
        MLPPolicy(2, 1, hidden=(64.5,))
    with pytest.raises(ValueError, match="action_dim"):
        MLPPolicy(2, 0)
    pol = MLPPolicy(2, 1, obs_low=MC_LOW, obs_high=MC_HIGH)
    with pytest.raises(ValueError, match="obs must be finite"):
        pol.act(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="obs must be finite"):
        pol.act_with(pol.get_params()[None, :], np.array([[0.0, np.inf]]))
    with pytest.raises(ValueError, match="action_high > action_low"):
        ChebyshevPolicy(MC_LOW, MC_HIGH, 1, degree=1, action_high=np.inf)


def test_features_refuse_bad_shapes_and_huge_bases_up_front():
    import time

    from icml26.papers.chebyshev_rl import mc_starts

    with pytest.raises(ValueError, match="z must be 1 or 2-dimensional"):
        chebyshev_features(np.zeros((2, 3, 2)), 3)  # not to be read as rows of a batch
    z = np.random.default_rng(0).uniform(-1, 1, size=(58, 4))
    t = time.perf_counter()
    with pytest.raises(ValueError, match="degree=60"):
        chebyshev_features(z, 60)  # 58 x 61**4 values: 6.4 GB
    with pytest.raises(ValueError, match="degree"):
        chebyshev_T(np.zeros(10), 10**9)
    with pytest.raises(ValueError, match="degree"):
        ChebyshevPolicy(np.zeros(6) - 1, np.ones(6), 1, degree=40)
    assert time.perf_counter() - t < 1.0  # refused before allocating
    assert chebyshev_features(np.array([0.5, -0.25]), 3).shape == (1, 16)  # one point as (n,)
    with pytest.raises(TypeError, match="n must be an int"):
        mc_starts(True)
    with pytest.raises(TypeError, match="seed"):
        MLPPolicy(2, 1, seed=None)
