"""The [P17] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from icml26.claims import Budget, Claim
from icml26.papers.agent_native._checks import check_general_code, check_half_budget, check_ordering
from icml26.papers.agent_native._model import ModelSpec
from icml26.papers.agent_native._pipeline import RunConfig

SMOKE = RunConfig(pretrain_tasks=20, pretrain_tokens=2_000, mt_tasks=12, mt_tokens=2_000, sft_tasks=8,
                  sft_tokens=1_000, eval_tasks=2, complete_funcs=2, max_actions=3,
                  model=ModelSpec(n_layer=1, n_head=2, d_model=16, block_size=320, batch_size=8))
SMALL = RunConfig()  # every arm of ARMS, env-only included, at the same budget B
FULL = RunConfig(paper_scale=True)

CLAIMS = [
    Claim("half_budget_beats_static", check=check_half_budget, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=5),
        "small": Budget(SMALL, seeds=3, expected_s=290),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("native_ordering", check=check_ordering, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=1),
        "small": Budget(SMALL, seeds=3, expected_s=5),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("general_code", check=check_general_code, budgets={
        "smoke": Budget(SMOKE, seeds=1, expected_s=1),
        "small": Budget(SMALL, seeds=3, expected_s=5),
        "full": Budget(FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
]
