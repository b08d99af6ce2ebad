"""The [P21] rules on planted measurements: each verdict comes out where it should, for the right reason."""

from __future__ import annotations

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.glu_ntk._rules import (
    censored_epochs,
    gap_ratio,
    judge_condition_number,
    judge_crossing,
    judge_faster,
    judge_gap,
    median_ratio_ci,
)
from support.planted import load_planted

P = load_planted("glu_ntk")
BARS = {c.id: c.bar_map for c in registry.get_paper("glu_ntk").claims}


def test_condition_number_rule():
    bars = BARS["smaller_condition_number"]
    held = judge_condition_number(P.spectrum_rows(9.0, 5.0), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("6 of 6 (pair, measure) parts hold")
    assert held.measured["relu/reglu"]["median_kappa_ratio"] == pytest.approx(9.0)
    # a large κ ratio but no more compact spectrum fails on the top share alone
    share = judge_condition_number(P.spectrum_rows(9.0, 1.0), bars=bars)
    assert share.verdict is Verdict.FAILS and "3 of 6" in share.reason
    across = judge_condition_number(P.spectrum_rows(3.0, 5.0), bars=bars)  # κ CI straddles 3
    assert across.verdict is Verdict.INCONCLUSIVE and "straddles" in across.reason
    one_run = judge_condition_number(P.spectrum_rows(9.0, 5.0, runs=1), bars=bars)
    assert one_run.verdict is Verdict.INCONCLUSIVE and "only 1" in one_run.reason
    singular = P.spectrum_rows(9.0, 5.0)
    singular[0]["kappa_ratio"] = float("inf")  # κ_GLU = inf would give 0, κ_nonGLU = inf gives inf: no CI
    assert judge_condition_number(singular, bars=bars).verdict is Verdict.INCONCLUSIVE


def test_median_ratio_ci():
    est = median_ratio_ci([2.0, 4.0, 8.0])
    assert est.value == pytest.approx(4.0) and est.lo <= 4.0 <= est.hi
    assert median_ratio_ci([2.0, float("inf")]).lo != median_ratio_ci([2.0, float("inf")]).lo  # NaN CI
    with pytest.raises(ValueError, match="at least one"):
        median_ratio_ci([])


def test_faster_rule_judges_the_trained_pairs():
    bars = BARS["faster_convergence"]
    held = judge_faster(P.epoch_rows(17, 10), bars=bars, epochs=60)
    assert held.verdict is Verdict.HOLDS and held.measured["glu_win_share"] == 1.0
    assert set(held.measured["by_activation"]) == {"relu", "gelu", "silu"}
    slower = judge_faster(P.epoch_rows(10, 17), bars=bars, epochs=60)
    assert slower.verdict is Verdict.FAILS and "0 of 9 pairs" in slower.reason
    tie = judge_faster(P.epoch_rows(10, 10), bars=bars, epochs=60)  # GLU first in 2 of 9 (ties are no win)
    assert tie.verdict is Verdict.FAILS and tie.measured["glu_win_share"] == pytest.approx(2 / 9)
    rows = P.epoch_rows(17, 10)  # GLU first in 6 of 9 pairs: more than half, fewer than 80 %
    for r in rows[:3]:
        r["epochs_glu"] = 20
    assert judge_faster(rows, bars=bars, epochs=60).verdict is Verdict.INCONCLUSIVE
    assert judge_faster(P.epoch_rows(17, 10, n=2), bars=bars, epochs=60).verdict is Verdict.INCONCLUSIVE


def test_faster_rule_censors_misses():
    bars = BARS["faster_convergence"]
    glu_missed = judge_faster(P.epoch_rows(17, None), bars=bars, epochs=60)  # GLU never reaches the mark: slower
    assert glu_missed.verdict is Verdict.FAILS and glu_missed.measured["censored_glu"] == 9
    both = judge_faster(P.epoch_rows(None, None), bars=bars, epochs=60)  # ratio exactly 1: no win, no decision
    assert both.measured["epochs_ratio"] == [1.0, 1.0, 1.0] and both.measured["parts"]["ratio"] == "inconclusive"


@pytest.mark.parametrize(("lin", "tr", "expected"), [
    (0.8, 1.0, Verdict.HOLDS),
    (1.0, 0.8, Verdict.HOLDS),
    (0.0, 0.0, Verdict.FAILS),
    (0.2, 1.0, Verdict.FAILS),  # rare in one setting: not "characteristic", whatever the other shows
    (1.0, 0.1, Verdict.FAILS),
    (0.22, 1.0, Verdict.INCONCLUSIVE),
    (0.5, 0.5, Verdict.INCONCLUSIVE),
    (0.79, 1.0, Verdict.INCONCLUSIVE),
])
def test_crossing_rule_is_symmetric(lin, tr, expected):
    bars = BARS["loss_crossing"]
    a, b = P.crossings(round(100 * lin), 100), P.crossings(round(100 * tr), 100)
    assert judge_crossing(a, b, bars=bars).verdict is expected
    assert judge_crossing(b, a, bars=bars).verdict is expected  # the two settings play the same role


def test_crossing_rule_reports_both_shares():
    j = judge_crossing(P.crossings(6, 27), P.crossings(3, 3), bars=BARS["loss_crossing"])
    assert j.verdict is Verdict.INCONCLUSIVE and "6 of 27 runs" in j.reason
    assert j.measured["linearized_crossing_share"] == pytest.approx(6 / 27) and j.measured["trained_crossing_share"] == 1
    assert judge_crossing([], P.crossings(3, 3), bars=BARS["loss_crossing"]).verdict is Verdict.INCONCLUSIVE


def test_misses_are_censored_after_the_last_epoch():
    assert censored_epochs(7, epochs=40) == 7
    assert censored_epochs(0, epochs=40) == 0
    assert censored_epochs(None, epochs=40) == 41
    # a GLU miss against a non-GLU hit gives a ratio < 1 (counts against GLU); both missing gives exactly 1
    assert censored_epochs(30, epochs=40) / censored_epochs(None, epochs=40) < 1
    assert censored_epochs(None, epochs=40) / censored_epochs(None, epochs=40) == 1


def _gap(rows, epochs=60):
    return judge_gap(rows, bars=BARS["gap_not_reduced"], epochs=epochs)


def test_gap_rule_holds_when_glu_keeps_the_gap():
    j = _gap(P.gap_rows([0.97, 1.04, 0.95, 1.02, 0.99, 1.05, 0.96, 1.01, 0.98]))
    assert j.verdict is Verdict.HOLDS and j.measured["gap_runs"] == 9 and j.measured["censored_glu"] == 0


def test_gap_rule_fails_for_a_glu_that_halves_removes_or_doubles_the_gap():
    halved = _gap(P.gap_rows(0.5))  # an absolute bar of ±0.1 nats would pass this: Δgap ≈ −0.03 nats
    assert halved.verdict is Verdict.FAILS and halved.measured["gap_ratio_glu_over_non"][2] < 0.75
    assert _gap(P.gap_rows(0.0)).verdict is Verdict.FAILS
    assert _gap(P.gap_rows(2.0)).verdict is Verdict.FAILS


def test_gap_rule_is_inconclusive_when_a_ci_straddles_its_bar():
    noisy = _gap(P.gap_rows([0.4, 1.6, 0.5, 1.5, 0.45, 1.55, 0.6, 1.4, 1.0]))
    lo, hi = noisy.measured["gap_ratio_glu_over_non"][1:]
    assert lo < 0.75 <= hi and noisy.verdict is Verdict.INCONCLUSIVE
    tie = _gap(P.gap_rows(1.0, epochs_non=10, epochs_glu=10))  # speed CI around 1
    assert tie.verdict is Verdict.INCONCLUSIVE and "speed" in tie.reason


def test_gap_rule_speed_side_undefined_gap_and_misses():
    assert _gap(P.gap_rows(1.0, epochs_non=10, epochs_glu=20)).verdict is Verdict.FAILS  # GLU slower
    missed = [{**r, "epochs_non": None, "epochs_glu": None, "gap_non": None, "gap_glu": None} for r in P.gap_rows(1.0)]
    j = _gap(missed)  # nobody reached the mark: the gap is undefined, the speed ratio exactly 1
    assert j.verdict is Verdict.INCONCLUSIVE and "undefined" in j.reason and j.measured["censored_non"] == 9
    glu_missed = [{**r, "epochs_glu": None, "gap_glu": None} for r in P.gap_rows(1.0)]
    j = _gap(glu_missed)  # GLU never reaches it: censored at 61 against ~17 epochs, so GLU is slower
    assert j.verdict is Verdict.FAILS and j.measured["pairs_without_gap"] == 9
    assert _gap(P.gap_rows(1.0, n=1)).verdict is Verdict.INCONCLUSIVE  # one pair: no usable CI


def test_gap_ratio_pairs_and_undefined_cases():
    assert gap_ratio([], []) is None  # no pair reached the train-loss mark
    assert gap_ratio([-0.01, 0.0], [0.02, 0.03]) is None  # no positive non-GLU gap to reduce
    assert gap_ratio(P.GAP_NON, [0.5 * g for g in P.GAP_NON]).value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="gap_non and gap_glu"):
        gap_ratio([0.1, 0.2], [0.1])
