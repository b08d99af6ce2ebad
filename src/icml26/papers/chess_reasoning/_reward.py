"""The predictmove reward of [P20] and the per-response measures: legality, hallucinations, faithfulness.

The paper's predictmove task scores the answer by the min-max normalised win probability of the chosen move among
all legal moves, ``s = (p(move) - min p) / (max p - min p)`` (1 for every move when all are equal), with values
below the cut (0.3) set to 0; an illegal or unparsable answer scores 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import chess
import numpy as np

from icml26.common import validation
from icml26.papers.chess_reasoning._board import is_legal, legal_prefix, parse_response

__all__ = ["ResponseScore", "normalised_quality", "predictmove_reward", "score_response"]


def normalised_quality(winprob: np.ndarray, *, cut: float = 0.3) -> np.ndarray:
    """[P20] predictmove scores of all legal moves: min-max normalised win probabilities, those below ``cut`` set
    to 0 (all 1 when every move has the same win probability)."""
    p = validation.real_array(winprob, "winprob", ndim=1)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("winprob must hold probabilities in [0, 1]")
    c = validation.real(cut, "cut", lo=0.0, hi=1.0)
    span = float(p.max() - p.min())
    s = (p - p.min()) / span if span > 0 else np.ones_like(p)
    return np.where(s < c, 0.0, s)


def predictmove_reward(answer: str | None, winprob: Mapping[str, float], *, cut: float = 0.3) -> float:
    """[P20] predictmove reward of an answer move (UCI) given every legal move's win probability.

    ``winprob`` maps each legal move of the position to its win probability for the side to move (e.g.
    :meth:`MoveLabels.winprob_map`); an answer outside it (illegal, malformed, ``None``) earns 0.
    """
    if answer is not None and not isinstance(answer, str):
        raise TypeError(f"answer must be a UCI string or None, got {type(answer).__name__}")
    if not isinstance(winprob, Mapping) or not winprob:
        raise ValueError("winprob must be a non-empty mapping {legal move: win probability}")
    moves = list(winprob)
    scores = normalised_quality(np.array([winprob[m] for m in moves], dtype=float), cut=cut)
    if answer is None or answer not in winprob:
        return 0.0
    return float(scores[moves.index(answer)])


@dataclass(frozen=True)
class ResponseScore:
    """What [P20] measures on one response: the reward, whether the answer is a legal move, the reasoning's length
    and legal prefix, whether it hallucinates (some ply illegal), faithfulness (answer == first ply) and the
    reasoning's own quality (the predictmove score of its first ply)."""

    reward: float
    answer_legal: bool
    well_formed: bool
    think_plies: int
    legal_plies: int
    faithful: bool
    think_quality: float

    @property
    def hallucinated(self) -> bool:
        """Some reasoning ply is not a legal move of the board it is played on."""
        return self.legal_plies < self.think_plies

    @property
    def illegal_ply_share(self) -> float:
        """Share of reasoning plies past the legal prefix (NaN for an empty reasoning)."""
        return math.nan if self.think_plies == 0 else 1.0 - self.legal_plies / self.think_plies


def score_response(board: chess.Board, text: str, winprob: Mapping[str, float], *, cut: float = 0.3
                   ) -> ResponseScore:
    """Score one [P20] response text on its position: reward (:func:`predictmove_reward`), answer legality,
    reasoning legality (:func:`~._board.legal_prefix`), faithfulness and reasoning quality."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"board must be a chess.Board, got {type(board).__name__}")
    r = parse_response(text)
    legal = is_legal(board, r.answer)
    first = r.think[0] if r.think else None
    return ResponseScore(
        reward=predictmove_reward(r.answer, winprob, cut=cut) if legal else 0.0,
        answer_legal=legal, well_formed=r.well_formed, think_plies=len(r.think),
        legal_plies=legal_prefix(board, r.think), faithful=r.faithful,
        think_quality=predictmove_reward(first, winprob, cut=cut) if is_legal(board, first) else 0.0)
