"""Privacy accounting of [P28]: stage 1 (MST's three mechanisms) composed with T Poisson-subsampled Gaussian DP-SGD
steps.

The paper composes AIM (zCDP) with DP-SGD by RDP accounting and gives the tabular stage whatever budget remains
after the generator's DP-SGD (its ``privacy_analysis_composed_aim-dpsgd.py``). Here each mechanism enters
dp-accounting's RDP accountant with its own curve: MST's two Gaussian measurement rounds as Gaussian events
(α/(2σ²) each), its d − 1 exponential-mechanism rounds by their zCDP bound (ε²/8 each: α·ε²/8), and DP-SGD as
the subsampled Gaussian. Independent computations for the checks and tests: the PLD accountant (tight on the
Gaussian parts; it has no zCDP event, so there the selection enters as generic ε-DP steps, a looser bound), opacus'
RDP analysis with MST's closed-form curve α·ρ, and the exact Gaussian-mechanism curve (Balle & Wang 2018).
"""

from __future__ import annotations

import copy
import logging
import math
from typing import Any

import dp_accounting as dpa
import numpy as np
from dp_accounting import rdp
from dp_accounting.pld import common as pld_common
from dp_accounting.pld import privacy_loss_distribution as pld_dist
from scipy.optimize import brentq
from scipy.stats import norm

from icml26.common.validation import choice, int_at_least, positive_int, real
from icml26.papers.actg._corpus import ATTRIBUTES
from icml26.papers.actg._tabular import mst_parameters

__all__ = ["calibrate_dpsgd_sigma", "calibrate_stage1", "compose_epsilon", "gaussian_delta_exact",
           "gaussian_epsilon_exact", "mst_event", "opacus_dpsgd_epsilon", "pipeline_event"]

_ORDERS = (1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 20.0, 24.0, 32.0, 48.0, 64.0, 128.0)
_PLD_STEP = 1e-3
_D = len(ATTRIBUTES)
logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting logs skipped orders at WARNING


def _dpsgd_args(q: float, sigma: float, steps: int) -> tuple[float, float, int]:
    return (real(q, "q", lo=0.0, hi=1.0, lo_open=True), real(sigma, "sigma", lo=0.0, lo_open=True),
            int_at_least(steps, "steps", 0))


def mst_event(*, rho: float, n_attributes: int = _D, selection: bool = True) -> dpa.DpEvent:
    """[P28] stage 1 (MST at total zCDP ``rho``, :func:`~icml26.papers.actg._tabular.mst_parameters`) as a DpEvent:
    Gaussian(σ) for the 1-way round, d − 1 exponential-mechanism rounds as ZCDpEvent(ε²/8), Gaussian(σ) for the
    2-way round. ``selection=False`` leaves the exponential-mechanism rounds out (for comparing accountants)."""
    sigma, eps_em = mst_parameters(rho=rho, n_attributes=n_attributes)
    events: list[dpa.DpEvent] = [dpa.GaussianDpEvent(sigma), dpa.GaussianDpEvent(sigma)]
    if selection:
        events.insert(1, dpa.SelfComposedDpEvent(dpa.ZCDpEvent(eps_em**2 / 8.0), n_attributes - 1))
    return dpa.ComposedDpEvent(events)


def pipeline_event(*, stage1_rho: float | None, q: float, sigma: float, steps: int, n_attributes: int = _D,
                   selection: bool = True) -> dpa.DpEvent:
    """The DpEvent of [P28]'s pipeline: MST at zCDP ``stage1_rho`` (:func:`mst_event`; omitted when ``None``: the
    direct DP-SFT baseline) composed with ``steps`` Poisson-sampled (rate ``q``) Gaussian steps of noise multiplier
    ``sigma`` (DP-SGD with clip norm C and noise std sigma·C)."""
    q, sigma, steps = _dpsgd_args(q, sigma, steps)
    events: list[dpa.DpEvent] = []
    if stage1_rho is not None:
        rho = real(stage1_rho, "stage1_rho", lo=0.0, lo_open=True)
        events.append(mst_event(rho=rho, n_attributes=n_attributes, selection=selection))
    if steps:
        events.append(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
    if not events:
        raise ValueError("steps must be >= 1 when stage1_rho is None (nothing is released)")
    return dpa.ComposedDpEvent(events)


def _pld_epsilon(*, stage1_rho: float | None, q: float, sigma: float, steps: int, delta: float, n_attributes: int,
                 selection: bool) -> float:
    """PLD accounting of the same mechanisms: Gaussians and subsampled Gaussians exactly (up to discretisation);
    each exponential-mechanism round as a generic ε-DP mechanism (its tight dominating pair, looser than ε²/8-zCDP)."""
    dist = pld_dist.identity(value_discretization_interval=_PLD_STEP)
    if stage1_rho is not None:
        s, eps_em = mst_parameters(rho=stage1_rho, n_attributes=n_attributes)
        dist = dist.compose(pld_dist.from_gaussian_mechanism(s / math.sqrt(2.0), value_discretization_interval=_PLD_STEP))
        if selection:
            em = pld_dist.from_privacy_parameters(pld_common.DifferentialPrivacyParameters(eps_em, 0.0),
                                                  value_discretization_interval=_PLD_STEP)
            dist = dist.compose(em.self_compose(n_attributes - 1))
    if steps:
        sgd = pld_dist.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=_PLD_STEP)
        dist = dist.compose(sgd.self_compose(steps))
    return float(dist.get_epsilon_for_delta(delta))


def _rdp_accountant() -> rdp.RdpAccountant:
    return rdp.RdpAccountant(list(_ORDERS))


def compose_epsilon(*, stage1_rho: float | None, q: float, sigma: float, steps: int, delta: float,
                    accountant: str = "rdp", n_attributes: int = _D, selection: bool = True) -> float:
    """Total ε at ``delta`` of the [P28] pipeline (:func:`pipeline_event`), by RDP (the paper's accountant) or PLD
    (see the module docstring for how PLD treats MST's tree selection)."""
    kind = choice(accountant, "accountant", ("rdp", "pld"))
    delta = real(delta, "delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    ev = pipeline_event(stage1_rho=stage1_rho, q=q, sigma=sigma, steps=steps, n_attributes=n_attributes,
                        selection=selection)
    if kind == "pld":
        return _pld_epsilon(stage1_rho=stage1_rho, q=q, sigma=sigma, steps=steps, delta=delta,
                            n_attributes=n_attributes, selection=selection)
    acc = _rdp_accountant()
    acc.compose(ev)
    return float(acc.get_epsilon(delta))


def calibrate_dpsgd_sigma(*, q: float, steps: int, epsilon: float, delta: float) -> float:
    """The DP-SGD noise multiplier spending exactly ``epsilon`` at ``delta`` (RDP), as for the direct DP-SFT baseline
    of [P28] that puts the whole budget on the generator."""
    q, _, steps = _dpsgd_args(q, 1.0, steps)
    positive_int(steps, "steps")
    epsilon = real(epsilon, "epsilon", lo=0.0, lo_open=True)
    delta = real(delta, "delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    return float(dpa.calibrate_dp_mechanism(
        lambda: _rdp_accountant(), lambda s: pipeline_event(stage1_rho=None, q=q, sigma=s, steps=steps),
        epsilon, delta, dpa.LowerEndpointAndGuess(1e-2, 1.0), tol=1e-6))


def calibrate_stage1(*, q: float, sigma: float, steps: int, epsilon: float, delta: float,
                     n_attributes: int = _D) -> float:
    """The zCDP ρ of MST (stage 1) that brings the composed pipeline to exactly ``epsilon`` (RDP): [P28] gives the
    tabular synthesizer what remains after DP-SGD. ValueError when DP-SGD alone already spends ``epsilon``."""
    epsilon = real(epsilon, "epsilon", lo=0.0, lo_open=True)
    spent = compose_epsilon(stage1_rho=None, q=q, sigma=sigma, steps=positive_int(steps, "steps"), delta=delta)
    if spent >= epsilon:
        raise ValueError(f"sigma: DP-SGD alone spends epsilon {spent:.3f} >= {epsilon:g}; raise sigma")
    n_attributes = int_at_least(n_attributes, "n_attributes", 2)
    base = _rdp_accountant()
    base.compose(pipeline_event(stage1_rho=None, q=q, sigma=sigma, steps=steps))  # the costly curve, once

    def gap(log_rho: float) -> float:
        acc = copy.deepcopy(base)
        acc.compose(mst_event(rho=math.exp(log_rho), n_attributes=n_attributes))
        return float(acc.get_epsilon(delta)) - epsilon

    root: Any = brentq(gap, math.log(1e-10), math.log(1e4), xtol=1e-10)
    return float(math.exp(float(root)))


def gaussian_delta_exact(*, epsilon: float, noise_multiplier: float) -> float:
    """Exact δ(ε) of one Gaussian mechanism with sensitivity 1 and noise std ``noise_multiplier`` (Balle & Wang
    2018, Thm. 8): Φ(1/(2s) − εs) − e^ε Φ(−1/(2s) − εs). A closed form to check an accountant against ([P28])."""
    eps = real(epsilon, "epsilon", lo=0.0)
    s = real(noise_multiplier, "noise_multiplier", lo=0.0, lo_open=True)
    return float(norm.cdf(0.5 / s - eps * s) - math.exp(eps) * norm.cdf(-0.5 / s - eps * s))


def gaussian_epsilon_exact(*, delta: float, noise_multiplier: float) -> float:
    """The ε solving :func:`gaussian_delta_exact` = ``delta`` (0 when δ(0) already meets it): the exact
    ε of [P28]'s stage-1 Gaussian release, the oracle for the accountants."""
    delta = real(delta, "delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    s = real(noise_multiplier, "noise_multiplier", lo=0.0, lo_open=True)
    if gaussian_delta_exact(epsilon=0.0, noise_multiplier=s) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta_exact(epsilon=hi, noise_multiplier=s) > delta:
        hi *= 2.0
    root: Any = brentq(lambda e: gaussian_delta_exact(epsilon=e, noise_multiplier=s) - delta, 0.0, hi, xtol=1e-12)
    return float(root)


def opacus_dpsgd_epsilon(*, q: float, sigma: float, steps: int, delta: float,
                         stage1_rho: float | None = None) -> float:
    """ε of [P28]'s DP-SGD stage by opacus' RDP analysis (an implementation independent of dp-accounting's), composed
    with MST at zCDP ``stage1_rho`` when one is given through its closed-form RDP curve α·ρ (each of MST's
    mechanisms is ρ/3-zCDP): the independent computation of the pipeline's total ε."""
    from opacus.accountants.analysis import rdp as opacus_rdp

    q, sigma, steps = _dpsgd_args(q, sigma, steps)
    delta = real(delta, "delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    orders = [o for o in _ORDERS if o > 1.0]
    curve = np.asarray(opacus_rdp.compute_rdp(q=q, noise_multiplier=sigma, steps=positive_int(steps, "steps"),
                                              orders=orders), dtype=np.float64)
    if stage1_rho is not None:
        curve = curve + real(stage1_rho, "stage1_rho", lo=0.0, lo_open=True) * np.asarray(orders)
    eps, _ = opacus_rdp.get_privacy_spent(orders=orders, rdp=curve.tolist(), delta=delta)
    return float(eps)
