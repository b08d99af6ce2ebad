"""Advantage transforms: worked example, Eq. (4) ↔ Eq. (6) consistency, properties, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from icml26.common.rl import grpo_advantages as group_advantages
from icml26.papers.diff_smoothing import (
    AdvantageTransform,
    differential_smoothing,
    differential_smoothing_reward,
    entropy_bonus,
    entropy_minimization,
    vanilla,
)

R = np.array([1.0, 0.0, 1.0, 0.0])
LP = np.array([-1.0, -2.0, -3.0, -0.5])


def test_worked_example():
    a = group_advantages(R, eps=1e-12)
    assert a == pytest.approx([1, -1, 1, -1])
    ds = differential_smoothing(gamma_p=0.1, gamma_n=0.2)(R, LP)
    # correct: A − γ_p ℓ; incorrect: A + γ_n ℓ
    assert ds == pytest.approx([1 + 0.1, -1 - 0.4, 1 + 0.3, -1 - 0.1], abs=1e-5)
    assert entropy_bonus(gamma=0.1)(R, LP) == pytest.approx(a + 0.1 * np.array([1, 2, 3, 0.5]), abs=1e-5)
    assert entropy_minimization(gamma=0.1)(R, LP) == pytest.approx(a - 0.1 * np.array([1, 2, 3, 0.5]), abs=1e-5)
    assert vanilla()(R, LP) == pytest.approx(group_advantages(R))


def test_eq6_without_normalisation_is_eq4_reward_minus_reward_baseline():
    r_ds = differential_smoothing_reward(R, LP, gamma_p=0.3, gamma_n=0.2)
    a = differential_smoothing(gamma_p=0.3, gamma_n=0.2, normalize=False)(R, LP)
    assert a == pytest.approx(r_ds - R.mean())


def test_ds_only_touches_correct_when_gamma_n_zero():
    a = differential_smoothing(gamma_p=0.5, gamma_n=0.0)(R, LP)
    base = group_advantages(R)
    assert a[R == 0] == pytest.approx(base[R == 0])
    assert np.all(a[R > 0] > base[R > 0])


def test_all_equal_rewards_give_only_the_smoothing_term():
    r = np.ones(4)
    assert vanilla()(r, LP) == pytest.approx(0.0)
    assert differential_smoothing(gamma_p=0.1, gamma_n=0.1)(r, LP) == pytest.approx(-0.1 * LP)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 4), st.integers(2, 10), st.data())
def test_shapes_and_mean_zero(p, g, data):
    r = data.draw(arrays(float, (p, g), elements=st.sampled_from([0.0, 1.0])))
    lp = data.draw(arrays(float, (p, g), elements=st.floats(-20, 0)))
    a = vanilla()(r, lp)
    assert a.shape == (p, g)
    assert np.allclose(a.mean(axis=1), 0, atol=1e-9)
    d = differential_smoothing(gamma_p=0.1, gamma_n=0.1)(r, lp)
    assert np.all(d[r > 0] >= a[r > 0] - 1e-12) and np.all(d[r == 0] <= a[r == 0] + 1e-12)


def test_bad_input_rejected():
    t = differential_smoothing(gamma_p=0.1, gamma_n=0.1)
    with pytest.raises(ValueError, match="rewards must not be empty"):
        t([], [])
    with pytest.raises(ValueError, match="rewards and logp must have the same shape"):
        t([1.0, 0.0], [-1.0])
    with pytest.raises(ValueError, match="logp holds log-probabilities"):
        t([1.0, 0.0], [-1.0, 0.5])
    with pytest.raises(ValueError, match="rewards must be finite"):
        t([np.inf, 0.0], [-1.0, -1.0])
    with pytest.raises(ValueError, match="gamma_p must be >= 0"):
        AdvantageTransform(kind="ds", gamma_p=-0.1)
    with pytest.raises(ValueError, match="kind must be one of"):
        AdvantageTransform(kind="kl")
    with pytest.raises(TypeError, match="gamma_n must be a finite real"):
        AdvantageTransform(kind="ds", gamma_n="big")
    with pytest.raises(ValueError, match="gamma_p and gamma_n must be >= 0"):
        differential_smoothing_reward(R, LP, gamma_p=-1.0, gamma_n=0.0)


def test_hyper_parameters_are_keyword_only():
    from icml26.papers.diff_smoothing import LMConfig

    with pytest.raises(TypeError):
        AdvantageTransform("ds", 0.1, 0.1)
    with pytest.raises(TypeError):
        LMConfig(2, 2, 48)
    assert LMConfig(d_model=16).d_model == 16
