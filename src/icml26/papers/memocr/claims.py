"""The [P29] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.memocr._checks import (
    check_low_budget_gain,
    check_parity_at_full,
    check_policy_beats_random,
    check_token_efficiency,
)


@dataclass(frozen=True)
class RunConfig:
    reader: str = "ocr"  # "ocr" (Tesseract) or "geometric" (the legibility reader; smoke: no OCR calls)
    episodes: int = 2  # held-out episodes per seed
    questions: int = 4  # questions per episode
    n_bands: int = 20  # 40 facts per episode
    budgets: tuple[int, ...] = (4, 8, 16, 32, 64, 1024)  # visual tokens (and text tokens for the text baseline)
    random_budgets: tuple[int, ...] = (16,)  # where random promotion is evaluated
    train_steps: int = 300
    group: int = 8
    train_budgets: tuple[int, ...] = (16, 64, 256)
    lr: float = 1.0
    paper_scale: bool = False  # full: the paper's 7B VLM agent on padded QA (not runnable here)


SMOKE = RunConfig(reader="geometric", episodes=1, questions=4, train_steps=20)
SMALL = RunConfig()
FULL = RunConfig(paper_scale=True)


BUDGETS = {"smoke": Budget(SMOKE, seeds=1, expected_s=3),
           "small": Budget(SMALL, seeds=3, expected_s=150),
           "full": Budget(FULL, seeds=3, expected_s=86400)}


# one group: run alone, a claim pays for the shared runs (training and OCR); run together, they share them
CLAIMS = [
    Claim("low_budget_gain", check=check_low_budget_gain, budgets=BUDGETS),
    Claim("parity_at_full", check=check_parity_at_full, budgets=BUDGETS),
    Claim("policy_beats_random", check=check_policy_beats_random, budgets=BUDGETS),
    Claim("token_efficiency", check=check_token_efficiency, budgets=BUDGETS),
]
