"""The [P19] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.inc_bpe._checks import check_eager, check_exact
from icml26.papers.inc_bpe._checks_speed import check_flat, check_speed


@dataclass(frozen=True)
class ExactConfig:
    corpus_bytes: int = 2_000_000
    n_fuzz: int = 3000
    n_prefix_docs: int = 20
    names: tuple[str, ...] = ("cl100k_base", "o200k_base")


@dataclass(frozen=True)
class FlatConfig:
    sizes: tuple[int, ...] = (10_000, 100_000, 1_000_000)
    inputs: tuple[str, ...] = ("a", "-", " ", "letters", "cjk")
    reps: int = 5  # repeated timings of inc_bpe per size: the growth CI is over them
    baselines: tuple[str, ...] = ("tiktoken", "hf")
    decide: bool = True  # False at smoke: toy sizes and noisy timings decide nothing


@dataclass(frozen=True)
class SpeedConfig:
    corpus_bytes: int = 2_000_000
    reps: int = 3
    decide: bool = True  # False at smoke (see FlatConfig)


@dataclass(frozen=True)
class EagerConfig:
    corpus_bytes: int = 300_000


CLAIMS = [
    Claim("exact_vs_tiktoken", check=check_exact, budgets={
        "smoke": Budget(ExactConfig(corpus_bytes=30_000, n_fuzz=150, n_prefix_docs=3, names=("cl100k_base",)),
                        expected_s=3),
        "small": Budget(ExactConfig(), expected_s=60),
        "full": Budget(ExactConfig(corpus_bytes=10_000_000, n_fuzz=30_000, n_prefix_docs=200), expected_s=600),
    }),
    Claim("flat_per_byte", check=check_flat, budgets={
        "smoke": Budget(FlatConfig(sizes=(2_000, 20_000), inputs=("-", " "), reps=2, baselines=("tiktoken",),
                                   decide=False), expected_s=3),
        "small": Budget(FlatConfig(), expected_s=200),
    }),
    Claim("speed_vs_hf", check=check_speed, budgets={
        "smoke": Budget(SpeedConfig(corpus_bytes=20_000, reps=1, decide=False), expected_s=4),
        "small": Budget(SpeedConfig(), expected_s=60),
        "full": Budget(SpeedConfig(corpus_bytes=10_000_000, reps=5), expected_s=300),
    }),
    Claim("eager_delay", check=check_eager, budgets={
        "smoke": Budget(EagerConfig(corpus_bytes=20_000), expected_s=2),
        "small": Budget(EagerConfig(), expected_s=30),
        "full": Budget(EagerConfig(corpus_bytes=5_000_000), expected_s=300),
    }),
]
