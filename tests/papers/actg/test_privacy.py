"""[P28] accounting against closed forms and independent accountants."""

import math

import pytest

from icml26.papers.actg import (
    calibrate_dpsgd_sigma,
    calibrate_stage1,
    compose_epsilon,
    gaussian_delta_exact,
    gaussian_epsilon_exact,
    opacus_dpsgd_epsilon,
)


@pytest.mark.parametrize("s", [0.8, 2.0, 5.0])
def test_pld_matches_exact_gaussian_curve(s):
    exact = gaussian_epsilon_exact(delta=1e-5, noise_multiplier=s)
    pld = compose_epsilon(stage1_noise=s, q=0.5, sigma=1.0, steps=0, delta=1e-5, accountant="pld")
    assert pld == pytest.approx(exact, rel=1e-3)
    assert gaussian_delta_exact(epsilon=exact, noise_multiplier=s) == pytest.approx(1e-5, rel=1e-6)


@pytest.mark.parametrize("s", [1.0, 3.0])
def test_rdp_gaussian_between_exact_and_classic_conversion(s):
    rdp = compose_epsilon(stage1_noise=s, q=0.5, sigma=1.0, steps=0, delta=1e-5)
    # Gaussian RDP curve α/(2s²) with the classic conversion ε = min_α RDP(α) + log(1/δ)/(α−1) (Mironov 2017)
    classic = min(a / (2 * s * s) + math.log(1e5) / (a - 1) for a in [1 + i / 100 for i in range(1, 20000)])
    assert gaussian_epsilon_exact(delta=1e-5, noise_multiplier=s) <= rdp <= classic + 1e-9


def test_opacus_and_dp_accounting_agree_and_pld_is_tighter():
    dpa_eps = compose_epsilon(stage1_noise=None, q=0.05, sigma=1.3, steps=200, delta=1e-5)
    assert opacus_dpsgd_epsilon(q=0.05, sigma=1.3, steps=200, delta=1e-5) == pytest.approx(dpa_eps, rel=1e-3)
    assert compose_epsilon(stage1_noise=None, q=0.05, sigma=1.3, steps=200, delta=1e-5, accountant="pld") < dpa_eps


def test_calibration_spends_exactly_the_target():
    sd = calibrate_dpsgd_sigma(q=0.1, steps=50, epsilon=4.0, delta=1e-5)
    assert compose_epsilon(stage1_noise=None, q=0.1, sigma=sd, steps=50, delta=1e-5) == pytest.approx(4.0, abs=1e-4)
    nm = calibrate_stage1(q=0.1, sigma=1.2 * sd, steps=50, epsilon=4.0, delta=1e-5)
    assert compose_epsilon(stage1_noise=nm, q=0.1, sigma=1.2 * sd, steps=50, delta=1e-5) == pytest.approx(4.0, abs=1e-6)
    # more stage-2 noise leaves more budget for stage 1: less stage-1 noise
    assert calibrate_stage1(q=0.1, sigma=1.5 * sd, steps=50, epsilon=4.0, delta=1e-5) < nm


def test_stage2_alone_over_budget_is_refused():
    with pytest.raises(ValueError, match="sigma"):
        calibrate_stage1(q=0.1, sigma=0.5, steps=50, epsilon=1.0, delta=1e-5)


def test_composition_is_monotone():
    a = compose_epsilon(stage1_noise=None, q=0.1, sigma=1.5, steps=40, delta=1e-5)
    b = compose_epsilon(stage1_noise=3.0, q=0.1, sigma=1.5, steps=40, delta=1e-5)
    c = compose_epsilon(stage1_noise=3.0, q=0.1, sigma=1.5, steps=80, delta=1e-5)
    assert a < b < c


def test_opacus_composes_the_stage1_gaussian_like_dp_accounting():
    # opacus' sampled-Gaussian curve at rate 1 is the Gaussian curve: the whole pipeline's ε, independently computed
    kw = {"q": 0.1, "sigma": 1.6, "steps": 80, "delta": 1e-5}
    total = opacus_dpsgd_epsilon(**kw, stage1_noise=2.0)
    assert total == pytest.approx(compose_epsilon(stage1_noise=2.0, **kw), rel=1e-6)
    assert total > opacus_dpsgd_epsilon(**kw)
