"""Exact arithmetic for Thm 4.7 of [P04]: the ring Q[ln 3, 1/ln 3], the published counterexample, softmax control."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.conservation import LogPoly, gating_rate_exact, thm47_counterexample

coef = st.fractions(min_value=-5, max_value=5, max_denominator=7)
poly = st.dictionaries(st.integers(-2, 2), coef, max_size=3).map(LogPoly)


@settings(max_examples=60, deadline=None)
@given(poly, poly, poly)
def test_ring_axioms_and_float_evaluation(a: LogPoly, b: LogPoly, c: LogPoly) -> None:
    assert (a + b) * c == a * c + b * c
    assert a - a == LogPoly(0)
    assert math.isclose(float(a * b), float(a) * float(b), rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(float(a + b), float(a) + float(b), rel_tol=1e-9, abs_tol=1e-9)


def test_published_counterexample_is_9_over_250() -> None:
    ce = thm47_counterexample()
    r = gating_rate_exact(ce["router"], ce["experts"], ce["x"], ce["y"], gating="normalized_sigmoid")
    assert r.gates == (Fraction(2, 5), Fraction(3, 5))
    assert [x.rational() for x in r.rate] == list(ce["expected_rate"])
    assert r.loss.rational() == Fraction(9, 50)
    assert [x.rational() for x in r.dL_dz] == [Fraction(-9, 125), Fraction(9, 250)]
    soft = gating_rate_exact(ce["router"], ce["experts"], ce["x"], ce["y"], gating="softmax")
    assert all(x == 0 for x in soft.rate)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=2, max_size=3),
    st.lists(st.integers(-2, 2), min_size=2, max_size=2),
    st.integers(-2, 2),
)
def test_softmax_router_law_exact_for_any_instance(rows: list, x: list, gate_mult: int) -> None:
    """Thms 4.5-4.6: with softmax gating the router-sum rate is exactly 0 for every instance (integer x keeps the
    logits integer multiples of ln 3); normalised-sigmoid gating generally moves it."""
    router = [[LogPoly.ell(1, r0), LogPoly.ell(1, r1)] for r0, r1 in rows]
    A = [[Fraction(1, 2)], [Fraction(-1, 3)]]
    B = [[LogPoly.ell(1, gate_mult)], [LogPoly(0)]]
    experts = [(A, B, [[k + 1, -k]]) for k in range(len(rows))]
    r = gating_rate_exact(router, experts, x, [Fraction(1, 3), 0], gating="softmax")
    assert all(v == 0 for v in r.rate)


def test_bad_input() -> None:
    ce = thm47_counterexample()
    with pytest.raises(ValueError, match="gating must be"):
        gating_rate_exact(ce["router"], ce["experts"], ce["x"], ce["y"], gating="relu")
    with pytest.raises(ValueError, match="router rows must have length"):
        gating_rate_exact([[0, 0]], ce["experts"][:1], ce["x"], ce["y"], gating="softmax")
    with pytest.raises(ValueError, match="not an integer multiple of ln 3"):
        gating_rate_exact([[Fraction(1, 2), 0, 0], [0, 0, 0]], ce["experts"], ce["x"], ce["y"], gating="softmax")
    with pytest.raises(ValueError, match="is not rational"):
        LogPoly.ell(1).rational()
    with pytest.raises(TypeError, match="coeffs must be"):
        LogPoly("x")  # type: ignore[arg-type]
