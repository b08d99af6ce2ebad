"""The claim checks of [P01] reach every verdict: the sweeps are replaced by planted rows (no training), so the check's
wiring (dataset sizes, plateaus, fit, the rule, the shared Markov sweep) is exercised on numbers whose verdict is known
in advance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icml26 import registry
from icml26.claims import Context, Memo, Verdict
from icml26.papers.capacity import _checks as C
from icml26.papers.capacity import claims
from icml26.papers.capacity._sweep import CapacitySweep

BARS = {c.id: c.bar_map for c in registry.get_paper("capacity").claims}


def _ctx(claim: str, memo: Memo | None = None) -> Context:
    return Context(seeds=(0, 1, 2), budget="small", bars=BARS[claim], memo=Memo() if memo is None else memo)


def _plant_uniform(monkeypatch, alpha: float, *, last_growth: float = 1.0) -> None:
    """Every (size, N, seed): mem = min(alpha·P, dataset bits) (a flat plateau at alpha bits/param), the largest N
    multiplied by ``last_growth`` (1 = flat), with a ±0.5 % seed jitter."""

    def fake(model_sizes, dataset_sizes, *, seeds, vocab_size, seq_len, train, **_):
        rows = []
        for L, d in model_sizes:
            P = C.n_params(L, d, vocab_size, seq_len)
            ns = sorted(dataset_sizes[(L, d)])
            for n in ns:
                for s in seeds:
                    bits = n * seq_len * math.log2(vocab_size)
                    mem = min(alpha * P, bits) * (1 + 0.005 * (s - 1)) * (last_growth if n == ns[-1] else 1.0)
                    rows.append({"n_layer": L, "d_model": d, "n_params": P, "n_sequences": n, "seed": s,
                                 "dataset_bits": bits, "mem_bits": mem, "saturated": True})
        return CapacitySweep(rows=rows)

    monkeypatch.setattr(C, "capacity_sweep", fake)


def test_dataset_sizes_sit_at_multiples_of_the_papers_capacity():
    cfg = claims.SweepConfig()
    sizes = C.uniform_dataset_sizes(cfg)
    for (L, d), ns in sizes.items():
        cap_seqs = 3.6 * C.n_params(L, d, cfg.vocab_size, cfg.seq_len) / (cfg.seq_len * 4)  # 64 bits per sequence
        assert ns == pytest.approx([cap_seqs, 2 * cap_seqs, 4 * cap_seqs], abs=0.5)


@pytest.mark.parametrize(("alpha", "growth", "verdict"), [
    (1.0, 1.0, Verdict.FAILS),  # flat plateau, far below 3.6 ± 25 %
    (2.07, 1.0, Verdict.FAILS),  # the small run's α: proportional, but below [2.7, 4.5]
    (3.6, 1.0, Verdict.HOLDS),  # flat plateau at the paper's value
    (3.6, 1.5, Verdict.INCONCLUSIVE),  # mem(4×)/mem(2×) = 1.5: not saturated, α cannot be read
])
def test_bits_per_param_verdicts_on_planted_rows(monkeypatch, alpha, growth, verdict):
    _plant_uniform(monkeypatch, alpha, last_growth=growth)
    r = C.check_bits_per_param(claims.SweepConfig(), _ctx("bits_per_param"))
    assert r.verdict == verdict, r.reason  # the verdict against our bars (the harness then applies the basis)
    if growth == 1.0:
        assert r.measured["alpha"] == pytest.approx(alpha, rel=0.01)
        assert r.measured["loglog_slope"] == pytest.approx(1.0, abs=0.02) and "log-log slope" in r.summary


def test_bits_per_param_not_on_plateau_is_inconclusive(monkeypatch):
    _plant_uniform(monkeypatch, 3.6)
    inner = C.capacity_sweep

    def capped(*a, **k):
        sweep = inner(*a, **k)
        sweep.rows[0]["saturated"] = False  # one run hit max_steps
        return sweep

    monkeypatch.setattr(C, "capacity_sweep", capped)
    assert C.check_bits_per_param(claims.SweepConfig(), _ctx("bits_per_param")).verdict == Verdict.INCONCLUSIVE


def _plant_markov(monkeypatch, mem: list[list[float]], auc: list[list[float]]) -> list[int]:
    """Rows per (seed, N): mem_U = mem[seed][i], MIA AUC = auc[seed][i]; returns a list that counts the sweeps."""
    calls: list[int] = []

    def fake(model_sizes, dataset_sizes, *, seeds, vocab_size, seq_len, **_):
        calls.append(1)
        rows = []
        for j, s in enumerate(seeds):
            for i, n in enumerate(sorted(dataset_sizes)):
                rows.append({"n_layer": 1, "d_model": 8, "n_params": 1056, "n_sequences": n, "seed": s,
                             "dataset_bits": 28.0 * n, "mem_bits": mem[j][i], "mem_bits_heldout": 0.0,
                             "mia_auc": auc[j][i], "mia_f1": auc[j][i], "test_bits_per_token": 2.0,
                             "ref_bits_per_token": 1.8, "saturated": True})
        return CapacitySweep(rows=rows)

    monkeypatch.setattr(C, "capacity_sweep", fake)
    return calls


def _seeds(row: list[float], jitter: float = 0.0) -> list[list[float]]:
    return [[v + jitter * (j - 1) for v in row] for j in range(3)]


@pytest.mark.parametrize(("mem", "auc", "rise_fall", "mia"), [
    (_seeds([100, 400, 300, 100], 5), _seeds([1.0, 0.9, 0.7, 0.52], 0.01), Verdict.HOLDS, Verdict.HOLDS),
    (_seeds([100, 200, 300, 400], 5), _seeds([0.9, 0.88, 0.87, 0.86], 0.01), Verdict.FAILS, Verdict.FAILS),
])
def test_markov_checks_share_one_sweep(monkeypatch, mem, auc, rise_fall, mia):
    calls = _plant_markov(monkeypatch, mem, auc)
    memo = Memo()  # one run group: the second claim reads the first one's sweep
    a = C.check_rise_then_fall(claims._MARKOV, _ctx("rise_then_fall", memo))
    b = C.check_mia_to_chance(claims._MARKOV, _ctx("mia_to_chance", memo))
    assert (a.verdict, b.verdict) == (rise_fall, mia), (a.reason, b.reason)
    assert len(calls) == 1 and np.isfinite(b.measured["auc_drop"])
    C.check_mia_to_chance(claims._MARKOV, _ctx("mia_to_chance"))  # alone (a fresh memo), it recomputes honestly
    assert len(calls) == 2


def test_full_budget_is_unsupported_here():
    for check in (C.check_bits_per_param, C.check_rise_then_fall, C.check_mia_to_chance):
        r = check(claims._FULL, _ctx("bits_per_param"))
        assert r.verdict is Verdict.UNSUPPORTED and "GPU-weeks" in r.reason
