"""The shared verdict rules on planted estimates, on both sides of every bar."""

import math

import pytest

from icml26.claims import Bar, Basis, Verdict
from icml26.common.stats import Estimate
from icml26.verdicts import (
    Judgement,
    against_bar,
    all_of,
    contended,
    describe,
    enough_seeds,
    non_inferior,
    settle,
    share,
    sign,
)

H, F, I, U = Verdict.HOLDS, Verdict.FAILS, Verdict.INCONCLUSIVE, Verdict.UNSUPPORTED


def _bar(op, value, prov="ours"):
    return Bar("b", op, value, prov, "planted")


@pytest.mark.parametrize(
    ("op", "value", "est", "want"),
    [
        ("<=", 1.5, Estimate(1.2, 1.1, 1.5), H),
        ("<=", 1.5, Estimate(1.6, 1.51, 1.7), F),
        ("<=", 1.5, Estimate(1.4, 1.3, 1.6), I),
        ("<", 1.5, Estimate(1.4, 1.3, 1.5), I),  # the CI touches the strict bar
        ("<", 1.5, Estimate(1.6, 1.5, 1.7), F),
        (">=", 10.0, Estimate(12, 10, 14), H),
        (">=", 10.0, Estimate(6, 5, 7), F),
        (">=", 10.0, Estimate(9, 8, 11), I),
        (">", 0.0, Estimate(0.5, 0.0, 1.0), I),
        ("in", (2.7, 4.5), Estimate(3.6, 3.0, 4.0), H),
        ("in", (2.7, 4.5), Estimate(2.07, 2.0, 2.2), F),
        ("in", (2.7, 4.5), Estimate(2.8, 2.5, 3.0), I),
        ("in", (2.7, 4.5), Estimate(5.0, 4.6, 5.5), F),
        ("<=", 1.5, 1.5, H),  # a number without spread is decided exactly
        ("<=", 1.5, 1.50001, F),
        (">=", 1.0, math.inf, H),
    ],
)
def test_against_bar_both_sides(op, value, est, want):
    j = against_bar("x", est, _bar(op, value))
    assert j.verdict is want, j.reason
    assert "x = " in j.reason and "(ours)" in j.reason
    assert j.measured["x"]["call"] == want.value and j.measured["x"]["bar"] == _bar(op, value).threshold


def test_against_bar_min_n_nan_timed_and_fail_bar():
    good = Estimate(12, 11, 13)
    assert against_bar("x", good, _bar(">=", 10), n=2, min_n=3).verdict is I
    assert "only 2" in against_bar("x", good, _bar(">=", 10), n=2, min_n=3).reason
    assert against_bar("x", math.nan, _bar(">=", 10)).verdict is I
    t = against_bar("speed", good, _bar(">=", 10), timed=True)
    assert t.verdict is H and not t.measured and "speed" in t.timings
    hold, fail = _bar(">=", 0.8), Bar("b_fail", "<=", 0.2, "ours", "planted")
    assert against_bar("share", 0.9, hold, fail_bar=fail).verdict is H
    assert against_bar("share", 0.1, hold, fail_bar=fail).verdict is F
    assert against_bar("share", 0.5, hold, fail_bar=fail).verdict is I  # between the bars
    with pytest.raises(TypeError):
        against_bar("x", "1.0", hold)


def test_non_inferior_sign_share():
    margin = _bar(">=", -0.05)
    assert non_inferior("d", Estimate(0.0, -0.03, 0.02), margin).verdict is H
    assert non_inferior("d", Estimate(-0.2, -0.3, -0.1), margin).verdict is F
    assert non_inferior("d", Estimate(-0.04, -0.1, 0.0), margin).verdict is I
    assert "non-inferior within margin 0.05" in non_inferior("d", Estimate(0.0, -0.03, 0.02), margin).reason
    with pytest.raises(ValueError, match="margin"):
        non_inferior("d", 0.0, _bar("<=", 0.05))
    assert sign("d", Estimate(1, 0.5, 2), expected=1).verdict is H
    assert sign("d", Estimate(-1, -2, -0.5), expected=1).verdict is F
    assert sign("d", Estimate(0.2, -0.1, 0.5), expected=1).verdict is I
    assert sign("d", Estimate(-1, -2, -0.5), expected=-1).verdict is H
    assert sign("d", Estimate(1, 0.5, 2), expected=1, n=2, min_n=3).verdict is I
    with pytest.raises(ValueError):
        sign("d", 1.0, expected=0)
    assert share("crossing", 9, 10, _bar(">=", 0.8)).verdict is H
    assert share("crossing", 7, 10, _bar(">=", 0.8)).verdict is F
    assert "9 of 10 runs" in share("crossing", 9, 10, _bar(">=", 0.8)).reason
    with pytest.raises(ValueError):
        share("c", 3, 2, _bar(">=", 0.5))


def test_all_of_counts_every_outcome():
    h, f, i = Judgement(H, "ok"), Judgement(F, "lost"), Judgement(I, "open")
    j = all_of({f"cell{k}": h for k in range(41)} | {"c41": f, "c42": i, "c43": i}, what="pairs")
    assert j.verdict is F and j.reason.startswith("41 of 44 pairs hold (41 holds, 1 fails, 2 inconclusive)")
    assert "c41: lost" in j.reason and j.measured["parts"]["c41"] == "fails"
    assert all_of({"a": h, "b": h}).verdict is H
    assert all_of({"a": h, "b": i}).verdict is I
    assert all_of({"a": Judgement(U, "no gpu")}).verdict is U
    with pytest.raises(ValueError):
        all_of({})
    assert enough_seeds(2).verdict is I and enough_seeds(3) is None


def test_settle_applies_the_basis():
    assert settle(F, "r", basis=Basis.PAPER) == (F, "r")
    v, why = settle(F, "missed", basis=Basis.RECONSTRUCTION, note="rebuilt from the abstract")
    assert v is I and why.startswith("our reconstruction (rebuilt from the abstract): against our bar it fails")
    v, why = settle(F, "missed", basis=Basis.SCALED, note="1-4K params vs 500K-1.5B")
    assert v is I and why.startswith("scaled down (1-4K params vs 500K-1.5B)")
    assert settle(H, "met", basis=Basis.SCALED, note="n")[0] is H
    for v0 in (H, F, I):
        v, why = settle(v0, "0.97x", basis=Basis.PLATFORM, note="no GPU")
        assert v is U and f"against our bar: {v0.value}" in why and "0.97x" in why
    assert settle(Verdict.ERROR, "boom", basis=Basis.SCALED, note="n") == (Verdict.ERROR, "boom")


def test_contended_never_lets_a_busy_machine_decide():
    for v0 in (H, F):
        v, why = contended(v0, "1.52x", why="other processes used 1.9 cores")
        assert v is I and v0.value in why and "1.52x" in why
    assert contended(U, "x", why="w")[0] is U


def test_describe():
    assert describe("r", Estimate(1.0, 0.9, 1.1), 5) == "r = 1 [0.9, 1.1] (n = 5)"
    assert describe("r", 2.0) == "r = 2"
    with pytest.raises(ValueError):
        Judgement(Verdict.ERROR, "x")
