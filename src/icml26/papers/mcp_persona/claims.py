"""The [P38] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.mcp_persona._checks import check_gap, check_harness_oracle


@dataclass(frozen=True)
class HarnessConfig:
    n_pairs: int = 24  # twin pairs per seed (apps in turn)
    stdio_pairs: int = 2  # pairs of the first seed replayed over stdio (one server subprocess per task)
    max_turns: int = 6


@dataclass(frozen=True)
class GapConfig:
    """``agent``: ``blind`` (with the oracle and the random agent) or ``llm``; ``model``: ``tiny`` (a random Llama,
    smoke), ``smollm2-135m`` or ``checkpoint`` (``$ICML26_MCP_PERSONA_CHECKPOINT``, a local folder)."""

    agent: str = "blind"
    n_pairs: int = 24
    max_turns: int = 6
    model: str = ""
    max_new_tokens: int = 40
    max_observation_chars: int = 1600  # a whole listing (the longest is ~1,400)
    batch: int = 16


CLAIMS = [
    Claim("harness_oracle", check=check_harness_oracle, budgets={
        "smoke": Budget(HarnessConfig(n_pairs=4, stdio_pairs=0), seeds=1, expected_s=3),
        "small": Budget(HarnessConfig(), seeds=5, expected_s=90),
        "full": Budget(HarnessConfig(n_pairs=87, stdio_pairs=8), seeds=10, expected_s=900)}),
    Claim("blind_gap", check=check_gap, budgets={
        "smoke": Budget(GapConfig(n_pairs=4), seeds=1, expected_s=3),
        "small": Budget(GapConfig(), seeds=5, expected_s=60),
        "full": Budget(GapConfig(n_pairs=87), seeds=10, expected_s=600)}),
    Claim("llm_gap", check=check_gap, budgets={
        "smoke": Budget(GapConfig(agent="llm", model="tiny", n_pairs=2, max_turns=2, max_new_tokens=8), seeds=1,
                        expected_s=5),
        "small": Budget(GapConfig(agent="llm", model="smollm2-135m", n_pairs=2, max_turns=4), seeds=3,
                        expected_s=180, requires=("models",)),
        "full": Budget(GapConfig(agent="llm", model="checkpoint", n_pairs=87, max_turns=10, max_new_tokens=256,
                                 batch=8), seeds=5, expected_s=36000, requires=("models",))}),
]
