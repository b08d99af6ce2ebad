"""The [P20] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``).

All claims read the same runs (per seed: the base policy, both SFT arms, Dr.GRPO from each, the games), shared
through ``ctx.shared`` by the run group ``runs`` and cached under the cache folder keyed by every config field.
The smoke budget labels with the pure python-chess minimax search; small labels with Debian's Stockfish.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icml26.claims import Budget, Claim
from icml26.papers.chess_reasoning._checks import (
    check_beats_random,
    check_bestline_faithful,
    check_bestline_stabler_rl,
    check_comparable_quality,
    check_rl_raises_quality,
    check_rl_reduces_hallucination,
)
from icml26.papers.chess_reasoning._policy import PolicySpec
from icml26.papers.chess_reasoning._rl import RLSpec
from icml26.papers.chess_reasoning._runs import RunConfig


@dataclass(frozen=True)
class ComparisonConfig:
    run: RunConfig = field(default_factory=RunConfig)
    full_scale: bool = False  # the paper's 7B models with verl: not runnable here


SMOKE = ComparisonConfig(run=RunConfig(
    n_train=24, n_eval=8, n_pretrain=0, labeller="minimax", label_depth=1, policy=PolicySpec(d_model=32, n_layer=1, n_head=2),
    pretrain_steps=10, sft_steps=10, sft_batch=32, copies=1, rl=RLSpec(iterations=3, prompts=4, group=4),
    eval_samples=1, games=1, max_plies=12, opponents=("random",)))
SMALL = ComparisonConfig()
FULL = ComparisonConfig(full_scale=True)

BUDGETS = {"smoke": Budget(SMOKE, seeds=1, expected_s=6),
           "small": Budget(SMALL, seeds=3, expected_s=295),
           "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",))}

CLAIMS = [
    Claim("rl_raises_quality", check=check_rl_raises_quality, budgets=BUDGETS),
    Claim("rl_reduces_hallucination", check=check_rl_reduces_hallucination, budgets=BUDGETS),
    Claim("bestline_faithful", check=check_bestline_faithful, budgets=BUDGETS),
    Claim("comparable_quality", check=check_comparable_quality, budgets=BUDGETS),
    Claim("bestline_stabler_rl", check=check_bestline_stabler_rl, budgets=BUDGETS),
    Claim("beats_random", check=check_beats_random, budgets=BUDGETS),
]
