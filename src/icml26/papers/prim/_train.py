"""Training the [P31] toy LM on synthetic clips, cached on disk by its full configuration and seed.

The model is keyed by every field of :class:`TrainConfig` and the seed under ``<cache>/prim/`` (``$ICML26_CACHE_DIR``,
which ``icml26 reproduce`` sets inside its ``--out``); without a cache folder it is retrained on every call.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import torch

from icml26.common import validation
from icml26.common.cache import cached_value
from icml26.common.train import train
from icml26.papers.prim._data import make_clips
from icml26.papers.prim._lm import AVLMConfig, TinyAVLM, masked_loss

__all__ = ["TrainConfig", "train_avlm", "trained_model"]

FORMAT = 3  # bumped when what the cached file holds changes


@dataclass(frozen=True)
class TrainConfig:
    """How the [P31] toy LM is trained (ours): clips, AdamW steps, batch, learning rate, token-drop augmentation
    (from the fraction ``drop_from`` of the steps on: a curriculum that first learns the questions on whole clips),
    the training mix of question types (the moment question, the hardest, oversampled), and a warm-up curriculum: the
    first fraction ``static_until`` of the steps train on the same clips with a static square
    (``make_clips(static=True)``), where the quadrant can be read from any frame, then on the moving ones."""

    model: AVLMConfig = field(default_factory=AVLMConfig)
    n_train: int = 8000
    steps: int = 1500
    batch_size: int = 32
    lr: float = 3e-3
    drop_prob: float = 0.5
    drop_from: float = 0.6
    question_weights: tuple[float, float, float] = (0.2, 0.2, 0.6)
    static_until: float = 0.3


def train_avlm(cfg: TrainConfig, *, seed: int) -> TinyAVLM:
    """A :class:`TinyAVLM` trained on ``cfg.n_train`` clips of ``make_clips(seed=seed)`` (cosine AdamW, our recipe
    for the [P31] toy; the paper's LMMs are pretrained), the first ``cfg.static_until`` of the steps on their
    static-square versions (one schedule and optimiser throughout: each step's rows are read from one of the two)."""
    seed = validation.seed(seed)
    static_until = validation.real(cfg.static_until, "static_until", lo=0.0, hi=1.0)
    data: list[torch.Tensor] = []
    for static in (False, True):
        clips = make_clips(cfg.n_train, seed=seed, question_weights=cfg.question_weights, static=static)
        data += [torch.from_numpy(clips.video), torch.from_numpy(clips.audio), torch.from_numpy(clips.question),
                 torch.from_numpy(clips.answer)]
        if static_until == 0.0:
            break
    model = TinyAVLM(cfg.model, seed=seed)
    gen = torch.Generator().manual_seed(seed + 7919)
    calls = [0]

    def loss_fn(m: torch.nn.Module, *batch: torch.Tensor) -> torch.Tensor:
        assert isinstance(m, TinyAVLM)
        calls[0] += 1
        v, a, q, y = batch[4:] if calls[0] <= static_until * cfg.steps else batch[:4]
        return masked_loss(m, v, a, q, y, gen, cfg.drop_prob if calls[0] > cfg.drop_from * cfg.steps else 0.0)

    train(model, data, loss_fn, steps=cfg.steps, lr=cfg.lr, batch_size=cfg.batch_size, seed=seed,
          eval_every=max(1, cfg.steps), eval_fn=lambda m: 0.0, lr_schedule="cosine")
    model.eval()
    return model


def trained_model(cfg: TrainConfig, *, seed: int) -> TinyAVLM:
    """The [P31] toy LM of :func:`train_avlm`, cached by ``cfg`` and ``seed`` (module docstring)."""
    seed = validation.seed(seed)
    key = {"format": FORMAT, "what": "avlm", "seed": seed, **asdict(cfg)}
    state = cached_value("prim", key, "model.pt", lambda: train_avlm(cfg, seed=seed).state_dict())
    model = TinyAVLM(cfg.model, seed=seed)
    model.load_state_dict(state)
    model.eval()
    return model
