"""[P29] rules: the interpolated budget-to-accuracy against closed forms, and the planted tables both ways."""

import pytest

from icml26.claims import Verdict
from icml26.papers.memocr._rules import RULES, budget_to_reach
from icml26.registry import get_paper
from support.planted import load_planted

_planted = load_planted("memocr")
PLANTED, rows, curve = _planted.PLANTED, _planted.rows, _planted.curve


def test_budget_to_reach_closed_forms():
    assert budget_to_reach([4, 16, 64], [0.0, 0.5, 1.0], 0.5) == pytest.approx(16)
    assert budget_to_reach([4, 16], [0.0, 1.0], 0.5) == pytest.approx(8)  # halfway in log budget
    assert budget_to_reach([4, 16], [0.9, 1.0], 0.5) == pytest.approx(4)  # clamped at the small end
    assert budget_to_reach([4, 16], [0.1, 0.2], 0.5) == pytest.approx(16)  # clamped at the large end
    assert budget_to_reach([4, 16, 64], [0.6, 0.2, 0.8], 0.5) == pytest.approx(4)  # the first crossing


@pytest.mark.parametrize("claim", sorted(RULES))
def test_planted_both_ways(claim):
    bars = {b.name: b for b in next(c for c in get_paper("memocr").claims if c.id == claim).bars}
    p = PLANTED[claim]
    assert RULES[claim](**p.holds, bars=bars).verdict is Verdict.HOLDS
    assert RULES[claim](**p.fails, bars=bars).verdict is Verdict.FAILS


def test_one_seed_is_inconclusive():
    bars = {b.name: b for b in next(c for c in get_paper("memocr").claims if c.id == "low_budget_gain").bars}
    rows = [r for r in PLANTED["low_budget_gain"].holds["rows"] if r["seed"] == 0]
    assert RULES["low_budget_gain"](rows, bars=bars).verdict is Verdict.INCONCLUSIVE


def test_efficiency_below_the_bar_from_a_clamped_curve_is_not_a_failure():
    """Layout already at the target at the smallest budget: the ratio is a lower bound, so missing 8x is not shown."""
    bars = {b.name: b for b in next(c for c in get_paper("memocr").claims if c.id == "token_efficiency").bars}
    acc = {"layout": curve(0.9, 0.9, 0.9, 0.9, 0.9, 1.0), "uniform": curve(0, 0.9, 0.9, 0.9, 0.9, 1.0),
           "text": curve(0, 0.9, 0.9, 0.9, 0.9, 1.0)}
    j = RULES["token_efficiency"](rows(acc), bars=bars)
    assert j.verdict is Verdict.INCONCLUSIVE and j.measured["lower_bound"]
    assert "lower bound" in j.reason
    unclamped = {**acc, "layout": curve(0.0, 0.9, 0.9, 0.9, 0.9, 1.0)}
    assert RULES["token_efficiency"](rows(unclamped), bars=bars).verdict is Verdict.FAILS
