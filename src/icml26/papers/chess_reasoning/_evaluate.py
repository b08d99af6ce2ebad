"""The [P20] evaluation measures of a policy on held-out labelled positions.

:func:`evaluate` samples responses (the policy's own distribution, as RL changes it) and averages the paper's
measures: move quality (the predictmove score of the answer), the illegal-answer rate, the share of responses whose
reasoning holds a ply that is not a legal move of the board it is played on (hallucinated moves), the illegal share
of reasoning plies, the share of responses with any illegal move (answer or reasoning), faithfulness (the answer is the first reasoned ply) and the predictmove score of that first ply
(the reasoning's own quality).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.papers.chess_reasoning._labels import MoveLabels
from icml26.papers.chess_reasoning._reward import ResponseScore
from icml26.papers.chess_reasoning._rollout import rollout
from icml26.papers.chess_reasoning._tokens import ChessTokenizer

__all__ = ["METRICS", "evaluate", "summarise_scores"]

#: the measures :func:`evaluate` returns
METRICS: tuple[str, ...] = ("quality", "answer_illegal", "hallucinated", "any_illegal", "illegal_plies",
                            "faithful", "think_quality", "malformed")


def summarise_scores(scores: Sequence[ResponseScore]) -> dict[str, float]:
    """Means of the [P20] measures over scored responses (``illegal_plies`` over responses that reason at all;
    NaN when none does)."""
    if not scores:
        raise ValueError("scores must not be empty")
    plies = [s.illegal_ply_share for s in scores if s.think_plies > 0]
    return {"quality": float(np.mean([s.reward for s in scores])),
            "answer_illegal": float(np.mean([not s.answer_legal for s in scores])),
            "hallucinated": float(np.mean([s.hallucinated for s in scores])),
            "any_illegal": float(np.mean([s.hallucinated or not s.answer_legal for s in scores])),
            "illegal_plies": float(np.mean(plies)) if plies else math.nan,
            "faithful": float(np.mean([s.faithful for s in scores])),
            "think_quality": float(np.mean([s.think_quality for s in scores])),
            "malformed": float(np.mean([not s.well_formed for s in scores]))}


def evaluate(model: TinyGPT, labels: Sequence[MoveLabels], *, tokenizer: ChessTokenizer, samples: int,
             temperature: float = 1.0, seed: int, cut: float = 0.3) -> dict[str, float]:
    """[P20] measures of ``model`` on ``labels``: ``samples`` responses per position at ``temperature`` (0: one
    greedy response each), scored by :func:`._reward.score_response`, averaged (:func:`summarise_scores`)."""
    samples = validation.positive_int(samples, "samples")
    temperature = validation.real(temperature, "temperature", lo=0.0)
    gen = torch.Generator().manual_seed(validation.seed(seed))
    ro = rollout(model, labels, tokenizer=tokenizer, group=1 if temperature == 0 else samples,
                 temperature=temperature, generator=gen, cut=cut)
    return summarise_scores(ro.scores)
