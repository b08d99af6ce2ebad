"""Privacy accounting of [P28]: the stage-1 Gaussian release composed with T Poisson-subsampled Gaussian DP-SGD steps.

The paper composes AIM (zCDP) with DP-SGD by RDP accounting and gives the tabular stage whatever budget remains
after the generator's DP-SGD (its ``privacy_analysis_composed_aim-dpsgd.py``). Here the events are built with
dp-accounting (RDP by default, PLD as the independent tighter accountant); opacus' own RDP analysis and the exact
Gaussian-mechanism curve (Balle & Wang 2018) serve as independent computations in the checks and tests.
"""

from __future__ import annotations

import copy
import logging
import math
from typing import Any

import dp_accounting as dpa
import numpy as np
from dp_accounting import pld, rdp
from scipy.optimize import brentq
from scipy.stats import norm

from icml26.common.validation import choice, int_at_least, positive_int, real

__all__ = ["calibrate_dpsgd_sigma", "calibrate_stage1", "compose_epsilon", "gaussian_delta_exact",
           "gaussian_epsilon_exact", "opacus_dpsgd_epsilon", "pipeline_event"]

_ORDERS = (1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 20.0, 24.0, 32.0, 48.0, 64.0, 128.0)
logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting logs skipped orders at WARNING


def _dpsgd_args(q: float, sigma: float, steps: int) -> tuple[float, float, int]:
    return (real(q, "q", lo=0.0, hi=1.0, lo_open=True), real(sigma, "sigma", lo=0.0, lo_open=True),
            int_at_least(steps, "steps", 0))


def pipeline_event(*, stage1_noise: float | None, q: float, sigma: float, steps: int) -> dpa.DpEvent:
    """The DpEvent of [P28]'s pipeline: one Gaussian release with noise multiplier ``stage1_noise`` (omitted when
    ``None``: the direct DP-SFT baseline) composed with ``steps`` Poisson-sampled (rate ``q``) Gaussian steps of
    noise multiplier ``sigma`` (DP-SGD with clip norm C and noise std sigma·C)."""
    q, sigma, steps = _dpsgd_args(q, sigma, steps)
    events: list[dpa.DpEvent] = []
    if stage1_noise is not None:
        events.append(dpa.GaussianDpEvent(real(stage1_noise, "stage1_noise", lo=0.0, lo_open=True)))
    if steps:
        events.append(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
    if not events:
        raise ValueError("steps must be >= 1 when stage1_noise is None (nothing is released)")
    return dpa.ComposedDpEvent(events)


def _accountant(kind: str) -> dpa.PrivacyAccountant:
    if kind == "rdp":
        return rdp.RdpAccountant(list(_ORDERS))
    return pld.PLDAccountant(value_discretization_interval=1e-3)


def compose_epsilon(*, stage1_noise: float | None, q: float, sigma: float, steps: int, delta: float,
                    accountant: str = "rdp") -> float:
    """Total ε at ``delta`` of the [P28] pipeline (:func:`pipeline_event`), by RDP (the paper's accountant) or PLD."""
    kind = choice(accountant, "accountant", ("rdp", "pld"))
    delta = real(delta, "delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    acc = _accountant(kind)
    acc.compose(pipeline_event(stage1_noise=stage1_noise, q=q, sigma=sigma, steps=steps))
    return float(acc.get_epsilon(delta))


def calibrate_dpsgd_sigma(*, q: float, steps: int, epsilon: float, delta: float) -> float:
    """The DP-SGD noise multiplier spending exactly ``epsilon`` at ``delta`` (RDP), as for the direct DP-SFT baseline
    of [P28] that puts the whole budget on the generator."""
    q, _, steps = _dpsgd_args(q, 1.0, steps)
    positive_int(steps, "steps")
    epsilon = real(epsilon, "epsilon", lo=0.0, lo_open=True)
    delta = real(delta, "delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    return float(dpa.calibrate_dp_mechanism(
        lambda: _accountant("rdp"), lambda s: pipeline_event(stage1_noise=None, q=q, sigma=s, steps=steps),
        epsilon, delta, dpa.LowerEndpointAndGuess(1e-2, 1.0), tol=1e-6))


def calibrate_stage1(*, q: float, sigma: float, steps: int, epsilon: float, delta: float) -> float:
    """The stage-1 noise multiplier that brings the composed pipeline to exactly ``epsilon`` (RDP): [P28] gives the
    tabular synthesizer what remains after DP-SGD. ValueError when DP-SGD alone already spends ``epsilon``."""
    epsilon = real(epsilon, "epsilon", lo=0.0, lo_open=True)
    spent = compose_epsilon(stage1_noise=None, q=q, sigma=sigma, steps=positive_int(steps, "steps"), delta=delta)
    if spent >= epsilon:
        raise ValueError(f"sigma: DP-SGD alone spends epsilon {spent:.3f} >= {epsilon:g}; raise sigma")

    base = _accountant("rdp")
    base.compose(pipeline_event(stage1_noise=None, q=q, sigma=sigma, steps=steps))  # the costly curve, once

    def gap(log_nm: float) -> float:
        acc = copy.deepcopy(base)
        acc.compose(dpa.GaussianDpEvent(math.exp(log_nm)))
        return float(acc.get_epsilon(delta)) - epsilon

    root: Any = brentq(gap, math.log(1e-2), math.log(1e4), xtol=1e-9)
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
                         stage1_noise: float | None = None) -> float:
    """ε of [P28]'s DP-SGD stage by opacus' RDP analysis (an implementation independent of dp-accounting's), composed
    with the stage-1 Gaussian release of noise multiplier ``stage1_noise`` when one is given (opacus' sampled-Gaussian
    curve at rate 1 is the Gaussian curve α/(2s²)): the independent computation of the pipeline's total ε."""
    from opacus.accountants.analysis import rdp as opacus_rdp

    q, sigma, steps = _dpsgd_args(q, sigma, steps)
    delta = real(delta, "delta", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    orders = [o for o in _ORDERS if o > 1.0]
    curve = np.asarray(opacus_rdp.compute_rdp(q=q, noise_multiplier=sigma, steps=positive_int(steps, "steps"),
                                              orders=orders), dtype=np.float64)
    if stage1_noise is not None:
        nm = real(stage1_noise, "stage1_noise", lo=0.0, lo_open=True)
        curve = curve + np.asarray(opacus_rdp.compute_rdp(q=1.0, noise_multiplier=nm, steps=1, orders=orders))
    eps, _ = opacus_rdp.get_privacy_spent(orders=orders, rdp=curve.tolist(), delta=delta)
    return float(eps)
