"""Rollouts of the [P20] policy on positions: responses, their text and their scores.

:func:`rollout` samples ``group`` responses per position (the paper's rollout.n = 8) or decodes greedily
(``temperature = 0``, our evaluation), decodes them to the text format of :mod:`._board` and scores each with
:func:`._reward.score_response`. Logits that are not finite are refused (a NaN never becomes a move).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import torch
from torch import Tensor

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.papers.chess_reasoning._decode import sample
from icml26.papers.chess_reasoning._labels import MoveLabels
from icml26.papers.chess_reasoning._reward import ResponseScore, score_response
from icml26.papers.chess_reasoning._tokens import ChessTokenizer

__all__ = ["Rollout", "prompt_tensor", "rollout"]


@dataclass(frozen=True)
class Rollout:
    """[P20] rollouts: ``group`` responses per position (rows grouped by position): prompt ids (P, 40), response ids (P*G, L),
    their mask, the texts and their scores."""

    prompts: Tensor
    responses: Tensor
    mask: Tensor
    texts: tuple[str, ...]
    scores: tuple[ResponseScore, ...]

    @property
    def rewards(self) -> Tensor:
        """The predictmove rewards (P*G,) float64."""
        return torch.tensor([s.reward for s in self.scores], dtype=torch.float64)


def prompt_tensor(boards: Sequence[chess.Board], tokenizer: ChessTokenizer) -> Tensor:
    """The prompt ids (P, 40) of positions."""
    return torch.tensor([tokenizer.encode_prompt(b) for b in boards], dtype=torch.int64)


def rollout(model: TinyGPT, labels: Sequence[MoveLabels], *, tokenizer: ChessTokenizer, group: int = 1,
            temperature: float = 1.0, generator: torch.Generator | None = None, cut: float = 0.3) -> Rollout:
    """[P20] responses of ``model`` to the labelled positions, scored by the predictmove reward (module docstring).

    ``generator`` is required when sampling (``temperature > 0``); greedy decoding needs none.
    """
    if not labels:
        raise ValueError("labels must not be empty")
    group = validation.positive_int(group, "group")
    temperature = validation.real(temperature, "temperature", lo=0.0)
    boards = [chess.Board(lab.fen) for lab in labels]
    prompts = prompt_tensor(boards, tokenizer)
    max_new = model.cfg.block_size - prompts.shape[1]
    was = model.training
    model.eval()
    try:
        toks, mask = sample(model, prompts, max_new=max_new, eos=tokenizer.eos, pad=tokenizer.pad, group=group,
                            temperature=temperature, generator=generator)
    finally:
        model.train(was)
    texts, scores = [], []
    for i in range(toks.shape[0]):
        lab = labels[i // group]
        text = tokenizer.decode(toks[i][mask[i]].tolist())
        texts.append(text)
        scores.append(score_response(boards[i // group], text, lab.winprob_map(), cut=cut))
    return Rollout(prompts, toks, mask, tuple(texts), tuple(scores))
