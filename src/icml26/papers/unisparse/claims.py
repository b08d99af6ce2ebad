"""The [P30] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.unisparse._checks_exact import check_tau_one_exact
from icml26.papers.unisparse._checks_lm import check_lm_perplexity, check_mass_recall
from icml26.papers.unisparse._checks_mqar import check_beats_baselines, check_mqar_accuracy
from icml26.papers.unisparse._checks_speed import check_gpu_speedup


@dataclass(frozen=True)
class MQARConfig:
    """MQAR at n = 1024 with blocks of 32 (nb = 32), UniSparse at half the paper's S = 64 / c = 16."""

    n: int = 1024
    pairs: int = 8
    span: int = 4
    short_n: int = 128  # first training phase: short sequences, cheap steps
    short_pairs: int = 4
    short_steps: int = 300
    short_batch: int = 64
    long_steps: int = 100  # second phase at the evaluation length
    long_batch: int = 8
    lr: float = 3e-3
    hidden: int = 64
    layers: int = 2
    heads: int = 2
    block: int = 32
    cq: int = 8
    ck: int = 8
    granularities: tuple[int, ...] = (1, 4)
    eval_sequences: int = 32
    target_density: float = 0.30
    bisect_steps: int = 8


@dataclass(frozen=True)
class LMConfig:
    model: str = "smollm2-135m"  # "tiny": a random Llama of the same class (smoke)
    n: int = 2048
    block: int = 64
    cq: int = 16
    ck: int = 16
    granularities: tuple[int, ...] = (1, 4)
    tau: float = 0.9


_TAUS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.99)
_GRIDS = (("unisparse", _TAUS), ("xattention", _TAUS), ("flexprefill", _TAUS),
          ("vertical_slash", (0.01, 0.02, 0.05, 0.1, 0.2, 0.4)), ("streaming", (1, 2, 4, 8, 16, 32)),
          ("random", (0.1, 0.2, 0.3, 0.4, 0.6, 0.8)))


@dataclass(frozen=True)
class RecallConfig:
    model: str = "smollm2-135m"
    n: int = 2048
    block: int = 64
    cq: int = 16
    ck: int = 16
    granularities: tuple[int, ...] = (1, 4)
    layer_stride: int = 3  # every third layer's queries and keys
    targets: tuple[float, ...] = (0.3, 0.4, 0.5)
    grids: tuple[tuple[str, tuple[float, ...]], ...] = _GRIDS


@dataclass(frozen=True)
class ExactConfig:
    shapes: tuple[tuple[int, int, int, int], ...] = ((4, 4, 1024, 64), (6, 2, 1000, 64), (3, 1, 777, 48))
    block: int = 64
    cq: int = 16
    ck: int = 16
    granularities: tuple[int, ...] = (1, 4)
    model: str = "tiny"
    model_n: int = 512


@dataclass(frozen=True)
class SpeedConfig:
    ns: tuple[int, ...] = (8192,)
    heads: int = 8
    d: int = 64
    block: int = 64
    cq: int = 16
    ck: int = 16
    granularities: tuple[int, ...] = (1, 4)
    tau: float = 0.9
    rounds: int = 5
    gpu: bool = False
    decide: bool = True  # False at smoke: a toy size says nothing about speed


_MQAR_SMOKE = MQARConfig(n=128, pairs=2, span=2, short_n=64, short_pairs=2, short_steps=15, short_batch=16,
                         long_steps=3, long_batch=4, hidden=32, heads=2, block=16, cq=4, ck=4, eval_sequences=4,
                         bisect_steps=3)
_SMOKE_GRIDS = (("unisparse", (0.5, 0.9)), ("xattention", (0.5, 0.9)), ("flexprefill", (0.5, 0.9)),
                ("vertical_slash", (0.05, 0.2)), ("streaming", (1, 4)), ("random", (0.3, 0.6)))

CLAIMS = [
    Claim("mqar_accuracy", check=check_mqar_accuracy, budgets={
        "smoke": Budget(_MQAR_SMOKE, seeds=1, expected_s=4),
        "small": Budget(MQARConfig(), seeds=3, expected_s=280),
        "full": Budget(MQARConfig(n=4096, long_steps=300, block=64, cq=16, ck=16, eval_sequences=128), seeds=5,
                       expected_s=3600),
    }),
    Claim("beats_baselines", check=check_beats_baselines, budgets={
        "smoke": Budget(_MQAR_SMOKE, seeds=1, expected_s=4),
        "small": Budget(MQARConfig(), seeds=3, expected_s=280),
        "full": Budget(MQARConfig(n=4096, long_steps=300, block=64, cq=16, ck=16, eval_sequences=128), seeds=5,
                       expected_s=3600),
    }),
    Claim("lm_perplexity", check=check_lm_perplexity, budgets={
        "smoke": Budget(LMConfig(model="tiny", n=256, block=32, cq=8, ck=8), seeds=1, expected_s=3),
        "small": Budget(LMConfig(), seeds=3, expected_s=150, requires=("models",)),
        "full": Budget(LMConfig(n=8192), seeds=10, expected_s=3600, requires=("models",)),
    }),
    Claim("mass_recall", check=check_mass_recall, budgets={
        "smoke": Budget(RecallConfig(model="tiny", n=256, block=32, cq=8, ck=8, layer_stride=1,
                                     grids=_SMOKE_GRIDS), seeds=1, expected_s=3),
        "small": Budget(RecallConfig(), seeds=3, expected_s=200, requires=("models",)),
        "full": Budget(RecallConfig(n=8192, layer_stride=1), seeds=10, expected_s=3600, requires=("models",)),
    }),
    Claim("tau_one_exact", check=check_tau_one_exact, budgets={
        "smoke": Budget(ExactConfig(shapes=((2, 1, 100, 16), (2, 2, 64, 32)), block=16, cq=4, ck=4, model_n=64),
                        seeds=1, expected_s=2),
        "small": Budget(ExactConfig(), seeds=3, expected_s=30),
        "full": Budget(ExactConfig(shapes=((32, 8, 8192, 128),), model="smollm2-135m", model_n=2048), seeds=3,
                       expected_s=600, requires=("models",)),
    }),
    Claim("gpu_speedup", check=check_gpu_speedup, budgets={
        "smoke": Budget(SpeedConfig(ns=(256,), heads=2, d=32, block=32, cq=8, ck=8, rounds=3, decide=False),
                        expected_s=2),
        "small": Budget(SpeedConfig(), expected_s=120),
        "full": Budget(SpeedConfig(ns=(32768, 65536, 131072), heads=32, d=128, rounds=10, gpu=True), expected_s=300,
                       requires=("gpu",)),
    }),
]
