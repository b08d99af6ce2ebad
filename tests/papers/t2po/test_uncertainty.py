"""The fused uncertainty and the entropy of [P15] against hand-computed values."""

import math

import numpy as np
import pytest
import torch

from icml26.papers.t2po import entropy, turn_score, uncertainty


def test_entropy_of_hand_computed_distributions() -> None:
    # p = (1/2, 1/4, 1/4): H = 1/2 ln 2 + 2 * 1/4 ln 4 = 1.5 ln 2
    logits = np.log([0.5, 0.25, 0.25])
    assert entropy(logits) == pytest.approx(1.5 * math.log(2))
    assert entropy(np.zeros(8)) == pytest.approx(math.log(8))
    assert entropy(np.array([0.0, -np.inf, -np.inf])) == pytest.approx(0.0)  # masked tokens carry no mass


def test_fused_uncertainty_by_hand() -> None:
    logits = np.log([0.5, 0.25, 0.25])
    h, c = 1.5 * math.log(2) / math.log(3), 0.5
    assert uncertainty(logits) == pytest.approx(0.5 * h + 0.5 * (1 - c))
    assert uncertainty(logits, weight=1.0) == pytest.approx(h)
    assert uncertainty(logits, weight=0.0) == pytest.approx(1 - c)
    assert uncertainty(np.zeros(5)) == pytest.approx(0.5 * 1.0 + 0.5 * (1 - 1 / 5))
    assert uncertainty(np.array([50.0, 0.0, 0.0, 0.0])) == pytest.approx(0.0, abs=1e-18)


def test_uncertainty_is_shift_invariant_batched_and_matches_torch() -> None:
    g = np.random.default_rng(0)
    x = g.normal(size=(3, 4, 7)) * 3
    m = uncertainty(x)
    assert m.shape == (3, 4) and np.all((m >= 0) & (m <= 1))
    np.testing.assert_allclose(uncertainty(x + 100.0), m, atol=1e-12)
    np.testing.assert_allclose(uncertainty(torch.as_tensor(x)).numpy(), m, atol=1e-12)
    np.testing.assert_allclose(entropy(torch.as_tensor(x)).numpy(), entropy(x), atol=1e-12)
    rows = np.array([uncertainty(r) for r in x.reshape(-1, 7)]).reshape(3, 4)
    np.testing.assert_allclose(rows, m)


def test_a_sharper_distribution_is_less_uncertain() -> None:
    base = np.array([1.0, 0.5, 0.0, -0.5])
    ms = [float(uncertainty(base * t)) for t in (0.5, 1.0, 2.0, 4.0)]
    assert all(a > b for a, b in zip(ms, ms[1:]))


@pytest.mark.parametrize("bad", [np.array([0.0, np.nan]), np.array([np.inf, 0.0]), np.array([[0.0, 1.0], [-np.inf, -np.inf]]),
                                 np.zeros((2, 0)), np.zeros(1)])
def test_bad_logits_are_refused(bad) -> None:
    with pytest.raises(ValueError, match="logits"):
        uncertainty(bad)
    with pytest.raises(ValueError, match="logits"):
        entropy(bad)


def test_nan_tensor_logits_and_bad_weight_are_refused() -> None:
    with pytest.raises(ValueError, match="logits"):
        uncertainty(torch.tensor([0.0, float("nan")]))
    with pytest.raises(TypeError, match="logits"):
        uncertainty(torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="weight"):
        uncertainty(np.zeros(3), weight=1.5)


def test_turn_score_is_the_mean() -> None:
    assert turn_score([0.2, 0.4, 0.9]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="values"):
        turn_score([])
