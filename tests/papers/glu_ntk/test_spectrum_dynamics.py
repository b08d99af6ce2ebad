"""Spectrum statistics and linearised GD dynamics of [P21]: closed forms, brute force, properties, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.glu_ntk import (
    linearized_gd_losses,
    loss_crossing,
    ntk_spectrum_stats,
    steps_to_target,
)


def _psd(n: int, seed: int) -> np.ndarray:
    A = np.random.default_rng(seed).standard_normal((n, n + 2))
    return A @ A.T


def test_stats_of_a_diagonal_kernel():
    s = ntk_spectrum_stats(np.diag([8.0, 1.0, 4.0, 2.0]), quantiles=(0.0, 1.0))
    assert s.eigenvalues == (1.0, 2.0, 4.0, 8.0)
    assert s.condition_number == 8.0 and s.lambda_max == 8.0 and s.lambda_min == 1.0
    assert s.top_share == pytest.approx(8 / 15)
    assert s.second_gap == pytest.approx(2.0)
    assert s.quantiles == ((0.0, 1 / 8), (1.0, 1.0))
    assert s.log_spread == pytest.approx(np.std(np.log([1, 2, 4, 8])))


def test_singular_kernel_has_infinite_condition_number():
    v = np.array([1.0, 2.0, 3.0])
    s = ntk_spectrum_stats(np.outer(v, v))
    assert s.condition_number == float("inf") and s.top_share == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 8), seed=st.integers(0, 2**31), c=st.floats(1e-3, 1e3))
def test_stats_are_scale_and_permutation_invariant(n, seed, c):
    K = _psd(n, seed)
    perm = np.random.default_rng(seed + 1).permutation(n)
    a, b = ntk_spectrum_stats(K), ntk_spectrum_stats(c * K[np.ix_(perm, perm)])
    assert b.condition_number == pytest.approx(a.condition_number, rel=1e-6)
    assert b.top_share == pytest.approx(a.top_share, rel=1e-9)
    assert 1.0 / n - 1e-12 <= a.top_share <= 1.0
    assert a.condition_number >= 1.0


def test_linearized_losses_match_explicit_iteration():
    K, r0 = _psd(6, 0), np.random.default_rng(1).standard_normal(6)
    eta = 1.5 / np.linalg.eigvalsh(K)[-1]
    r, ref = r0.copy(), [0.5 * np.mean(r0**2)]
    for _ in range(30):
        r = r - eta * K @ r  # r_{t+1} = (I − ηK) r_t
        ref.append(0.5 * np.mean(r**2))
    np.testing.assert_allclose(linearized_gd_losses(K, r0, eta=eta, steps=30), ref, rtol=1e-9, atol=1e-300)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), frac=st.floats(0.05, 1.9), target=st.sampled_from([0.5, 1e-2, 1e-4]))
def test_steps_to_target_equals_brute_force(seed, frac, target):
    K, r0 = _psd(5, seed), np.random.default_rng(seed + 7).standard_normal(5)
    eta = frac / np.linalg.eigvalsh(K)[-1]
    losses = linearized_gd_losses(K, r0, eta=eta, steps=3000)
    hit = np.flatnonzero(losses <= target * losses[0])
    expected = int(hit[0]) if hit.size else None
    got = steps_to_target(K, r0, eta=eta, rel_target=target, max_steps=3000)
    assert got == expected


def test_smaller_condition_number_means_fewer_steps_at_eta_one_over_lambda_max():
    U = np.linalg.qr(np.random.default_rng(3).standard_normal((4, 4)))[0]
    r0 = U @ np.ones(4)
    steps = [steps_to_target(U @ np.diag(lam) @ U.T, r0, eta=1 / max(lam), rel_target=1e-6)
             for lam in ([1, 2, 3, 10.0], [1, 2, 3, 100.0])]
    assert steps[0] < steps[1]


def test_loss_crossing_cases():
    assert loss_crossing([1.0, 0.5, 0.3, 0.2], [1.0, 0.7, 0.25, 0.1]) == 2
    assert loss_crossing([1.0, 0.5, 0.3], [1.0, 0.6, 0.4]) is None  # non-GLU always ahead
    assert loss_crossing([1.0, 0.5, 0.3], [0.9, 0.4, 0.2]) is None  # GLU always ahead: no crossing
    assert loss_crossing([1.0, 0.5, 0.3, 0.2], [1.0, 0.7, 0.25, 0.1], margin=0.3) == 3  # 0.25 vs 0.3: within margin
    assert loss_crossing([1.0, 0.5, 0.3, 0.2], [1.0, 0.7, 0.25, 0.1], margin=0.5) is None  # never clearly ahead


def test_bad_inputs_are_rejected():
    K = _psd(3, 0)
    with pytest.raises(ValueError, match="K must be a non-empty square"):
        ntk_spectrum_stats(np.ones((2, 3)))
    with pytest.raises(ValueError, match="K must be symmetric"):
        ntk_spectrum_stats(np.array([[1.0, 2.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="K contains non-finite"):
        ntk_spectrum_stats(np.array([[np.inf]]))
    with pytest.raises(ValueError, match="positive semi-definite"):
        ntk_spectrum_stats(np.diag([1.0, -1.0]))
    with pytest.raises(ValueError, match="K is zero"):
        ntk_spectrum_stats(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="K must be"):
        ntk_spectrum_stats([[1.0]])
    with pytest.raises(ValueError, match="quantiles"):
        ntk_spectrum_stats(K, quantiles=(1.5,))
    with pytest.raises(ValueError, match=r"r0 must have shape \(3,\)"):
        linearized_gd_losses(K, np.ones(4), eta=1e-3, steps=2)
    with pytest.raises(ValueError, match="r0 contains non-finite"):
        linearized_gd_losses(K, np.array([1.0, np.nan, 0.0]), eta=1e-3, steps=2)
    with pytest.raises(ValueError, match="eta.*diverge"):
        linearized_gd_losses(K, np.ones(3), eta=10.0, steps=2)
    with pytest.raises(ValueError, match="eta must be"):
        linearized_gd_losses(K, np.ones(3), eta=-1.0, steps=2)
    with pytest.raises(ValueError, match="steps must be"):
        linearized_gd_losses(K, np.ones(3), eta=1e-3, steps=-1)
    with pytest.raises(ValueError, match="rel_target"):
        steps_to_target(K, np.ones(3), eta=1e-3, rel_target=1.0)
    with pytest.raises(ValueError, match="loss_nonglu and loss_glu"):
        loss_crossing([1.0, 0.5], [1.0])
    with pytest.raises(ValueError, match="margin"):
        loss_crossing([1.0, 0.5], [1.0, 0.4], margin=-0.1)
