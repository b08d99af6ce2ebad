"""The [P01] claims: configs per budget and the CLAIMS table (checks in ``_checks.py``, rules in ``_rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from icml26.claims import Budget, Claim
from icml26.papers.capacity._checks import check_bits_per_param, check_mia_to_chance, check_rise_then_fall
from icml26.papers.capacity._train import TrainConfig

# "Trained to saturation": AdamW lr 2e-2, stepped down x0.3 twice on a train-loss plateau (2e-2 -> 6e-3 -> 1.8e-3),
# the third plateau ends training; a plateau = over 500 steps (5 checks x 100) the loss gained < 0.5 % of the
# bits/token learnt so far; never before 100 epochs; cap 8000 steps (a run hitting the cap counts as not saturated).
SATURATION_PROTOCOL = TrainConfig(lr=2e-2, batch_size=128, max_steps=8000, eval_every=100, patience=5,
                                  min_delta_bits=0.0, rel_tol=0.005, lr_decay=0.3, n_decays=2, min_epochs=100)
_TINY = TrainConfig(lr=3e-2, batch_size=64, max_steps=100, eval_every=50, patience=2, min_delta_bits=0.02)
# Markov sweep: constant lr, stop when < 0.01 bits/token gained over 300 steps, cap 6000
_MARKOV_TRAIN = TrainConfig(lr=2e-2, batch_size=128, max_steps=6000, eval_every=100, patience=3, min_delta_bits=0.01)


@dataclass(frozen=True)
class SweepConfig:
    model_sizes: tuple[tuple[int, int], ...] = ((1, 8), (1, 12), (1, 16))
    multiples: tuple[float, ...] = (1.0, 2.0, 4.0)  # × the paper's capacity 3.6·P bits (uniform; notes §4) ...
    n_sequences: tuple[int, ...] = ()  # ... or absolute dataset sizes (Markov)
    vocab_size: int = 16
    seq_len: int = 16
    concentration: float = 0.1
    train: TrainConfig = SATURATION_PROTOCOL
    full_scale: bool = False  # the paper's scale: unsupported here


_UNIFORM_SMOKE = SweepConfig(model_sizes=((1, 4),), multiples=(1.0, 2.0), vocab_size=8, seq_len=8, train=_TINY)
_MARKOV = SweepConfig(model_sizes=((1, 8),), n_sequences=(16, 64, 256, 1024), train=_MARKOV_TRAIN)
_MARKOV_SMOKE = SweepConfig(model_sizes=((1, 4),), n_sequences=(8, 32, 128), vocab_size=8, seq_len=8, train=_TINY)
_FULL = SweepConfig(full_scale=True)

CLAIMS = [
    Claim("bits_per_param", check=check_bits_per_param, budgets={
        "smoke": Budget(_UNIFORM_SMOKE, seeds=1, expected_s=4),
        "small": Budget(SweepConfig(), seeds=3, expected_s=300),
        "full": Budget(_FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("rise_then_fall", check=check_rise_then_fall, budgets={
        "smoke": Budget(_MARKOV_SMOKE, seeds=1, expected_s=4),
        "small": Budget(_MARKOV, seeds=3, expected_s=120),
        "full": Budget(_FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("mia_to_chance", check=check_mia_to_chance, budgets={
        "smoke": Budget(_MARKOV_SMOKE, seeds=1, expected_s=4),
        "small": Budget(_MARKOV, seeds=3, expected_s=120),
        "full": Budget(_FULL, seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
]
