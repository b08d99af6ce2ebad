"""Planted measurements on both sides of each [P05] bar (used by test_rules.py and the conformance test)."""

import numpy as np

from support.planted import Planted


def rounds(seconds: float, n: int = 10, seed: int = 0) -> list[float]:
    """``n`` per-round times around ``seconds`` with 1 % noise (deterministic)."""
    g = np.random.default_rng(seed)
    return list(seconds * (1 + 0.01 * g.standard_normal(n)))


def speed(dense_s: float, macko_s: float, n: int = 10, **kw) -> dict:
    return {"dense_s": rounds(dense_s, n, 1), "macko_s": rounds(macko_s, n, 2), "baseline": "dense fp16", **kw}


def e2e(dense_s: float, macko_s: float, n: int = 10, *, agreement: float = 1.0, weight_bytes: int = 126_000_000,
        **kw) -> dict:
    return {**speed(dense_s, macko_s, n), "agreement": agreement, "weight_bytes": weight_bytes, **kw}


def real_lm(ratio_bytes: float = 1.53, agreement: float = 1.0, ppl: float = 1.4) -> dict:
    return {"out": {"dense16_bytes": int(200e6), "macko_bytes": int(200e6 / ratio_bytes), "ppl_dense": 10.0,
                    "ppl_pruned": 10.0 * ppl, "agreement": [agreement, 1.0]}}


PLANTED = {
    "memory_reduction": Planted(
        holds={"ratio_at_50": 0.6256, "break_even": 0.800},
        fails={"ratio_at_50": 0.70, "break_even": 0.800},
    ),
    "spmv_speedup_50": Planted(
        holds=speed(1.5, 1.0), fails=speed(0.97, 1.0),
        budget_variants=((speed(1.5, 1.0, 40), speed(0.97, 1.0, 40)),),
    ),
    "e2e_memory": Planted(
        holds={"dense16_bytes": 201_300_000, "macko_bytes": 126_100_000},
        fails={"dense16_bytes": 200_000_000, "macko_bytes": 180_000_000},
    ),
    "e2e_speed": Planted(
        holds=e2e(2.0, 1.0), fails=e2e(0.83, 1.0),
        budget_variants=((e2e(2.0, 1.0, 30), e2e(0.83, 1.0, 30)),),
    ),
    "e2e_real_lm": Planted(
        holds=real_lm(), fails=real_lm(ppl=2.6),  # Wanda-50 % more than doubles the perplexity
        budget_variants=((real_lm(), real_lm(agreement=0.5)), (real_lm(), real_lm(ratio_bytes=1.2))),
    ),
    "e2e_real_lm_speed": Planted(
        holds=e2e(2.0, 1.0), fails=e2e(0.83, 1.0),
        budget_variants=((e2e(2.0, 1.0, 5), e2e(1.0, 1.0, 5, agreement=0.5)),),
    ),
}
