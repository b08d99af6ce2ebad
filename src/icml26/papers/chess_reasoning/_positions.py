"""Positions for [P20]: games played by python-chess, sampled at the paper's full-move distribution.

The paper's RL prompts are searchless-chess positions balanced by full-move number (0-9: 10 %, 10-19: 30 %,
20-29: 30 %, 30-39: 15 %, 40+: 15 %). Ours come from games played here: each move is a capture of the most
valuable piece on offer with probability ``greedy``, else a uniformly random legal move (a cheap mix of sensible and
random play that reaches varied middle games and endings). Positions with fewer than ``min_legal`` legal moves are
dropped (the paper's task needs a choice), and FENs are unique.
"""

from __future__ import annotations

import chess
import numpy as np

from icml26.common import validation

__all__ = ["FULLMOVE_BUCKETS", "sample_positions"]

#: (first full move, last full move, share) of the paper's balanced RL tasks; 40+ is drawn from moves 40-60
FULLMOVE_BUCKETS: tuple[tuple[int, int, float], ...] = ((1, 9, 0.1), (10, 19, 0.3), (20, 29, 0.3), (30, 39, 0.15),
                                                       (40, 60, 0.15))
_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def _move(board: chess.Board, rng: np.random.Generator, greedy: float) -> chess.Move:
    moves = sorted(board.legal_moves, key=chess.Move.uci)
    if rng.random() < greedy:
        gain = [_VALUE[board.piece_type_at(m.to_square) or chess.KING] if board.is_capture(m) and
                board.piece_type_at(m.to_square) else 0 for m in moves]
        best = max(gain)
        if best > 0:
            moves = [m for m, g in zip(moves, gain) if g == best]
    return moves[int(rng.integers(len(moves)))]


def _game(rng: np.random.Generator, greedy: float, min_legal: int, per_game: int) -> list[chess.Board]:
    """One game played until the last of ``per_game`` plies drawn from :data:`FULLMOVE_BUCKETS`, and the positions
    at those plies (those with at least ``min_legal`` legal moves; fewer if the game ended first)."""
    shares = np.array([b[2] for b in FULLMOVE_BUCKETS])
    targets = set()
    for _ in range(per_game):
        lo, hi, _share = FULLMOVE_BUCKETS[int(rng.choice(len(FULLMOVE_BUCKETS), p=shares / shares.sum()))]
        targets.add(2 * (int(rng.integers(lo, hi + 1)) - 1) + int(rng.integers(2)))
    board, out = chess.Board(), []
    for ply in range(max(targets) + 1):
        if board.is_game_over():
            break
        if ply in targets and board.legal_moves.count() >= min_legal:
            out.append(board.copy(stack=False))
        board.push(_move(board, rng, greedy))
    return out


def sample_positions(n: int, *, seed: int, greedy: float = 0.5, min_legal: int = 5, per_game: int = 1,
                     exclude: frozenset[str] = frozenset()) -> list[str]:
    """``n`` distinct FENs of positions from games played here, balanced by full-move number ([P20] RL tasks).

    Args:
        n: how many positions.
        seed: the games' seed (numpy ``default_rng``).
        greedy: the probability that a move is the capture of the most valuable piece (when one exists).
        min_legal: the fewest legal moves a position may have.
        per_game: positions taken from one game (at different full-move numbers; 1 makes them independent).
        exclude: FENs not to return (e.g. the training positions, when drawing held-out ones).
    """
    n = validation.positive_int(n, "n")
    rng = np.random.default_rng(validation.seed(seed))
    greedy = validation.real(greedy, "greedy", lo=0.0, hi=1.0)
    min_legal = validation.positive_int(min_legal, "min_legal")
    per_game = validation.positive_int(per_game, "per_game", hi=64)
    out: list[str] = []
    seen = set(exclude)
    games = 0
    while len(out) < n:
        games += 1
        if games > 50 * n + 100:
            raise ValueError(f"could not find {n} distinct positions with >= {min_legal} legal moves")
        for b in _game(rng, greedy, min_legal, per_game):
            fen = b.fen()
            if fen not in seen and len(out) < n:
                seen.add(fen)
                out.append(fen)
    return out
