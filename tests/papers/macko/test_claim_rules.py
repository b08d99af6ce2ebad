"""Verdict rules of the claims of [P05] on planted measurements (no timing): each can hold, fail and be undecided."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.claims import Context, Verdict
from icml26.papers.macko import claims as C

pytest.importorskip("torch")


def _planted(monkeypatch, *, agreement: float = 1.0, dense_s: float = 3.0, macko_s: float = 1.0,
             bytes_: tuple[int, int] = (200 << 20, 120 << 20)) -> None:
    g = np.random.default_rng(0)

    def fake(cfg, seeds, torch, *, interpret=False):
        t16 = list(dense_s * (1 + 0.01 * g.standard_normal(cfg.reps)))
        tm = list(macko_s * (1 + 0.01 * g.standard_normal(cfg.reps)))
        return {"dense16_bytes": bytes_[0], "macko_bytes": bytes_[1], "agreement": agreement,
                "times": {"dense16": t16, "macko": tm}, "tps": {"dense16": 1 / dense_s, "macko": 1 / macko_s},
                "device": "cpu"}

    monkeypatch.setattr("icml26.papers.macko._e2e.run_e2e", fake)


def _run(**cfg) -> C.ClaimResult:
    return C.check_e2e(C.E2EConfig(reps=10, **cfg), Context(seeds=(0,), budget="test"))


def test_e2e_rule_holds_and_fails_on_speed(monkeypatch) -> None:
    _planted(monkeypatch, dense_s=2.0, macko_s=1.0)
    assert _run().verdict is Verdict.HOLDS
    _planted(monkeypatch, dense_s=1.0, macko_s=1.0)
    assert _run().verdict is Verdict.FAILS


def test_e2e_wrong_tokens_fail_even_when_fast(monkeypatch) -> None:
    _planted(monkeypatch, dense_s=2.0, macko_s=1.0, agreement=0.75)
    res = _run()
    assert res.verdict is Verdict.FAILS and "greedy tokens agree" in res.reason
    assert _run(min_agreement=0.7).verdict is Verdict.HOLDS


def test_e2e_cache_resident_weights_decide_nothing(monkeypatch) -> None:
    _planted(monkeypatch, dense_s=2.0, macko_s=1.0, bytes_=(16 << 20, 10 << 20))
    res = _run()
    assert res.verdict is Verdict.INCONCLUSIVE and res.measured["weights_stream_from_dram"] is False


def test_e2e_memory_below_the_bar_fails(monkeypatch) -> None:
    _planted(monkeypatch, dense_s=2.0, macko_s=1.0, bytes_=(200 << 20, 180 << 20))
    assert _run().verdict is Verdict.FAILS


def test_storage_helpers_and_wanda_reject_bad_input() -> None:
    from icml26.papers.macko import break_even_density, csr_bytes, dense_fp16_bytes, wanda_prune

    with pytest.raises(ValueError, match="rows and cols"):
        dense_fp16_bytes(-3, 4)
    with pytest.raises(TypeError, match="rows"):
        dense_fp16_bytes(2.5, 4)
    with pytest.raises(ValueError, match="nnz"):
        csr_bytes(3, 4, 13)
    with pytest.raises(ValueError, match="rows and cols"):
        csr_bytes(-3, 4, 2)
    with pytest.raises(ValueError, match="finite"):
        break_even_density(np.array([0.1, 0.5, 0.9]), np.array([0.2, np.nan, 1.2]))
    with pytest.raises(ValueError, match="increasing"):
        break_even_density(np.array([0.9, 0.5, 0.1]), np.array([1.2, 0.7, 0.2]))
    assert break_even_density(np.array([0.5, 0.9]), np.array([0.5, 1.5])) == pytest.approx(0.7)
    X = np.ones((4, 3))
    X[1, 2] = np.nan
    with pytest.raises(ValueError, match="activations must be finite"):
        wanda_prune(np.ones((2, 3)), X, sparsity=0.5)


def test_gpu_timers_validate_their_arguments() -> None:
    from icml26.papers.macko._timing import cuda_graph_time, device_time

    for timer in (cuda_graph_time, device_time):
        with pytest.raises(ValueError, match="calls >= 1"):
            timer([lambda: None], calls=0, torch=None)
