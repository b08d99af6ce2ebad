"""Tiny-model runs of [P37]: the run protocol, the scored positions, determinism."""

import numpy as np
import pytest
import torch
from torch import nn

from icml26.papers.sparse_scaling import RunConfig, markov_corpus, saturation_run, validation_loss

CH = markov_corpus(vocab=8, order=1, concentration=0.3, seed=0)
CFG = RunConfig(d_model=8, n_head=2, seq_len=8, unique_sequences=16, epochs=(1, 2, 4), batch_size=4, update_every=2,
                val_sequences=16)


class _Bayes(nn.Module):
    """The chain itself as a model: logits log P(y | last token)."""

    def __init__(self, P: np.ndarray) -> None:
        super().__init__()
        self.logp = torch.tensor(np.log(P), dtype=torch.float64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.logp[x]


def test_validation_loss_scores_full_context_positions() -> None:
    val = CH.sample(64, 9, seed=1)
    got = validation_loss(_Bayes(CH.transition), torch.from_numpy(val), order=1)
    assert got == pytest.approx(-CH.log_prob(val).mean(), rel=1e-12)
    ch2 = markov_corpus(vocab=3, order=2, concentration=0.5, seed=0)
    v2 = ch2.sample(5, 6, seed=0)
    assert ch2.log_prob(v2).shape == (5, 4)  # positions t >= order


def test_fresh_and_repeated_share_the_first_epoch() -> None:
    rep = saturation_run(CH, CFG, density=0.5, kind="repeated", seed=3, val_seed=9)
    fresh = saturation_run(CH, CFG, density=0.5, kind="fresh", seed=3, val_seed=9)
    assert rep[0]["val_loss"] == fresh[0]["val_loss"]
    assert [r["epochs"] for r in rep] == [1, 2, 4]
    U = CFG.unique_tokens
    assert [r["D"] for r in rep] == [U, 2 * U, 4 * U] and all(r["U"] == U for r in rep)
    assert all(r["U"] == r["D"] for r in fresh)
    assert rep[1]["val_loss"] != fresh[1]["val_loss"]  # epoch 2: repeated vs new tokens
    dense = saturation_run(CH, CFG, density=1.0, kind="repeated", seed=3, val_seed=9)
    assert rep[0]["active"] < dense[0]["active"] and rep[0]["active"] == pytest.approx(dense[0]["active"] / 2, abs=2)


def test_runs_are_deterministic_and_learn() -> None:
    a = saturation_run(CH, CFG, density=0.5, kind="fresh", seed=1, val_seed=9)
    b = saturation_run(CH, CFG, density=0.5, kind="fresh", seed=1, val_seed=9)
    assert a == b
    assert a[-1]["val_loss"] < np.log(8) and a[-1]["val_loss"] > CH.entropy_floor - 0.1


def test_run_config_is_validated() -> None:
    with pytest.raises(ValueError, match="multiple"):
        RunConfig(unique_sequences=10, batch_size=4)
    with pytest.raises(ValueError, match="epochs"):
        RunConfig(epochs=(2, 1))
    with pytest.raises(TypeError, match="cfg"):
        saturation_run(CH, {"d_model": 8}, density=0.5, kind="fresh", seed=0, val_seed=1)  # type: ignore[arg-type]
