"""Move labels of [P20]: the minimax labeller against a brute-force negamax, the cache, Stockfish when installed."""

import chess
import pytest

from icml26.papers.chess_reasoning import (
    MinimaxLabeller,
    StockfishLabeller,
    label_positions,
    stockfish_path,
    win_probability,
)
from icml26.papers.chess_reasoning._labels import _MATE, _static

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#
HANGING_QUEEN = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"  # Rxd5 wins the queen


def _negamax(board: chess.Board, depth: int, ply: int) -> int:
    """Plain negamax without pruning or move ordering (the oracle of the alpha-beta search)."""
    moves = list(board.legal_moves)
    if not moves:
        return -(_MATE - ply) if board.is_check() else 0
    if depth == 0:
        return 0 if board.is_insufficient_material() else _static(board)
    if board.is_insufficient_material():
        return 0
    best = -_MATE - 1
    for m in moves:
        board.push(m)
        best = max(best, -_negamax(board, depth - 1, ply + 1))
        board.pop()
    return best


@pytest.mark.parametrize("fen", [HANGING_QUEEN, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"])
def test_alpha_beta_root_values_equal_brute_force(fen: str) -> None:
    board = chess.Board(fen)
    scores = MinimaxLabeller(depth=2).root_scores(board)
    assert set(scores) == {m.uci() for m in board.legal_moves}
    for uci, (score, line) in scores.items():
        board.push_uci(uci)
        want = -_negamax(board, 1, 1)
        board.pop()
        assert score.score(mate_score=_MATE) == want
        assert line[0] == uci


def test_labels_find_the_obvious_moves() -> None:
    lab = MinimaxLabeller(depth=2)
    mate, queen = label_positions([MATE_IN_ONE, HANGING_QUEEN], labeller=lab, line_plies=3)
    assert mate.best == "a1a8" and max(mate.winprob) == mate.winprob_map()["a1a8"] > 0.99
    assert queen.best == "d2d5" and queen.moves == tuple(sorted(m.uci() for m in chess.Board(HANGING_QUEEN).legal_moves))
    assert len(queen.line) == 3 and chess.Board(HANGING_QUEEN).is_legal(chess.Move.from_uci(queen.line[0]))
    b = chess.Board(HANGING_QUEEN)
    for m in queen.line:  # the best line is a legal line
        assert chess.Move.from_uci(m) in b.legal_moves
        b.push_uci(m)
    assert all(0.0 <= p <= 1.0 for p in queen.winprob)


def test_labels_are_cached_by_fen_and_settings(tmp_path) -> None:
    fens = [HANGING_QUEEN, MATE_IN_ONE]
    a = label_positions(fens, labeller=MinimaxLabeller(depth=1), cache_dir=tmp_path)
    folders = list((tmp_path / "chess_reasoning" / "labels").iterdir())
    assert len(folders) == 1 and (folders[0] / "labels.json").is_file()
    assert label_positions(fens, labeller=MinimaxLabeller(depth=1), cache_dir=tmp_path) == a
    label_positions(fens, labeller=MinimaxLabeller(depth=2), cache_dir=tmp_path)
    assert len(list((tmp_path / "chess_reasoning" / "labels").iterdir())) == 2


def test_bad_positions_are_refused() -> None:
    with pytest.raises(ValueError, match=r"fens\[1\]"):
        label_positions([HANGING_QUEEN, "bad fen"], labeller=MinimaxLabeller(depth=1))
    with pytest.raises(ValueError, match="game over"):
        label_positions(["R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"], labeller=MinimaxLabeller(depth=1))
    with pytest.raises(ValueError, match="fens must be a non-empty"):
        label_positions([], labeller=MinimaxLabeller(depth=1))
    with pytest.raises(ValueError, match="depth"):
        MinimaxLabeller(depth=0)


@pytest.mark.skipif(stockfish_path() is None, reason="Debian's stockfish is not installed (apt-get install stockfish)")
def test_stockfish_labels_every_legal_move() -> None:
    with StockfishLabeller(depth=4) as sf:
        mate, queen = label_positions([MATE_IN_ONE, HANGING_QUEEN], labeller=sf, line_plies=4)
        assert sf.play(chess.Board(MATE_IN_ONE)) == "a1a8"
    assert mate.best == "a1a8" and mate.moves == tuple(sorted(m.uci() for m in chess.Board(MATE_IN_ONE).legal_moves))
    assert queen.best == "d2d5" and len(queen.line) == 4
    # a rook up after Rxd5 (about +5 pawns), no mate in sight at depth 4
    assert win_probability(300.0) < queen.winprob_map()["d2d5"] == max(queen.winprob) < 1.0


def test_missing_engine_path_is_reported() -> None:
    with pytest.raises(FileNotFoundError, match="apt-get install stockfish"):
        StockfishLabeller(engine_path="/no/such/stockfish")
