"""The [P33] rules on planted rows: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.gauss_sup._rules import judge_concentration, judge_log_n, judge_ptas, log_levels
from support.planted import load_planted

P = load_planted("gauss_sup")
BARS = {c.id: c.bar_map for c in registry.get_paper("gauss_sup").claims}


def _conc(variances, seeds=(0, 1, 2)):
    return judge_concentration(P.concentration_rows(variances, seeds=seeds), bars=BARS["concentration"])


def test_concentration_support_and_mass_bars():
    held = _conc({5: P.FOUR, 20: P.FOUR})
    assert held.verdict is Verdict.HOLDS and held.measured["support"] == {5: 4, 20: 4}
    six = _conc({20: [0.9 / 6] * 6 + [0.1 / 14] * 14})  # six carry variance, the other 14 hold 10 %: mass fails
    assert six.verdict is Verdict.FAILS and six.measured["support"] == {20: 6}
    assert six.measured["parts"] == {"n=20 support": "holds", "n=20 top mass": "fails", "seeds agree": "holds"}
    seven = _conc({20: [1 / 7] * 7})
    assert seven.verdict is Verdict.FAILS and seven.measured["parts"]["n=20 support"] == "fails"
    below = _conc({20: P.FOUR[:3] + [0.25 - 0.03] + [0.01] * 3})  # σ² = 0.01 does not count (bar: > 0.01)
    assert below.verdict is Verdict.HOLDS and below.measured["support"] == {20: 4}


def test_concentration_disagreeing_seeds_are_inconclusive():
    rows = P.concentration_rows({10: P.FOUR}, seeds=(0, 1))
    rows.append({"n": 10, "seed": 2, "opt": 0.49, "variance": [0.2] * 5 + [0.0] * 5})  # a worse local optimum
    j = judge_concentration(rows, bars=BARS["concentration"])
    assert j.verdict is Verdict.INCONCLUSIVE and j.measured["support_over_seeds"] == {10: [4, 5]}
    assert j.measured["support"] == {10: 4}  # judged at the best OPT


def _ptas(algs, **kw):
    return judge_ptas(P.ptas_rows(algs, **kw), bars=BARS["ptas"])


def test_ptas_guarantee_on_the_gain():
    assert _ptas([0.95, 0.8, 0.99]).verdict is Verdict.HOLDS  # exactly 1 − ε of the gain
    low = _ptas([0.95, 0.79, 0.99])
    assert low.verdict is Verdict.FAILS and low.measured["min_margin"] == pytest.approx(-0.01)
    # judged on the gain over max μ: F/OPT = 0.9 would pass a ratio of values, the gain ratio is 0.5
    padded = _ptas([0.9], opt=1.0, top=0.8)
    assert padded.verdict is Verdict.FAILS and padded.measured["min_gain_ratio"] == pytest.approx(0.5)
    over = _ptas([0.95, 0.97], budget=1.01)
    assert over.verdict is Verdict.FAILS and over.measured["parts"]["budget"] == "fails"


def test_ptas_an_algorithm_above_the_reference_is_not_certified():
    above = _ptas([0.95, 1.001, 0.99])  # the reference (found without the algorithm) is no optimum there
    assert above.verdict is Verdict.INCONCLUSIVE and above.measured["runs_above_reference"] == 1
    assert "no optimum there" in above.reason
    assert _ptas([0.95, 1.0 + 5e-7]).verdict is Verdict.HOLDS  # within the ascent's tolerance
    # a run below 1 − ε of a lower bound on OPT fails whatever the reference misses elsewhere
    assert _ptas([0.7, 1.001]).verdict is Verdict.FAILS


def _log_n(gains, margins, **kw):
    return judge_log_n(P.log_n_rows(gains, margins, **kw), bars=BARS["log_n_approx"], seed=0)


def test_log_n_bound_budget_and_margin():
    assert _log_n([0.95, 0.9, 0.97], [0.3, 0.25, 0.35]).verdict is Verdict.HOLDS
    # within the bound but not clearly better than a trivial allocation: the bound cannot decide
    assert _log_n([0.95, 0.9, 0.97], [0.3, 0.02, 0.35]).verdict is Verdict.INCONCLUSIVE
    assert _log_n([0.6, 0.6, 0.6], [0.0, 0.0, 0.0]).verdict is Verdict.FAILS  # the best trivial allocation itself
    two = _log_n([0.95, 0.9], [0.3, 0.35])
    assert two.verdict is Verdict.INCONCLUSIVE and "only 2" in two.reason  # no CI from two instances
    # one instance below the bound fails, whatever the margin: at n = 20 the bound is 0.4470 / 6 = 0.0745
    assert log_levels(20) == 6
    low = _log_n([0.95, 0.07, 0.97], [0.3, 0.25, 0.35])
    assert low.verdict is Verdict.FAILS and low.measured["below_bound"] == 1
    assert _log_n([0.95, 0.075, 0.97], [0.3, 0.25, 0.35]).verdict is Verdict.HOLDS
    assert _log_n([0.95, 0.05], [0.3, 0.2]).verdict is Verdict.FAILS  # below the bound decides even at n = 2
    assert _log_n([0.95, 0.9, 0.97], [0.3, 0.25, 0.35], budget=1.01).verdict is Verdict.FAILS
