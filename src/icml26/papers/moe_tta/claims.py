"""The [P34] claims: configs per budget and the CLAIMS table (checks in ``_checks*.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.moe_tta._checks import check_confident_layers, check_full_ttt, check_heldout_gain, check_switch
from icml26.papers.moe_tta._checks_speed import check_overhead


@dataclass(frozen=True)
class ModelConfig:
    """The OLMoE model trained here (transformers ``OlmoeConfig``) and its training tasks."""

    d_model: int = 48
    n_layers: int = 4
    n_heads: int = 4
    d_expert: int = 48  # intermediate size of each expert
    n_experts: int = 8
    top_k: int = 2
    aux_coef: float = 0.01  # load-balancing loss weight (OLMoE's default)
    max_positions: int = 128
    steps: int = 500
    batch: int = 128
    lr: float = 3e-3
    train_pairs: int = 16
    train_seqs: int = 32768
    train_seed: int = 0
    shift_held: tuple[int, ...] = (4, 8)
    cipher_keys: int = 8
    cipher_held: tuple[int, ...] = (6, 7)
    table_seed: int = 0


SMOKE_MODEL = ModelConfig(d_model=16, n_layers=2, n_heads=2, d_expert=16, steps=12, batch=16, train_pairs=8,
                          train_seqs=256)
FULL_MODEL = ModelConfig(d_model=96, n_layers=6, d_expert=96, steps=4000, train_seqs=262144)


@dataclass(frozen=True)
class RerouteConfig:
    """Held-out and training-task episodes: 6 demonstrations, then 8 queries answered by the model (notes §4)."""

    model: ModelConfig
    episodes: int = 128  # per seed and split
    demos: int = 6
    queries: int = 8
    steps: int = 10
    lr: float = 0.1
    l2: float = 1e-3
    refit_every: int = 8  # context tokens (4 query-answer pairs): the notes' 32 scaled to these short sequences
    k: int = 2
    by: str = "entropy"


@dataclass(frozen=True)
class TTTConfig:
    """Training-task episodes under no adaptation, rerouting and full-parameter TTT (same steps and schedule)."""

    model: ModelConfig
    episodes: int = 48
    demos: int = 6
    queries: int = 8
    steps: int = 10
    lr: float = 0.1
    l2: float = 1e-3
    refit_every: int = 8
    k: int = 2
    by: str = "entropy"
    full_lr: float = 1e-3


@dataclass(frozen=True)
class SwitchConfig:
    """Task A (6 demonstrations, 4 queries), then task B (6 demonstrations, 8 queries) in one sequence."""

    model: ModelConfig
    episodes: int = 128
    demos_a: int = 6
    queries_a: int = 4
    demos_b: int = 6
    queries_b: int = 8
    steps: int = 10
    lr: float = 0.1
    l2: float = 1e-3
    refit_every: int = 8
    k: int = 2
    by: str = "entropy"


@dataclass(frozen=True)
class OverheadConfig:
    """Generation from a 6-demonstration prompt, re-fit every 32 generated tokens (the notes' protocol)."""

    model: ModelConfig
    reps: int = 6
    demos: int = 6
    new_tokens: int = 64
    refit_every: int = 32
    steps: int = 10
    lr: float = 0.1
    l2: float = 1e-3
    k: int = 2
    full_lr: float = 1e-3


HELDOUT = {"smoke": RerouteConfig(SMOKE_MODEL, episodes=8, k=1), "small": RerouteConfig(ModelConfig()),
           "full": RerouteConfig(FULL_MODEL, episodes=512, k=3)}

CLAIMS = [
    Claim("heldout_gain", check=check_heldout_gain, budgets={
        "smoke": Budget(HELDOUT["smoke"], seeds=1, expected_s=6),
        "small": Budget(HELDOUT["small"], seeds=3, expected_s=200),
        "full": Budget(HELDOUT["full"], seeds=5, expected_s=3600),
    }),
    Claim("confident_layers", check=check_confident_layers, budgets={
        "smoke": Budget(HELDOUT["smoke"], seeds=1, expected_s=6),
        "small": Budget(HELDOUT["small"], seeds=3, expected_s=200),
        "full": Budget(HELDOUT["full"], seeds=5, expected_s=3600),
    }),
    Claim("full_ttt_overadapts", check=check_full_ttt, budgets={
        "smoke": Budget(TTTConfig(SMOKE_MODEL, episodes=3, k=1), seeds=1, expected_s=6),
        "small": Budget(TTTConfig(ModelConfig()), seeds=3, expected_s=240),
        "full": Budget(TTTConfig(FULL_MODEL, episodes=256, k=3), seeds=5, expected_s=3600),
    }),
    Claim("switch_readaptation", check=check_switch, budgets={
        "smoke": Budget(SwitchConfig(SMOKE_MODEL, episodes=8, k=1), seeds=1, expected_s=6),
        "small": Budget(SwitchConfig(ModelConfig()), seeds=3, expected_s=200),
        "full": Budget(SwitchConfig(FULL_MODEL, episodes=512, k=3), seeds=5, expected_s=3600),
    }),
    Claim("overhead", check=check_overhead, budgets={
        "smoke": Budget(OverheadConfig(SMOKE_MODEL, reps=3, new_tokens=8, refit_every=4, steps=2, k=1), seeds=1,
                        expected_s=6),
        "small": Budget(OverheadConfig(ModelConfig()), seeds=1, expected_s=200),
        "full": Budget(OverheadConfig(FULL_MODEL, reps=10, new_tokens=256), seeds=1, expected_s=1800),
    }),
]
