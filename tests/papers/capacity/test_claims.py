"""The claim checks of [P01] reach every verdict: the sweeps are replaced by planted rows (no training), so each
decision rule is exercised on numbers whose verdict is known in advance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icml26.claims import Context, Verdict
from icml26.common.stats import Estimate
from icml26.papers.capacity import claims as C
from icml26.papers.capacity._sweep import CapacitySweep

CTX = Context(seeds=(0, 1, 2), budget="small")


def _plant_uniform(monkeypatch, alpha: float, *, last_growth: float = 1.0) -> None:
    """Every (size, N, seed): mem = min(alpha·P, dataset bits) (a flat plateau at alpha bits/param), the largest N
    multiplied by ``last_growth`` (1 = flat), with a ±0.5 % seed jitter."""

    def fake(model_sizes, dataset_sizes, *, seeds, vocab_size, seq_len, train, **_):
        rows = []
        for L, d in model_sizes:
            P = C._n_params(L, d, vocab_size, seq_len)
            ns = sorted(dataset_sizes[(L, d)])
            for n in ns:
                for s in seeds:
                    bits = n * seq_len * math.log2(vocab_size)
                    mem = min(alpha * P, bits) * (1 + 0.005 * (s - 1)) * (last_growth if n == ns[-1] else 1.0)
                    rows.append({"n_layer": L, "d_model": d, "n_params": P, "n_sequences": n, "seed": s,
                                 "dataset_bits": bits, "mem_bits": mem, "saturated": True})
        return CapacitySweep(rows=rows)

    monkeypatch.setattr(C, "capacity_sweep", fake)


@pytest.mark.parametrize(("alpha", "growth", "verdict"), [
    (1.0, 1.0, Verdict.FAILS),  # flat plateau, far below 3.6 ± 25 %
    (2.07, 1.0, Verdict.FAILS),  # the small run's α (review 3): proportional, but below [2.7, 4.5]
    (3.6, 1.0, Verdict.HOLDS),  # flat plateau at the paper's value
    (3.6, 1.5, Verdict.INCONCLUSIVE),  # mem(4×)/mem(2×) = 1.5: not saturated, α cannot be read
])
def test_bits_per_param_verdicts_on_planted_rows(monkeypatch, alpha, growth, verdict):
    _plant_uniform(monkeypatch, alpha, last_growth=growth)
    r = C.check_bits_per_param(C.SweepConfig(), CTX)
    assert r.verdict == verdict, r.reason
    if growth == 1.0:
        assert r.measured["alpha"] == pytest.approx(alpha, rel=0.01)


def test_bits_per_param_not_on_plateau_is_inconclusive(monkeypatch):
    _plant_uniform(monkeypatch, 3.6)
    inner = C.capacity_sweep

    def capped(*a, **k):
        sweep = inner(*a, **k)
        sweep.rows[0]["saturated"] = False  # one run hit max_steps
        return sweep

    monkeypatch.setattr(C, "capacity_sweep", capped)
    assert C.check_bits_per_param(C.SweepConfig(), CTX).verdict == Verdict.INCONCLUSIVE


@pytest.mark.parametrize(("alpha", "r2", "slope", "verdict"), [
    (Estimate(3.6, 3.4, 3.8), 0.99, 1.0, Verdict.HOLDS),  # CI inside [2.7, 4.5], proportional
    (Estimate(2.07, 2.06, 2.09), 0.999, 0.98, Verdict.FAILS),  # CI wholly below 2.7
    (Estimate(5.0, 4.6, 5.4), 0.99, 1.0, Verdict.FAILS),  # CI wholly above 4.5
    (Estimate(2.8, 2.6, 3.0), 0.99, 1.0, Verdict.INCONCLUSIVE),  # CI across the lower edge 2.7
    (Estimate(3.6, 3.4, 3.8), 0.99, 0.7, Verdict.FAILS),  # α fine, capacity not proportional to P (slope)
    (Estimate(3.6, 3.4, 3.8), 0.5, 1.0, Verdict.FAILS),  # α fine, poor linear fit
    (Estimate(3.6, 3.4, 3.8), 0.99, float("nan"), Verdict.INCONCLUSIVE),  # one model size: slope undefined
])
def test_bits_per_param_rule_on_planted_fits(alpha, r2, slope, verdict):
    assert C.ALPHA_BAND == pytest.approx((2.7, 4.5))
    v, why = C.bits_per_param_verdict(alpha, r2=r2, slope=slope)
    assert v == verdict, why


def _plant_markov(monkeypatch, mem: list[list[float]], auc: list[list[float]]) -> None:
    """Rows per (seed, N): mem_U = mem[seed][i], MIA AUC = auc[seed][i]."""

    def fake(model_sizes, dataset_sizes, *, seeds, vocab_size, seq_len, **_):
        rows = []
        for j, s in enumerate(seeds):
            for i, n in enumerate(sorted(dataset_sizes)):
                rows.append({"n_layer": 1, "d_model": 8, "n_params": 1056, "n_sequences": n, "seed": s,
                             "dataset_bits": 28.0 * n, "mem_bits": mem[j][i], "mem_bits_heldout": 0.0,
                             "mia_auc": auc[j][i], "mia_f1": auc[j][i], "test_bits_per_token": 2.0,
                             "ref_bits_per_token": 1.8, "saturated": True})
        return CapacitySweep(rows=rows)

    monkeypatch.setattr(C, "capacity_sweep", fake)


def _seeds(row: list[float], jitter: float = 0.0) -> list[list[float]]:
    return [[v + jitter * (j - 1) for v in row] for j in range(3)]


FLAT_AUC = _seeds([0.6, 0.6, 0.6, 0.6])


@pytest.mark.parametrize(("mem", "verdict"), [
    (_seeds([100, 400, 300, 100], 5), Verdict.HOLDS),  # interior peak, both ends <= 0.75 × peak
    (_seeds([100, 200, 300, 400], 5), Verdict.FAILS),  # still rising at the largest N
    (_seeds([350, 400, 100, 50], 5), Verdict.INCONCLUSIVE),  # falls, but the smallest N is not below the bar
    (_seeds([400, 300, 200, 100], 5), Verdict.FAILS),  # peak at the smallest N: falls, never rises
    # seed-mean peak at the smallest N by a hair, but one seed rises: the rise's CI straddles 0, no "no rise" verdict
    ([[402.0, 399.0, 200, 100], [400.0, 399.5, 200, 100], [398.0, 400.0, 200, 100]], Verdict.INCONCLUSIVE),
])
def test_rise_then_fall_verdicts_on_planted_rows(monkeypatch, mem, verdict):
    _plant_markov(monkeypatch, mem, FLAT_AUC)
    r = C.check_rise_then_fall(C.SweepConfig(**C._MARKOV), CTX)
    assert r.verdict == verdict, r.reason


@pytest.mark.parametrize(("auc", "verdict"), [
    (_seeds([1.0, 0.9, 0.7, 0.52], 0.01), Verdict.HOLDS),  # drop ~0.48, ends near chance
    (_seeds([0.9, 0.88, 0.87, 0.86], 0.01), Verdict.FAILS),  # barely moves
    ([[0.8, 0.7, 0.6, 0.55], [0.8, 0.7, 0.65, 0.62], [0.8, 0.7, 0.66, 0.65]], Verdict.INCONCLUSIVE),  # CIs straddle
])
def test_mia_to_chance_verdicts_on_planted_rows(monkeypatch, auc, verdict):
    _plant_markov(monkeypatch, _seeds([100, 400, 300, 100]), auc)
    r = C.check_mia_to_chance(C.SweepConfig(**C._MARKOV), CTX)
    assert r.verdict == verdict, r.reason
    assert np.isfinite(r.measured["auc_drop"])
