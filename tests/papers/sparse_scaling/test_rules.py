"""The [P37] rules on planted rows: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.sparse_scaling._rules import (
    judge_delayed_saturation,
    judge_law_values,
    judge_optimal_sparsity,
    rounding_units,
)
from support.planted import load_planted

P = load_planted("sparse_scaling")
BARS = {c.id: c.bar_map for c in registry.get_paper("sparse_scaling").claims}


def test_rounding_units_is_half_a_last_digit() -> None:
    assert rounding_units(2.87638, 2.8764, 4) == pytest.approx(0.4)
    assert rounding_units(4.4047, 4.40, 2) == pytest.approx(0.94)
    assert rounding_units(4.406, 4.40, 2) > 1  # 4.406 rounds to 4.41, not 4.40


def test_law_values_names_the_worst_number() -> None:
    j = judge_law_values(P.law_rows([0.0, 4e-5, 1e-5]), bars=BARS["law_values"])
    assert j.verdict is Verdict.HOLDS and j.measured["worst"] == "q1" and j.measured["max_units"] == pytest.approx(0.8)
    bad = judge_law_values(P.law_rows([0.0, 6e-5, 1e-5]), bars=BARS["law_values"])
    assert bad.verdict is Verdict.FAILS and bad.measured["not_reproduced"] == ["q1"] and "2 of 3" in bad.reason
    assert "1 of them derived" in j.reason
    assert judge_law_values([], bars=BARS["law_values"]).verdict is Verdict.INCONCLUSIVE


def test_delay_ratio_holds_fails_and_straddles() -> None:
    bars = BARS["delayed_saturation"]
    held = judge_delayed_saturation(P.fit_rows([1.5, 1.6, 1.4]), bars=bars, sparse_density=0.5)
    assert held.verdict is Verdict.HOLDS
    assert held.measured["ratio"] == pytest.approx((1.5 * 1.6 * 1.4) ** (1 / 3))
    assert held.measured["ratios"] == {"0": 1.5, "1": 1.6, "2": 1.4}
    between = judge_delayed_saturation(P.fit_rows([1.02, 1.05, 1.08]), bars=bars, sparse_density=0.5)
    assert between.verdict is Verdict.INCONCLUSIVE and "straddles" in between.reason
    mixed = judge_delayed_saturation(P.fit_rows([0.7, 1.6, 1.5]), bars=bars, sparse_density=0.5)
    assert mixed.verdict is Verdict.INCONCLUSIVE
    none = judge_delayed_saturation(P.fit_rows([0.9, 1.0, 0.95]), bars=bars, sparse_density=0.5)
    assert none.verdict is Verdict.FAILS and "fail bar" in none.reason


def test_unsaturated_or_too_few_seeds_are_inconclusive() -> None:
    bars = BARS["delayed_saturation"]
    two = judge_delayed_saturation(P.fit_rows([1.5, 1.6]), bars=bars, sparse_density=0.5)
    assert two.verdict is Verdict.INCONCLUSIVE and "only 2" in two.reason
    bound = judge_delayed_saturation(P.fit_rows([1.5, 1.6, 1.4], at_bound=(1,)), bars=bars, sparse_density=0.5)
    assert bound.verdict is Verdict.INCONCLUSIVE and bound.measured["unidentified_seeds"] == [1]
    assert "no saturation" in bound.reason
    other = judge_delayed_saturation(P.fit_rows([1.5, 1.6, 1.4], sparse=0.25), bars=bars, sparse_density=0.5)
    assert other.verdict is Verdict.INCONCLUSIVE  # no run at the density the claim is about


def test_optimal_sparsity_judges_only_the_fixed_data_slices() -> None:
    bars = BARS["loss_optimal_sparsity"]
    held = judge_optimal_sparsity(P.slice_rows([0.446] * 3, extra=0.25), bars=bars)
    assert held.verdict is Verdict.HOLDS and "fixed size (notes): 25.0% (not judged)" in held.reason
    low = judge_optimal_sparsity(P.slice_rows([0.446, 0.446, 0.35]), bars=bars)
    assert low.verdict is Verdict.FAILS and low.measured["parts"]["fixed data U=1.3e+11"] == "fails"
    edge = judge_optimal_sparsity(P.slice_rows([0.4, 0.6, 0.5]), bars=bars)
    assert edge.verdict is Verdict.HOLDS  # a closed band
    assert judge_optimal_sparsity(P.slice_rows([], extra=0.3), bars=bars).verdict is Verdict.INCONCLUSIVE
