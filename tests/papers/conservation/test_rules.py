"""The [P04] rules on planted rows: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Context, Verdict
from icml26.papers.conservation._checks_model import check_sgd_drift_scaling
from icml26.papers.conservation._rules import (
    judge_corank,
    judge_drift,
    judge_gating,
    judge_invariance,
    judge_llama,
    judge_orthogonal,
)
from icml26.papers.conservation.claims import DriftConfig
from support.planted import load_planted

P = load_planted("conservation")
BARS = {c.id: c.bar_map for c in registry.get_paper("conservation").claims}


def test_invariance_rule_and_its_sensitivity_guards() -> None:
    bars = BARS["group_invariance"]
    assert judge_invariance(P.invariance_rows(), bars=bars).verdict is Verdict.HOLDS
    broken = judge_invariance(P.invariance_rows(law=1e-9), bars=bars)
    assert broken.verdict is Verdict.FAILS and "misses the bar < 1e-12 (notes)" in broken.reason
    blind = judge_invariance(P.invariance_rows(control=1e-9), bars=bars)  # a non-symmetry that changes nothing
    assert blind.verdict is Verdict.INCONCLUSIVE and "insensitive" in blind.reason
    still = judge_invariance(P.invariance_rows(moved=1e-5), bars=bars)  # the group element did not move θ
    assert still.verdict is Verdict.INCONCLUSIVE
    with pytest.raises(ValueError, match="law rows and control rows"):
        judge_invariance([r for r in P.invariance_rows() if r["kind"] == "law"], bars=bars)


def test_orthogonality_rule() -> None:
    bars = BARS["laws_orthogonal"]
    assert judge_orthogonal(P.ortho_rows(), bars=bars).verdict is Verdict.HOLDS
    assert judge_orthogonal(P.ortho_rows(law=1e-3), bars=bars).verdict is Verdict.FAILS
    assert judge_orthogonal(P.ortho_rows(law=2e-10), bars=bars).verdict is Verdict.FAILS  # just over the bar
    blind = judge_orthogonal(P.ortho_rows(control=1e-6), bars=bars)
    assert blind.verdict is Verdict.INCONCLUSIVE and "insensitive" in blind.reason


@pytest.mark.parametrize(("planted", "expected"), [
    ({}, Verdict.HOLDS),
    ({"law_tau": (0.95, 1.0, 1.05)}, Verdict.FAILS),  # a law drifting O(τ), not O(τ²)
    ({"law_tau": (2.6, 2.7, 2.8)}, Verdict.FAILS),  # above the band
    ({"law_k": (1.9, 2.0, 2.1)}, Verdict.FAILS),  # drift growing like k², not k
    ({"law_k": (0.4, 0.5, 0.6)}, Verdict.FAILS),  # clearly sub-linear growth in k: outside the band around 1
    ({"law_k": (0.6, 0.8, 1.0)}, Verdict.INCONCLUSIVE),  # the CI straddles the band's lower edge
    ({"linear": 1e-9}, Verdict.FAILS),  # the linear router law moved
    ({"control_tau": (1.9, 2.0, 2.1)}, Verdict.INCONCLUSIVE),  # a control not O(τ): the test is insensitive
    ({"law_tau": (1.5, 1.8, 2.1)}, Verdict.INCONCLUSIVE),
])
def test_drift_rule(planted: dict, expected: Verdict) -> None:
    j = judge_drift(P.drift_rows(**planted), bars=BARS["sgd_drift_scaling"])
    assert j.verdict is expected, j.reason


def test_drift_rule_needs_three_rows_per_kind_and_a_law() -> None:
    bars = BARS["sgd_drift_scaling"]
    few = judge_drift(P.drift_rows(law_tau=(2.0, 2.0), law_k=(1.0, 1.0)), bars=bars)
    assert few.verdict is Verdict.INCONCLUSIVE and "only 2 (< 3)" in few.reason
    controls_only = [r for r in P.drift_rows() if r["kind"].startswith("control")]
    assert judge_drift(controls_only, bars=bars).verdict is Verdict.INCONCLUSIVE


def test_drift_check_refuses_a_config_without_three_record_points() -> None:
    ctx = Context(seeds=(0,), bars=BARS["sgd_drift_scaling"])
    with pytest.raises(ValueError, match="steps >= 4"):
        check_sgd_drift_scaling(DriftConfig(steps=3), ctx)
    with pytest.raises(ValueError, match=">= 3 step sizes"):
        check_sgd_drift_scaling(DriftConfig(taus=(1e-3, 2e-3)), ctx)


def test_corank_rule() -> None:
    bars = BARS["gelu_silu_no_law"]
    assert judge_corank(P.corank_rows(), bars=bars).verdict is Verdict.HOLDS
    deficient = judge_corank(P.corank_rows(smooth_sv=1e-14, smooth_corank=1), bars=bars)
    assert deficient.verdict is Verdict.FAILS and "fail bar <= 1e-10" in deficient.reason
    thin = judge_corank(P.corank_rows(smooth_sv=1e-9), bars=bars)  # full rank, but within the margin
    assert thin.verdict is Verdict.INCONCLUSIVE
    unreliable = judge_corank(P.corank_rows(control_ok=False), bars=bars)
    assert unreliable.verdict is Verdict.INCONCLUSIVE and "insensitive" in unreliable.reason


def test_gating_rule() -> None:
    bars = BARS["sigmoid_gating_law"]
    assert judge_gating(**P.gating(), bars=bars).verdict is Verdict.HOLDS
    refuted = judge_gating(**P.gating(exact=(0.036, 0.0, 0.0)), bars=bars)
    assert refuted.verdict is Verdict.FAILS and "misses the bar <= 0 (paper)" in refuted.reason
    disagree = judge_gating(**P.gating(exact=(0.036, 0, 0), float64=(0.035, 0, 0)), bars=bars)
    assert disagree.verdict is Verdict.FAILS  # a failure of the law is not hidden by a failed cross-check
    assert "float64 cross-check" in disagree.reason
    blind = judge_gating(**P.gating(softmax=(0.01, 0.0, 0.0)), bars=bars)  # the softmax control moved
    assert blind.verdict is Verdict.INCONCLUSIVE
    with pytest.raises(ValueError, match="same, non-zero length"):
        judge_gating(exact_rate=[0.0], softmax_rate=[0.0, 0.0], float64_rate=[0.0], bars=bars)


@pytest.mark.parametrize(("planted", "expected"), [
    ({}, Verdict.HOLDS),
    ({"law": 1e-9}, Verdict.FAILS),  # the group element changed the logits
    ({"rate": 1e-3}, Verdict.FAILS),  # a law not orthogonal to the gradient
    ({"law_tau": (0.95, 1.0, 1.05)}, Verdict.FAILS),  # a law drifting O(τ) under GD
    ({"control_rate": 1e-6}, Verdict.INCONCLUSIVE),  # the non-laws show no rate: the test is blind
])
def test_llama_rule(planted: dict, expected: Verdict) -> None:
    j = judge_llama(**P.llama(**planted), bars=BARS["llama_invariance_and_laws"])
    assert j.verdict is expected, j.reason
