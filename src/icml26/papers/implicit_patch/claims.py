"""The [P06] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.implicit_patch._checks import GENERAL, check_controls, check_equivalence, check_generation
from icml26.papers.implicit_patch._checks_real import check_real


@dataclass(frozen=True)
class EquivConfig:
    archs: tuple[str, ...] = ("gemma",)
    n_layers: tuple[int, ...] = (1, 4)
    d_model: int = 64
    n_context: int = 32
    n_query: int = 12
    pairs: int = 3  # (context, query) pairs per seed and model
    trained_steps: int = 0  # > 0: also a model trained this long on the copy task (first arch, first seed, L=2, d=32)


@dataclass(frozen=True)
class GenConfig:
    archs: tuple[str, ...] = ("gemma", "pre_ln")
    n_layer: int = 2
    d_model: int = 32
    n_context: int = 24
    n_query: int = 4
    new_tokens: int = 20
    pairs: int = 2
    trained_steps: int = 0  # > 0: also the first arch trained on the copy task (first seed; it copies the context)


@dataclass(frozen=True)
class ControlConfig:
    arch: str = "gemma"
    n_layer: int = 2
    d_model: int = 64
    n_context: int = 32
    n_query: int = 12
    pairs: int = 3


@dataclass(frozen=True)
class RealConfig:
    model: str = "smollm2-135m"  # or "tiny": a random 2-layer Llama (smoke)
    n_context: int = 24
    n_query: int = 8
    pairs: int = 20
    generate_pairs: int = 3
    new_tokens: int = 4


CLAIMS = [
    Claim("gemma_equivalence", check=check_equivalence, budgets={
        "smoke": Budget(EquivConfig(n_layers=(1, 2), d_model=32, n_context=8, n_query=4, pairs=1), expected_s=1),
        "small": Budget(EquivConfig(trained_steps=300), seeds=3, expected_s=120),
    }),
    Claim("general_equivalence", check=check_equivalence, budgets={
        "smoke": Budget(EquivConfig(archs=GENERAL, n_layers=(1,), d_model=32, n_context=8, n_query=4, pairs=1),
                        expected_s=2),
        "small": Budget(EquivConfig(archs=GENERAL, n_layers=(1, 4), trained_steps=300), seeds=3, expected_s=180),
    }),
    Claim("patched_generation", check=check_generation, budgets={
        "smoke": Budget(GenConfig(archs=("gemma",), new_tokens=8, pairs=1, n_context=12), expected_s=2),
        "small": Budget(GenConfig(trained_steps=300, pairs=3), seeds=3, expected_s=200),
    }),
    Claim("negative_controls", check=check_controls, budgets={
        "smoke": Budget(ControlConfig(d_model=32, n_context=16, n_query=6, pairs=2), expected_s=2),
        "small": Budget(ControlConfig(n_layer=4), seeds=3, expected_s=60),
    }),
    Claim("llama_equivalence", check=check_real, budgets={
        "smoke": Budget(RealConfig(model="tiny", n_context=8, n_query=4, pairs=2, generate_pairs=1, new_tokens=2),
                        expected_s=5),
        "small": Budget(RealConfig(), expected_s=300, requires=("models",)),
    }),
]
