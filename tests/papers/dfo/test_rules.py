"""The [P14] rules on planted rows: each verdict comes out where it should, for the right reason."""

import numpy as np
import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.dfo._experiments import state_filter_gap
from icml26.papers.dfo._rules import in_band, judge_residual, judge_robustness, judge_smoothness
from support.planted import load_planted

P = load_planted("dfo")
BARS = {c.id: c.bar_map for c in registry.get_paper("dfo").claims}


def _res(rows):
    return judge_residual(rows, bars=BARS["residual_minimisation"])


def test_the_band_around_the_truncated_minimum():
    bars = BARS["residual_minimisation"]
    assert in_band(1.005e-6, 1e-6, 1.0, bars) and not in_band(1.02e-6, 1e-6, 1.0, bars)  # 1 % band
    # the round-off slack is relative to ||F||: 1e-10 ||F|| absorbs round-off only
    assert in_band(5e-10, 0.0, 10.0, bars) and not in_band(5e-10, 0.0, 1.0, bars)


def test_residual_part_a_dfo_at_the_minimum_in_every_cell():
    held = _res(P.res_rows([P.AT, P.AT], [1e-5, 1e-5]))
    assert held.verdict is Verdict.HOLDS and held.measured["dfo_at_minimum"] == 2
    # DFO far above the machine-precision minimum but at the truncated one it shares with TSVD: still at the minimum
    assert held.measured["parts"]["(a) DFO at the minimum"] == "holds"
    missed = _res(P.res_rows([P.AT, 1.02e-6], [1e-5, 1e-5]))
    assert missed.verdict is Verdict.FAILS and missed.measured["dfo_missed"] == ["advection/near_duplicate/s1/tol=0.0001"]


def test_residual_part_b_is_judged_where_the_regularisation_acts():
    # Tikhonov at the truncated minimum in 2 of 3 active cells: not biased in a majority
    unbiased = _res(P.res_rows([P.AT] * 3, [1e-5, 1e-6, 1.005e-6]))
    assert unbiased.verdict is Verdict.FAILS and unbiased.measured["parts"]["(b) regularisation biased"] == "fails"
    # Tikhonov below the truncated minimum (it keeps part of the dropped directions): not a bias either
    below = _res(P.res_rows([P.AT] * 3, [1e-5, 5e-7, 5e-7]))
    assert below.verdict is Verdict.FAILS and below.measured["tikhonov_biased"] == 1
    # the same cells with the filters equal to the truncation's (to round-off): the bias cannot show, nothing judged
    inactive = _res(P.res_rows([P.AT] * 3, [1e-5, 1e-6, 1e-6], gap=1e-12))
    assert inactive.verdict is Verdict.INCONCLUSIVE and inactive.measured["active_cells"] == 0
    # only the active cells count: two biased active cells, one inactive unbiased cell
    rows = P.res_rows([P.AT] * 2, [1e-5, 1e-5]) + [P.res_row(P.AT, r_tik=1e-6, gap=0.0, seed=5)]
    mixed = _res(rows)
    assert mixed.verdict is Verdict.HOLDS and mixed.measured["active_cells"] == 2
    assert mixed.measured["inactive"] == ["advection/near_duplicate/s5/tol=0.0001"]


def _tv(ratios):
    return judge_smoothness(P.tv_rows(ratios), bars=BARS["smooth_velocities"])


def test_smoothness_rule_holds_fails_inconclusive():
    held = _tv({"advection": [100.0, 120.0, 110.0]})
    assert held.verdict is Verdict.HOLDS and held.measured["tv_ratio_advection_ci"][0] >= 10
    five = _tv({"advection": [6.0, 7.0, 5.0]})  # smoother than TSVD, but not 10x
    assert five.verdict is Verdict.FAILS and five.measured["tv_ratio_advection_ci"][1] < 10
    straddles = _tv({"advection": [3.0, 16.0, 6.0, 11.0]})  # point 9, CI straddles 10
    assert straddles.verdict is Verdict.INCONCLUSIVE and "straddles" in straddles.reason
    one = _tv({"advection": [50.0]})
    assert one.verdict is Verdict.INCONCLUSIVE and "only 1" in one.reason
    mixed = _tv({"advection": [100.0, 120.0, 110.0], "allen_cahn": [3.0, 16.0, 6.0, 11.0]})
    assert mixed.verdict is Verdict.INCONCLUSIVE and mixed.measured["parts"] == {"advection": "holds",
                                                                                 "allen_cahn": "inconclusive"}
    assert held.measured["tv_ratio_tikhonov_advection"] == pytest.approx(1.5)


def _rob(cells):
    return judge_robustness(P.rob_rows(cells), bars=BARS["singular_robustness"])


def test_robustness_rule_needs_every_cell_and_a_majority():
    assert _rob([P.WORSE, P.BLOWN, P.TIE]).verdict is Verdict.HOLDS  # lstsq worse in 2 of 3
    assert _rob([P.WORSE, P.BLOWN, P.TIE, P.TIE]).verdict is Verdict.FAILS  # 2 of 4: not a strict majority
    off = _rob([P.WORSE, P.BLOWN, (1.2e-3, 1e-3, 5e-3)])  # (i): DFO > 1.1x TSVD in one cell
    assert off.verdict is Verdict.FAILS and off.measured["dfo_missed"] == ["allen_cahn/vanishing/s2/tol=0.0001"]
    blown = _rob([P.WORSE, P.BLOWN, (P.INF, P.INF, P.INF)])
    assert blown.verdict is Verdict.FAILS and blown.measured["dfo_blowups"] == 1
    assert _rob([P.WORSE, P.BLOWN, (1e-3, P.INF, 5e-3)]).verdict is Verdict.HOLDS  # TSVD blew up, DFO did not
    assert _rob([(1e-13, 0.0, 1e-13)] * 3).measured["cells_ok"] == 3  # equal below the 1e-12 floor


def test_filter_gap_against_the_filters_by_hand():
    # lambda = (1e-4)^2: sigma = 1e-3 keeps 0.990 (truncation 1), sigma = 1e-5 keeps 0.0099 (truncation 0)
    assert state_filter_gap(np.diag([1.0, 1e-3, 1e-5, 0.0]), tol=1e-4) == pytest.approx(1 / 101, rel=1e-6)
    assert state_filter_gap(np.diag([1.0, 3e-4]), tol=1e-4) == pytest.approx(0.1, rel=1e-6)  # 0.9 vs 1
    # an exact nullspace is dropped by both, far-apart singular values are kept by both: no gap
    assert state_filter_gap(np.diag([2.0, 1.0, 0.0]), tol=1e-8) < 1e-15
    # the largest direction alone: 1 - 1/(1 + tol^2)
    assert state_filter_gap(np.diag([1.0]), tol=1e-4) == pytest.approx(1e-8, rel=1e-6)
