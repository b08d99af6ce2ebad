"""Verdict rules of P21 (glu_ntk) claim checks: symmetric loss-crossing rule, censoring of runs that miss the mark."""

from __future__ import annotations

import pytest

from icml26.claims import Verdict
from icml26.papers.glu_ntk._checks_training import censored_epochs, crossing_verdict


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
