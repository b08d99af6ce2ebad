"""The [P05] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.macko._checks import check_memory, check_speed
from icml26.papers.macko._checks_e2e import check_e2e_memory, check_e2e_speed
from icml26.papers.macko._checks_real import check_real_lm, check_real_lm_speed
from icml26.papers.macko._timing import STREAM_BYTES


@dataclass(frozen=True)
class MemoryConfig:
    rows: int = 4096
    cols: int = 4096
    sparsities: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class SpeedConfig:
    n: int = 8192
    density: float = 0.5
    reps: int = 15  # paired rounds (each round times every kernel once, order rotated)
    stream_bytes: int = STREAM_BYTES  # rotated copies per kernel until a pass touches this many bytes (0: one copy)
    decide: bool = True  # False at smoke: a cache-resident toy size says nothing about speed
    gpu: bool = False  # True at full: time the Triton kernel against torch fp16 (cuBLAS)


@dataclass(frozen=True)
class E2EModel:
    """The decoder both e2e claims share (one build per run group)."""

    d_model: int = 1024
    n_layers: int = 8
    n_heads: int = 8
    vocab: int = 512
    sparsity: float = 0.5
    calib_tokens: int = 64
    prompt: int = 8
    new_tokens: int = 16
    device: str = "cpu"  # "cuda" at full: fp16 nn.Linear (cuBLAS) vs the Triton MACKO kernel


@dataclass(frozen=True)
class E2EConfig:
    model: E2EModel = field(default_factory=E2EModel)
    reps: int = 10  # paired rounds; each decodes once with every model, order rotated
    decide: bool = True  # False at smoke: a toy decoder says nothing about speed


@dataclass(frozen=True)
class RealLMConfig:
    model: str = "smollm2-135m"  # or "tiny": a random 2-layer Llama (smoke)
    sparsity: float = 0.5
    length: int = 128  # tokens per window
    calib_windows: int = 8  # Wanda's calibration text
    eval_windows: int = 8  # held-out text for the perplexity
    calib_modules: tuple[str, ...] = ("json", "textwrap", "argparse", "logging")
    eval_modules: tuple[str, ...] = ("inspect", "pathlib", "functools", "collections")
    prompts: int = 2
    prompt: int = 16
    new_tokens: int = 8
    reps: int = 5  # paired decode rounds (the speed claim)


_SMOKE_MODEL = E2EModel(d_model=64, n_layers=2, n_heads=2, vocab=64, calib_tokens=16, prompt=4, new_tokens=4)
# Llama-width layers (d=4096, FFN 4d) on one GPU; 4 blocks keep the host-side pruning and encoding ~1 min
_FULL_MODEL = E2EModel(d_model=4096, n_layers=4, n_heads=32, calib_tokens=128, prompt=16, new_tokens=64, device="cuda")

CLAIMS = [
    Claim("memory_reduction", check=check_memory, budgets={
        "smoke": Budget(MemoryConfig(rows=256, cols=2048, sparsities=(0.1, 0.2, 0.3, 0.5, 0.7, 0.9)), expected_s=1),
        "small": Budget(MemoryConfig(), expected_s=30),
    }),
    Claim("spmv_speedup_50", check=check_speed, budgets={
        "smoke": Budget(SpeedConfig(n=512, reps=3, stream_bytes=0, decide=False), expected_s=1),
        "small": Budget(SpeedConfig(), expected_s=60),
        "full": Budget(SpeedConfig(gpu=True, reps=10), expected_s=60, requires=("gpu",)),
    }),
    Claim("e2e_memory", check=check_e2e_memory, budgets={
        "smoke": Budget(E2EConfig(model=_SMOKE_MODEL, reps=1, decide=False), expected_s=2),
        "small": Budget(E2EConfig(), expected_s=30),
        "full": Budget(E2EConfig(model=_FULL_MODEL, reps=5), expected_s=120, requires=("gpu",)),
    }),
    Claim("e2e_speed", check=check_e2e_speed, budgets={
        "smoke": Budget(E2EConfig(model=_SMOKE_MODEL, reps=1, decide=False), expected_s=2),
        "small": Budget(E2EConfig(), expected_s=150),
        "full": Budget(E2EConfig(model=_FULL_MODEL, reps=5), expected_s=240, requires=("gpu",)),
    }),
    Claim("e2e_real_lm", check=check_real_lm, budgets={
        "smoke": Budget(RealLMConfig(model="tiny", length=16, calib_windows=2, eval_windows=2, prompts=1, prompt=4,
                                     new_tokens=2), expected_s=5),
        "small": Budget(RealLMConfig(), expected_s=240, requires=("models",)),
    }),
    Claim("e2e_real_lm_speed", check=check_real_lm_speed, budgets={
        "smoke": Budget(RealLMConfig(model="tiny", length=16, calib_windows=2, eval_windows=2, prompts=1, prompt=4,
                                     new_tokens=2, reps=2), expected_s=5),
        "small": Budget(RealLMConfig(reps=5), expected_s=240, requires=("models",)),
    }),
]
