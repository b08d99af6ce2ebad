"""Claim checks of [P32]: the exact toy (two claims) and the tiny CountDown model (two claims)."""

from __future__ import annotations

from dataclasses import replace

from icml26.claims import Budget, Claim
from icml26.papers.diff_smoothing._checks_countdown import (
    CollapseConfig,
    CountdownConfig,
    check_countdown,
    check_vanilla_collapse,
)
from icml26.papers.diff_smoothing._checks_toy import (
    ToyConfig,
    check_ds_improves_both,
    check_entropy_heuristics,
)

_TOY_SMOKE = ToyConfig(n_prompts=40)
_TOY_SMALL = ToyConfig(n_prompts=200)
_CD_SMOKE = CountdownConfig(n_train=200, n_test=20, d_model=32, sft_steps=40, rl_steps=4, prompts_per_step=8, n_eval=16,
                            methods=("vanilla", "ds"))

CLAIMS = [
    Claim("vanilla_collapse", check=check_vanilla_collapse, budgets={
        "smoke": Budget(CollapseConfig(countdown=replace(_CD_SMOKE, methods=("vanilla",)), toy=_TOY_SMOKE), seeds=1,
                        expected_s=4),
        "small": Budget(CollapseConfig(countdown=CountdownConfig(methods=("vanilla",)), toy=_TOY_SMALL), seeds=5,
                        expected_s=220),
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
        "smoke": Budget(_CD_SMOKE, seeds=1, expected_s=6),
        "small": Budget(CountdownConfig(), seeds=3, expected_s=280),
    }),
]
