"""Claim checks of [P32]: the exact toy (three claims) and the tiny CountDown model (one claim)."""

from __future__ import annotations

from icml26.claims import Budget, Claim
from icml26.papers.diff_smoothing._checks_countdown import CountdownConfig, check_countdown
from icml26.papers.diff_smoothing._checks_toy import (
    ToyConfig,
    check_ds_improves_both,
    check_entropy_heuristics,
    check_vanilla_collapse,
)

_TOY_SMOKE = ToyConfig(n_prompts=40)
_TOY_SMALL = ToyConfig(n_prompts=200)

CLAIMS = [
    Claim("vanilla_collapse", check=check_vanilla_collapse, budgets={
        "smoke": Budget(_TOY_SMOKE, seeds=1, expected_s=3),
        "small": Budget(_TOY_SMALL, seeds=5, expected_s=30),
    }),
    Claim("ds_improves_both", check=check_ds_improves_both, budgets={
        "smoke": Budget(_TOY_SMOKE, seeds=1, expected_s=3),
        "small": Budget(_TOY_SMALL, seeds=5, expected_s=30),
    }),
    Claim("entropy_heuristics", check=check_entropy_heuristics, budgets={
        "smoke": Budget(_TOY_SMOKE, seeds=1, expected_s=3),
        "small": Budget(_TOY_SMALL, seeds=5, expected_s=30),
    }),
    Claim("countdown_ds", check=check_countdown, budgets={
        "smoke": Budget(CountdownConfig(n_train=200, n_test=20, d_model=32, sft_steps=40, rl_steps=4, prompts_per_step=8,
                                        n_eval=16, methods=("vanilla", "ds")), seeds=1, expected_s=6),
        "small": Budget(CountdownConfig(), seeds=3, expected_s=280),
    }),
]
