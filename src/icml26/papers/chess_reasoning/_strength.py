"""Playing strength of a [P20] policy: whole games against a random-legal-move player or Stockfish at a low depth.

The policy plays its greedy answer (:func:`policy_move`); an answer that is not a legal move is replaced by a
uniformly random legal move and counted (so a game always finishes, and the count says how often the policy could
not play). A game ends by the rules of python-chess (mate, stalemate, insufficient material, 75 moves, fivefold
repetition) or at ``max_plies``, where it is adjudicated on material: a lead of at least 3 pawns wins, otherwise a
draw (our rule; searchless chess and the paper report win rates against engines, not how they cut long games).
The score is the policy's mean of 1 / 0.5 / 0 per game; :func:`elo_difference` turns it into an Elo-style gap.
"""

from __future__ import annotations

import math

import chess
import chess.engine
import numpy as np
import torch

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.papers.chess_reasoning._board import is_legal, parse_response
from icml26.papers.chess_reasoning._decode import sample
from icml26.papers.chess_reasoning._labels import APT_HINT, stockfish_path
from icml26.papers.chess_reasoning._tokens import ChessTokenizer

__all__ = ["OPPONENTS", "elo_difference", "play_match", "policy_move"]

#: the opponents of :func:`play_match`
OPPONENTS: tuple[str, ...] = ("random", "stockfish")
_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def policy_move(model: TinyGPT, board: chess.Board, *, tokenizer: ChessTokenizer) -> str | None:
    """The policy's greedy answer on ``board`` (UCI), or ``None`` when it is not a legal move ([P20] predictmove
    format: reasoning, then the answer)."""
    if board.is_game_over():
        raise ValueError(f"board has no move to play (game over): {board.fen()!r}")
    prompt = torch.tensor([tokenizer.encode_prompt(board)], dtype=torch.int64)
    was = model.training
    model.eval()
    try:
        toks, mask = sample(model, prompt, max_new=model.cfg.block_size - prompt.shape[1], eos=tokenizer.eos,
                            pad=tokenizer.pad, temperature=0.0)
    finally:
        model.train(was)
    answer = parse_response(tokenizer.decode(toks[0][mask[0]].tolist())).answer
    return answer if is_legal(board, answer) else None


def _material(board: chess.Board, color: bool) -> int:
    return sum(_VALUE[p.piece_type] * (1 if p.color == color else -1) for p in board.piece_map().values())


def _result(board: chess.Board, policy_color: bool, max_plies: int) -> float:
    """1 / 0.5 / 0 for the policy: the rules' outcome, else the material adjudication at ``max_plies``."""
    out = board.outcome(claim_draw=False)
    if out is not None:
        return 0.5 if out.winner is None else float(out.winner == policy_color)
    lead = _material(board, policy_color)
    return 1.0 if lead >= 3 else 0.0 if lead <= -3 else 0.5


def play_match(model: TinyGPT, *, opponent: str, games: int, seed: int, tokenizer: ChessTokenizer,
               max_plies: int = 120, depth: int = 1, engine_path: str | None = None) -> dict[str, float]:
    """[P20] strength: ``games`` games of the policy against ``opponent`` (``random`` or ``stockfish`` at
    ``depth``), alternating colours, from the initial position (module docstring for the rules).

    Returns the score (mean of 1 / 0.5 / 0), wins, draws, losses, the share of policy moves that had to be
    replaced (illegal answers) and the mean game length in plies.
    """
    opponent = validation.choice(opponent, "opponent", OPPONENTS)
    games = validation.positive_int(games, "games")
    max_plies = validation.positive_int(max_plies, "max_plies")
    rng = np.random.default_rng(validation.seed(seed))
    engine = None
    if opponent == "stockfish":
        path = stockfish_path(engine_path)
        if path is None:
            raise FileNotFoundError(f"stockfish not found; {APT_HINT}")
        engine = chess.engine.SimpleEngine.popen_uci(path)
        engine.configure({"Threads": 1, "Hash": 16})
    results, replaced, moves, lengths = [], 0, 0, []
    try:
        for g in range(games):
            board, me = chess.Board(), g % 2 == 0
            while not board.is_game_over(claim_draw=False) and board.ply() < max_plies:
                legal = sorted(board.legal_moves, key=chess.Move.uci)
                if board.turn == me:
                    uci = policy_move(model, board, tokenizer=tokenizer)
                    moves += 1
                    if uci is None:
                        replaced += 1
                        uci = legal[int(rng.integers(len(legal)))].uci()
                    board.push_uci(uci)
                elif engine is not None:
                    move = engine.play(board, chess.engine.Limit(depth=depth), game=object()).move
                    board.push(move if move is not None else legal[0])
                else:
                    board.push(legal[int(rng.integers(len(legal)))])
            results.append(_result(board, me, max_plies))
            lengths.append(board.ply())
    finally:
        if engine is not None:
            engine.quit()
    r = np.array(results)
    return {"score": float(r.mean()), "wins": int((r == 1).sum()), "draws": int((r == 0.5).sum()),
            "losses": int((r == 0).sum()), "replaced": replaced / max(moves, 1), "plies": float(np.mean(lengths))}


def elo_difference(score: float) -> float:
    """The Elo gap a mean score implies ([P20]'s strength against an opponent, Elo-style), ``400 log10(s / (1 - s))`` (±inf at a score of 1 or 0)."""
    s = validation.real(score, "score", lo=0.0, hi=1.0)
    if s in (0.0, 1.0):
        return math.copysign(math.inf, s - 0.5)
    return 400.0 * math.log10(s / (1.0 - s))
