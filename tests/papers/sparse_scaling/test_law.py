"""The [P37] law against hand computation, the authors' printed predictions and the notes' derived numbers."""

import math

import numpy as np
import pytest

from icml26.papers.sparse_scaling import (
    PAPER_PARAMS,
    LawParams,
    R_D_star,
    R_N_star,
    density_factor,
    n_star_unique,
    sparse_law,
)
from icml26.papers.sparse_scaling._checks_law import law_value_rows, quoted_values
from icml26.papers.sparse_scaling._quoted import HELDOUT, QUOTED

P = PAPER_PARAMS


def _hand(N_raw: float, s: float, U: float, D: float) -> float:
    """The law written out once more with math only (α = β as fitted)."""
    A, B, E, al = math.exp(P.a), math.exp(P.b), math.exp(P.e), P.alpha
    f = s ** P.epsilon + P.c * (1 - s) ** P.mu
    n_star = (A * f / B) ** (1 / al) * U  # G² U with G = (αAf/βB)^(1/(α+β)), α = β
    N = N_raw * s
    u_n = min(N, n_star)
    x = 1 - s
    hn = P.r_n * (1 + P.lambda_n * x + P.sigma_n * x * x)
    hd = P.r_d * (1 + P.lambda_d * x + P.sigma_d * x * x)
    n_eff = u_n * (1 + hn * (1 - math.exp(-(N / u_n - 1) / hn)))
    d_eff = U * (1 + hd * (1 - math.exp(-(D / U - 1) / hd)))
    return E + A * f / n_eff ** al + B / d_eff ** al


def test_dense_one_epoch_small_model_is_the_chinchilla_form() -> None:
    N, U = 1e7, 1e10
    assert N < n_star_unique(U, 1.0)  # no excess parameters
    by_hand = math.exp(0.8535501324918354) + math.exp(5.240737178917673) * N ** -0.3268217718148829 \
        + math.exp(6.103030891809012) * U ** -0.3268217718148829
    assert sparse_law(N, 1.0, U, U) == pytest.approx(by_hand, rel=1e-13)


@pytest.mark.parametrize(("N_raw", "s", "U", "D"), [(4e9, 0.5, 1e9, 8e9), (1e8, 0.25, 5e8, 1e10),
                                                    (2e9, 1.0, 2.6e9, 41.6e9), (5.2e8, 0.0625, 2.6e9, 2.6e9)])
def test_law_matches_hand_computation(N_raw: float, s: float, U: float, D: float) -> None:
    assert sparse_law(N_raw, s, U, D) == pytest.approx(_hand(N_raw, s, U, D), rel=1e-12)


def test_heldout_predictions_are_the_notebooks_to_its_printed_digits() -> None:
    ours = np.array([sparse_law(h.N_raw, h.s, h.U, h.D) for h in HELDOUT])
    printed = np.array([h.printed for h in HELDOUT])
    assert np.abs(ours - printed).max() <= 5e-5
    truth = np.array([h.truth for h in HELDOUT])
    r2 = 1 - ((truth - ours) ** 2).sum() / ((truth - truth.mean()) ** 2).sum()
    assert round(r2, 4) == 0.9136


def test_quoted_numbers_round_to_the_quoted_digits() -> None:
    ours = quoted_values()
    for q in QUOTED:
        assert round(ours[q.quantity], q.decimals) == pytest.approx(q.value), q.quantity
    assert len(law_value_rows()) == len(QUOTED) + len(HELDOUT)


def test_half_lives_and_density_factor() -> None:
    assert R_D_star(1.0) == P.r_d and R_N_star(1.0) == P.r_n and density_factor(1.0) == 1.0
    x = 0.5
    assert R_D_star(0.5) == pytest.approx(4.404748822323469 * (1 + 1.8213812238803706 * x - 1.3653091691735397 * x * x))
    assert R_D_star(0.5) / R_D_star(1.0) == pytest.approx(1.569, abs=1e-3)
    s = np.array([1.0, 0.5, 0.25])
    np.testing.assert_allclose(R_D_star(s), [R_D_star(v) for v in s])
    assert isinstance(R_N_star(0.5), float) and R_N_star(s).shape == (3,)


def test_law_decreases_in_size_and_tokens_and_broadcasts() -> None:
    for dl in (np.diff(sparse_law(5e8, 0.5, 1e9, np.geomspace(1e9, 1e12, 20))),
               np.diff(sparse_law(np.geomspace(1e7, 1e11, 20), 0.5, 1e9, 1e10))):
        assert np.all(dl <= 0) and np.all(dl[:5] < 0)  # decreasing, then saturated (repetition, excess size)
    assert sparse_law(np.array([1e8, 2e8]), 0.5, 1e9, 1e10).shape == (2,)


def test_less_than_an_epoch_sees_only_D_unique_tokens() -> None:
    assert sparse_law(1e8, 1.0, 1e10, 1e9) == pytest.approx(sparse_law(1e8, 1.0, 1e9, 1e9), rel=1e-14)


def test_params_are_validated_and_replaceable() -> None:
    q = P.replace(r_d=5.0)
    assert q.r_d == 5.0 and q.a == P.a and R_D_star(1.0, params=q) == 5.0
    with pytest.raises(ValueError, match="unknown"):
        P.replace(zeta=1.0)
    with pytest.raises(ValueError, match="alpha"):
        LawParams(**{**P.to_dict(), "alpha": -1.0})
    with pytest.raises(TypeError, match="params"):
        sparse_law(1e8, 1.0, 1e9, 1e9, params={"a": 1.0})  # type: ignore[arg-type]


@pytest.mark.parametrize(("kw", "name"), [({"s": 0.0}, "s"), ({"s": 1.5}, "s"), ({"N_raw": -1.0}, "N_raw"),
                                          ({"U": 0.0}, "U"), ({"D": float("nan")}, "D")])
def test_bad_law_input_is_refused(kw: dict, name: str) -> None:
    args = {"N_raw": 1e8, "s": 0.5, "U": 1e9, "D": 1e10, **kw}
    with pytest.raises(ValueError, match=name):
        sparse_law(**args)
