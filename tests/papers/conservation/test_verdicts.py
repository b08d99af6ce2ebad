"""Planted-input tests of the verdict rules of the [P04] claim checks: each rule can return holds, fails and (where it
has that branch) inconclusive. Crafted numbers only, no model runs."""

from __future__ import annotations

import pytest

from icml26.claims import Verdict
from icml26.papers.conservation._claims_model import DriftConfig
from icml26.papers.conservation._verdicts import (
    band_status,
    corank_verdict,
    drift_verdict,
    gating_verdict,
    invariance_verdict,
    orthogonal_verdict,
    upper_status,
)


def test_band_and_upper_status() -> None:
    assert band_status(1.8, 1.9, 2.0, (1.7, 2.3)) == "ok"
    assert band_status(1.5, 1.6, 1.65, (1.7, 2.3)) == "out"  # the whole CI below the band
    assert band_status(1.5, 1.6, 1.75, (1.7, 2.3)) == "unsure"  # estimate outside, CI straddles the edge
    assert band_status(1.65, 1.8, 1.9, (1.7, 2.3)) == "unsure"
    assert band_status(1.5, 1.5, 1.5, (1.7, 2.3), n=1) == "unsure"  # one row: a CI without spread decides nothing
    assert band_status(1.8, 1.9, 2.0, (1.7, 2.3), n=2) == "unsure"
    assert upper_status(0.4, 0.7, 1.01, 1.1) == "ok"
    assert upper_status(1.2, 1.3, 1.4, 1.1) == "out"
    assert upper_status(0.9, 1.0, 1.2, 1.1) == "unsure"
    assert upper_status(1.05, 1.2, 1.3, 1.1) == "unsure"
    assert upper_status(1.23, 1.23, 1.23, 1.1, n=1) == "unsure"


def test_invariance_verdict() -> None:
    kw = {"least_ctrl": 4e-2, "min_move": 1.0, "bar": 1e-12}
    assert invariance_verdict(worst=7e-16, **kw)[0] is Verdict.HOLDS
    assert invariance_verdict(worst=1e-9, **kw)[0] is Verdict.FAILS
    assert invariance_verdict(worst=7e-16, least_ctrl=1e-9, min_move=1.0, bar=1e-12)[0] is Verdict.INCONCLUSIVE
    assert invariance_verdict(worst=7e-16, least_ctrl=4e-2, min_move=1e-5, bar=1e-12)[0] is Verdict.INCONCLUSIVE


def test_orthogonal_verdict() -> None:
    kw = {"law_bar": 1e-10, "control_bar": 1e-4}
    assert orthogonal_verdict(law_max=8e-16, ctrl_min=9e-2, **kw)[0] is Verdict.HOLDS
    assert orthogonal_verdict(law_max=1e-3, ctrl_min=9e-2, **kw)[0] is Verdict.FAILS
    assert orthogonal_verdict(law_max=8e-16, ctrl_min=1e-6, **kw)[0] is Verdict.INCONCLUSIVE


def _slopes(law_tau: str = "ok", law_k: str = "ok", ctrl_tau: str = "ok") -> dict:
    tau = {"law:mlp.swiglu": {"status": law_tau}, "law:attn.vo": {"status": "ok"},
           "control:mlp.gelu": {"status": ctrl_tau}}
    k = {"law:mlp.swiglu": {"status": law_k}, "law:attn.vo": {"status": "ok"}}
    return {"tau_slopes": tau, "k_slopes": k, "linear_bar": 1e-12}


@pytest.mark.parametrize(("planted", "linear_max", "expected"), [
    ({}, 1e-16, Verdict.HOLDS),
    ({"law_tau": "out"}, 1e-16, Verdict.FAILS),        # a law drifting O(τ), not O(τ²)
    ({"law_k": "out"}, 1e-16, Verdict.FAILS),          # a law drifting faster than linearly in k
    ({}, 1e-9, Verdict.FAILS),                         # the linear router law moved
    ({"ctrl_tau": "out"}, 1e-16, Verdict.INCONCLUSIVE),  # a control not O(τ): the test is insensitive
    ({"law_tau": "unsure"}, 1e-16, Verdict.INCONCLUSIVE),
    ({"law_k": "unsure"}, 1e-16, Verdict.INCONCLUSIVE),
])
def test_drift_verdict(planted: dict, linear_max: float, expected: Verdict) -> None:
    assert drift_verdict(linear_max=linear_max, **_slopes(**planted))[0] is expected


def test_drift_verdict_needs_a_k_slope_per_law() -> None:
    kw = _slopes()
    del kw["k_slopes"]["law:attn.vo"]
    assert drift_verdict(linear_max=0.0, **kw)[0] is Verdict.INCONCLUSIVE


def test_drift_config_validation() -> None:
    with pytest.raises(ValueError, match="steps must be an int >= 4"):
        DriftConfig(steps=3)
    with pytest.raises(ValueError, match="taus must hold at least 3"):
        DriftConfig(taus=(1e-3, 2e-3))


def test_corank_verdict() -> None:
    assert corank_verdict(smooth_max=0, smooth_margin=5e-4, ctrl_ok=True, margin=1e-8)[0] is Verdict.HOLDS
    assert corank_verdict(smooth_max=1, smooth_margin=5e-4, ctrl_ok=True, margin=1e-8)[0] is Verdict.FAILS
    assert corank_verdict(smooth_max=0, smooth_margin=1e-9, ctrl_ok=True, margin=1e-8)[0] is Verdict.INCONCLUSIVE
    assert corank_verdict(smooth_max=0, smooth_margin=5e-4, ctrl_ok=False, margin=1e-8)[0] is Verdict.INCONCLUSIVE


def test_gating_verdict() -> None:
    assert gating_verdict(agree=True, softmax_moved=False, nonzero=False)[0] is Verdict.HOLDS
    assert gating_verdict(agree=True, softmax_moved=False, nonzero=True)[0] is Verdict.FAILS
    assert gating_verdict(agree=False, softmax_moved=False, nonzero=True)[0] is Verdict.INCONCLUSIVE
    assert gating_verdict(agree=True, softmax_moved=True, nonzero=True)[0] is Verdict.INCONCLUSIVE
