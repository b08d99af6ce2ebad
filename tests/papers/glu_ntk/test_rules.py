"""Verdict rules of P21 (glu_ntk) claim checks: symmetric loss-crossing rule, censoring of runs that miss the mark,
the relative gap rule of ``gap_not_reduced``."""

from __future__ import annotations

import pytest

from icml26.claims import Verdict
from icml26.common.stats import Estimate
from icml26.papers.glu_ntk._checks_training import (
    censored_epochs,
    crossing_verdict,
    gap_ratio,
    gap_verdict,
)


@pytest.mark.parametrize(
    ("lin", "tr", "expected"),
    [
        (0.8, 1.0, Verdict.HOLDS),
        (1.0, 0.8, Verdict.HOLDS),
        (0.0, 0.0, Verdict.FAILS),
        (0.2, 1.0, Verdict.FAILS),  # rare in one setting: not "characteristic", whatever the other shows
        (1.0, 0.1, Verdict.FAILS),
        (0.22, 1.0, Verdict.INCONCLUSIVE),
        (0.5, 0.5, Verdict.INCONCLUSIVE),
        (0.79, 1.0, Verdict.INCONCLUSIVE),
    ],
)
def test_crossing_rule_is_symmetric(lin, tr, expected):
    assert crossing_verdict(lin, tr) is expected
    assert crossing_verdict(tr, lin) is expected  # the two settings play the same role


def test_crossing_rule_rejects_overlapping_bars():
    with pytest.raises(ValueError, match="rare_share"):
        crossing_verdict(0.5, 0.5, robust_share=0.5, rare_share=0.6)


def test_misses_are_censored_after_the_last_epoch():
    assert censored_epochs(7, epochs=40) == 7
    assert censored_epochs(0, epochs=40) == 0
    assert censored_epochs(None, epochs=40) == 41
    # a GLU miss against a non-GLU hit gives a ratio < 1 (counts against GLU); both missing gives exactly 1
    assert censored_epochs(30, epochs=40) / censored_epochs(None, epochs=40) < 1
    assert censored_epochs(None, epochs=40) / censored_epochs(None, epochs=40) == 1


# gaps of the size measured on digits (ReLU/ReGLU, train loss 0.1: ~0.05 nats), 3 seeds x 3 activation pairs
_GAP_NON = [0.058, 0.050, 0.055, 0.061, 0.047, 0.052, 0.057, 0.049, 0.054]
_FAST = Estimate(1.7, 1.6, 1.8)


def test_gap_rule_holds_when_glu_keeps_the_gap():
    glu = [g * f for g, f in zip(_GAP_NON, [0.97, 1.04, 0.95, 1.02, 0.99, 1.05, 0.96, 1.01, 0.98])]
    assert gap_verdict(gap_ratio(_GAP_NON, glu, seed=0), _FAST) is Verdict.HOLDS


def test_gap_rule_fails_for_a_planted_glu_that_halves_the_gap():
    # the old absolute bar (|Δgap| <= 0.1 nats) passed this: Δgap ≈ -0.03 nats
    glu = [0.5 * g for g in _GAP_NON]
    r = gap_ratio(_GAP_NON, glu, seed=0)
    assert r.value == pytest.approx(0.5) and r.hi < 0.75
    assert gap_verdict(r, _FAST) is Verdict.FAILS
    glu_zero = [0.0 * g for g in _GAP_NON]  # a GLU that removes the gap entirely
    assert gap_verdict(gap_ratio(_GAP_NON, glu_zero, seed=0), _FAST) is Verdict.FAILS
    doubled = [2.0 * g for g in _GAP_NON]  # ... or doubles it
    assert gap_verdict(gap_ratio(_GAP_NON, doubled, seed=0), _FAST) is Verdict.FAILS


def test_gap_rule_is_inconclusive_when_a_ci_straddles_its_bar():
    noisy = [g * f for g, f in zip(_GAP_NON, [0.4, 1.6, 0.5, 1.5, 0.45, 1.55, 0.6, 1.4, 1.0])]
    r = gap_ratio(_GAP_NON, noisy, seed=0)
    assert r.lo < 0.75 <= r.value <= r.hi  # straddles the lower edge of the band: neither inside nor outside
    assert gap_verdict(r, _FAST) is Verdict.INCONCLUSIVE
    same = gap_ratio(_GAP_NON, list(_GAP_NON), seed=0)
    assert gap_verdict(same, Estimate(1.1, 0.9, 1.3)) is Verdict.INCONCLUSIVE  # speed CI straddles 1


def test_gap_rule_speed_side_and_undefined_gap():
    same = gap_ratio(_GAP_NON, list(_GAP_NON), seed=0)
    assert gap_verdict(same, Estimate(0.8, 0.7, 0.9)) is Verdict.FAILS  # GLU slower
    assert gap_ratio([], [], seed=0) is None  # no pair reached the train-loss mark
    assert gap_ratio([-0.01, 0.0], [0.02, 0.03], seed=0) is None  # no positive non-GLU gap to reduce
    assert gap_verdict(None, _FAST) is Verdict.INCONCLUSIVE  # an undefined gap can never hold
    assert gap_verdict(None, Estimate(0.8, 0.7, 0.9)) is Verdict.FAILS


def test_gap_rule_rejects_bad_inputs():
    with pytest.raises(ValueError, match="band"):
        gap_verdict(None, _FAST, band=(1.2, 1.5))
    with pytest.raises(ValueError, match="gap_non and gap_glu"):
        gap_ratio([0.1, 0.2], [0.1], seed=0)
