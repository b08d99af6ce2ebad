"""The [P28] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.actg._checks import (
    check_actg_beats_dpsft,
    check_arl_control,
    check_privacy_accounting,
    check_rl_reward_hacking,
)
from icml26.papers.actg._pipeline import PipelineConfig


@dataclass(frozen=True)
class AccountingConfig:
    """Settings (q, T) at which both stages are calibrated to (ε, δ) and recomputed independently."""

    epsilon: float = 4.0
    delta: float = 1e-5
    sigma_ratio: float = 1.15
    settings: tuple[tuple[float, int], ...] = ((0.1, 80), (0.05, 300), (0.01, 1000))


SMOKE = PipelineConfig(n_private=200, n_eval=60, steps=8, n_anchor=8, n_candidates=4, rl_steps=3, rl_prompts=4,
                       max_words=24, embed="hashed", pgm_iters=60)
SMALL = PipelineConfig()
FULL = PipelineConfig(n_private=28846, n_eval=2000, q=0.071, steps=1120, d_model=128, n_layer=2, n_anchor=1024,
                      rl_steps=2000, rl_prompts=64)
# the first claim of group "pipeline" runs the pipeline (small: ~210-260 s of one core's time, 3 seeds); the others
# reuse it through ctx.shared when run together
_PIPE = {"smoke": Budget(SMOKE, seeds=1, expected_s=8),
         "small": Budget(SMALL, seeds=3, expected_s=290, requires=("models",)),
         "full": Budget(FULL, seeds=3, expected_s=36000, requires=("models",))}
_SHARED = {"smoke": Budget(SMOKE, seeds=1, expected_s=1),
           "small": Budget(SMALL, seeds=3, expected_s=2, requires=("models",)),
           "full": Budget(FULL, seeds=3, expected_s=10, requires=("models",))}

CLAIMS = [
    Claim("actg_beats_dpsft", check=check_actg_beats_dpsft, budgets=_PIPE),
    Claim("arl_control", check=check_arl_control, budgets=_SHARED),
    Claim("rl_reward_hacking", check=check_rl_reward_hacking, budgets=_SHARED),
    Claim("privacy_accounting", check=check_privacy_accounting, budgets={
        "smoke": Budget(AccountingConfig(settings=((0.1, 80),)), seeds=1, expected_s=4),
        "small": Budget(AccountingConfig(), seeds=1, expected_s=10),
        "full": Budget(AccountingConfig(delta=3.38e-6, settings=((0.071, 1120),)), seeds=1, expected_s=30)}),
]
