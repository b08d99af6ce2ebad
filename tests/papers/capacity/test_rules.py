"""The [P01] rules on planted measurements: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.common.stats import Estimate
from icml26.papers.capacity._rules import judge_bits_per_param, judge_mia, judge_rise_then_fall, seed_table
from support.planted import load_planted

P = load_planted("capacity")
BARS = {c.id: c.bar_map for c in registry.get_paper("capacity").claims}


def _fit(alpha, r2=0.99, slope=1.0, plateaus=None):
    return judge_bits_per_param(P.plateau_rows() if plateaus is None else plateaus, alpha=alpha, r2=r2, slope=slope,
                                bars=BARS["bits_per_param"])


@pytest.mark.parametrize(("alpha", "r2", "slope", "verdict"), [
    (Estimate(3.6, 3.4, 3.8), 0.99, 1.0, Verdict.HOLDS),  # CI inside [2.7, 4.5], proportional
    (Estimate(2.07, 2.06, 2.09), 0.999, 0.98, Verdict.FAILS),  # CI wholly below 2.7 (proportional all the same)
    (Estimate(5.0, 4.6, 5.4), 0.99, 1.0, Verdict.FAILS),  # CI wholly above 4.5
    (Estimate(2.8, 2.6, 3.0), 0.99, 1.0, Verdict.INCONCLUSIVE),  # CI across the lower edge 2.7
    (Estimate(3.6, 3.4, 3.8), 0.99, 0.7, Verdict.FAILS),  # α fine, capacity not proportional to P (slope)
    (Estimate(3.6, 3.4, 3.8), 0.5, 1.0, Verdict.FAILS),  # α fine, poor linear fit
    (Estimate(3.6, 3.4, 3.8), 0.99, float("nan"), Verdict.INCONCLUSIVE),  # one model size: slope undefined
])
def test_bits_per_param_rule(alpha, r2, slope, verdict):
    j = _fit(alpha, r2, slope)
    assert j.verdict is verdict, j.reason
    assert j.measured["alpha"] == alpha.value and j.measured["parts"]["α"] in ("holds", "fails", "inconclusive")


def test_bits_per_param_says_what_held_beside_what_failed():
    j = _fit(Estimate(2.07, 2.06, 2.09), 0.999, 0.98)
    assert "2 of 3 parts (α, R², slope) hold" in j.reason and "misses the bar in [2.7, 4.5] (ours)" in j.reason
    assert j.measured["parts"] == {"α": "fails", "R²": "holds", "slope": "holds"}


def test_bits_per_param_unsaturated_or_capped_runs_are_inconclusive():
    at_paper = Estimate(3.6, 3.4, 3.8)
    grew = _fit(at_paper, plateaus=P.plateau_rows(ratio=1.5))  # still growing from 2x to 4x the capacity
    assert grew.verdict is Verdict.INCONCLUSIVE and grew.reason.startswith("not saturated")
    capped = P.plateau_rows()
    capped[0]["on_plateau"] = False  # one run hit max_steps
    j = _fit(at_paper, plateaus=capped)
    assert j.verdict is Verdict.INCONCLUSIVE and "L1d8 seed 0" in j.reason
    far_below = _fit(Estimate(1.0, 0.9, 1.1), plateaus=P.plateau_rows(ratio=0.5))  # a fail is not read either
    assert far_below.verdict is Verdict.INCONCLUSIVE


def test_bits_per_param_one_seed_decides_nothing():
    j = _fit(Estimate(2.07, 2.07, 2.07), plateaus=P.plateau_rows(1))
    assert j.verdict is Verdict.INCONCLUSIVE and "only 1 seeds" in j.reason


def _rise(mem, **kw):
    rows = [{"seed": j, "n_sequences": n, "mem_bits": v} for j, row in enumerate(mem) for n, v in zip(P.NS, row)]
    return judge_rise_then_fall(rows, bars=BARS["rise_then_fall"], **kw)


def _seeds(row, jitter=0.0):
    return [[v + jitter * (j - 1) for v in row] for j in range(3)]


@pytest.mark.parametrize(("mem", "verdict"), [
    (_seeds([100, 400, 300, 100], 5), Verdict.HOLDS),  # interior peak, both ends <= 0.75 × peak
    (_seeds([100, 200, 300, 400], 5), Verdict.FAILS),  # still rising at the largest N: no fall
    (_seeds([350, 400, 100, 50], 5), Verdict.INCONCLUSIVE),  # falls, but rises by only 1/8 of the peak
    (_seeds([400, 300, 200, 100], 5), Verdict.FAILS),  # peak at the smallest N: falls, never rises
    # seed-mean peak at the smallest N by a hair, but one seed rises: the rise's CI straddles 0
    ([[402.0, 399.0, 200, 100], [400.0, 399.5, 200, 100], [398.0, 400.0, 200, 100]], Verdict.INCONCLUSIVE),
])
def test_rise_then_fall_rule(mem, verdict):
    j = _rise(mem)
    assert j.verdict is verdict, j.reason


def test_rise_then_fall_numbers_and_seeds():
    j = _rise(_seeds([100, 400, 300, 100]))
    assert j.measured["peak_n"] == 64 and j.measured["first_over_peak"] == pytest.approx(0.25)
    assert j.measured["rise"] == pytest.approx(0.75) and j.measured["last_over_peak"] == pytest.approx(0.25)
    one = _rise([[100, 400, 300, 100]])
    assert one.verdict is Verdict.INCONCLUSIVE and "only 1 seeds" in one.reason


def _mia(auc):
    rows = [{"seed": j, "n_sequences": n, "mia_auc": v} for j, row in enumerate(auc) for n, v in zip(P.NS, row)]
    return judge_mia(rows, bars=BARS["mia_to_chance"])


@pytest.mark.parametrize(("auc", "verdict"), [
    (_seeds([1.0, 0.9, 0.7, 0.52], 0.01), Verdict.HOLDS),  # drop ~0.48, ends near chance
    (_seeds([0.9, 0.88, 0.87, 0.86], 0.01), Verdict.FAILS),  # barely moves
    (_seeds([1.0, 0.9, 0.8, 0.7], 0.01), Verdict.FAILS),  # drops by 0.3, but ends far from chance
    ([[0.8, 0.7, 0.6, 0.55], [0.8, 0.7, 0.65, 0.62], [0.8, 0.7, 0.66, 0.65]], Verdict.INCONCLUSIVE),  # CIs straddle
])
def test_mia_rule(auc, verdict):
    j = _mia(auc)
    assert j.verdict is verdict, j.reason
    assert j.measured["auc_drop"] == pytest.approx(auc[1][0] - auc[1][-1], abs=0.02)


def test_seed_table_needs_every_seed_at_every_size():
    rows = P.seed_rows("mem_bits", [1.0, 2.0, 3.0, 4.0])
    ns, seeds, t = seed_table(rows, "mem_bits")
    assert ns == list(P.NS) and seeds == [0, 1, 2] and t.shape == (3, 4)
    with pytest.raises(ValueError, match="every seed needs every dataset size"):
        seed_table(rows[:-1], "mem_bits")
