"""[P28] accounting of MST + DP-SGD against closed forms and independent accountants."""

import math

import dp_accounting as dpa
import pytest
from dp_accounting import rdp

from icml26.papers.actg import (
    calibrate_dpsgd_sigma,
    calibrate_stage1,
    compose_epsilon,
    gaussian_delta_exact,
    gaussian_epsilon_exact,
    mst_event,
    mst_parameters,
    opacus_dpsgd_epsilon,
)
from icml26.papers.actg._privacy import _ORDERS


@pytest.mark.parametrize("rho", [0.05, 0.3, 2.0])
def test_pld_of_the_two_gaussian_rounds_matches_the_exact_gaussian_curve(rho):
    sigma, _ = mst_parameters(rho=rho, n_attributes=5)
    exact = gaussian_epsilon_exact(delta=1e-5, noise_multiplier=sigma / math.sqrt(2))
    pld = compose_epsilon(stage1_rho=rho, q=0.5, sigma=1.0, steps=0, delta=1e-5, accountant="pld", selection=False)
    assert pld == pytest.approx(exact, rel=1e-3)
    assert gaussian_delta_exact(epsilon=exact, noise_multiplier=sigma / math.sqrt(2)) == pytest.approx(1e-5, rel=1e-6)


@pytest.mark.parametrize("rho", [0.1, 0.5])
def test_mst_alone_is_rho_zcdp_in_closed_form(rho):
    # MST's RDP curve is α·ρ: the same as one Gaussian of noise multiplier 1/sqrt(2ρ)
    eps = compose_epsilon(stage1_rho=rho, q=0.5, sigma=1.0, steps=0, delta=1e-5)
    acc = rdp.RdpAccountant(list(_ORDERS))
    acc.compose(dpa.GaussianDpEvent(1 / math.sqrt(2 * rho)))
    assert eps == pytest.approx(acc.get_epsilon(1e-5), rel=1e-12)
    other = rdp.RdpAccountant(list(_ORDERS))
    other.compose(mst_event(rho=rho, n_attributes=8))  # the split over rounds does not change the total
    assert other.get_epsilon(1e-5) == pytest.approx(eps, rel=1e-12)
    # between the exact ε of that Gaussian and the classic conversion min_α αρ + log(1/δ)/(α−1) (Mironov 2017),
    # whose minimum is Bun & Steinke's closed form ρ + 2·sqrt(ρ·log(1/δ))
    classic = min(a * rho + math.log(1e5) / (a - 1) for a in [1 + i / 100 for i in range(1, 20000)])
    assert gaussian_epsilon_exact(delta=1e-5, noise_multiplier=1 / math.sqrt(2 * rho)) <= eps <= classic + 1e-9
    assert classic == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)), rel=1e-4)


def test_opacus_and_dp_accounting_agree_and_pld_is_tighter():
    dpa_eps = compose_epsilon(stage1_rho=None, q=0.05, sigma=1.3, steps=200, delta=1e-5)
    assert opacus_dpsgd_epsilon(q=0.05, sigma=1.3, steps=200, delta=1e-5) == pytest.approx(dpa_eps, rel=1e-3)
    assert compose_epsilon(stage1_rho=None, q=0.05, sigma=1.3, steps=200, delta=1e-5, accountant="pld") < dpa_eps


def test_calibration_spends_exactly_the_target():
    sd = calibrate_dpsgd_sigma(q=0.1, steps=50, epsilon=4.0, delta=1e-5)
    assert compose_epsilon(stage1_rho=None, q=0.1, sigma=sd, steps=50, delta=1e-5) == pytest.approx(4.0, abs=1e-4)
    rho = calibrate_stage1(q=0.1, sigma=1.2 * sd, steps=50, epsilon=4.0, delta=1e-5)
    assert compose_epsilon(stage1_rho=rho, q=0.1, sigma=1.2 * sd, steps=50, delta=1e-5) == pytest.approx(4.0, abs=1e-6)
    # more stage-2 noise leaves more budget for stage 1: a larger ρ
    assert calibrate_stage1(q=0.1, sigma=1.5 * sd, steps=50, epsilon=4.0, delta=1e-5) > rho


def test_stage2_alone_over_budget_is_refused():
    with pytest.raises(ValueError, match="sigma"):
        calibrate_stage1(q=0.1, sigma=0.5, steps=50, epsilon=1.0, delta=1e-5)


def test_composition_is_monotone():
    a = compose_epsilon(stage1_rho=None, q=0.1, sigma=1.5, steps=40, delta=1e-5)
    b = compose_epsilon(stage1_rho=0.1, q=0.1, sigma=1.5, steps=40, delta=1e-5)
    c = compose_epsilon(stage1_rho=0.1, q=0.1, sigma=1.5, steps=80, delta=1e-5)
    d = compose_epsilon(stage1_rho=0.1, q=0.1, sigma=1.5, steps=40, delta=1e-5, selection=False)
    assert a < d < b < c


def test_opacus_with_the_closed_form_mst_curve_matches_dp_accounting():
    kw = {"q": 0.1, "sigma": 1.6, "steps": 80, "delta": 1e-5}
    total = opacus_dpsgd_epsilon(**kw, stage1_rho=0.13)
    assert total == pytest.approx(compose_epsilon(stage1_rho=0.13, **kw), rel=1e-6)
    assert total > opacus_dpsgd_epsilon(**kw)


def test_pld_bounds_the_selection_as_generic_pure_dp():
    kw = {"stage1_rho": 0.13, "q": 0.1, "sigma": 1.6, "steps": 80, "delta": 1e-5, "accountant": "pld"}
    assert compose_epsilon(**kw) > compose_epsilon(**kw, selection=False)
    _, eps_em = mst_parameters(rho=0.13, n_attributes=5)
    # four ε-DP rounds alone: at δ → 0 their PLD tends to the basic composition 4ε
    alone = compose_epsilon(stage1_rho=0.13, q=0.1, sigma=1.6, steps=0, delta=1e-12, accountant="pld")
    assert alone <= 4 * eps_em + compose_epsilon(stage1_rho=0.13, q=0.1, sigma=1.6, steps=0, delta=1e-12,
                                                 accountant="pld", selection=False) + 1e-2
