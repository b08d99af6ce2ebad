"""Rules, move vocabulary and response format of [P20], against python-chess."""

import chess
import numpy as np
import pytest

from icml26.papers.chess_reasoning import (
    MOVE_VOCAB,
    board_from_fen,
    format_response,
    is_legal,
    legal_prefix,
    parse_response,
    sample_positions,
)
from icml26.papers.chess_reasoning._positions import FULLMOVE_BUCKETS


def test_move_vocabulary_holds_every_legal_move() -> None:
    assert len(MOVE_VOCAB) == 1968 == len(set(MOVE_VOCAB))  # the searchless-chess action space
    vocab = set(MOVE_VOCAB)
    for fen in sample_positions(60, seed=3, per_game=4):
        assert {m.uci() for m in chess.Board(fen).legal_moves} <= vocab
    promo = chess.Board("8/1P6/8/8/8/8/6k1/4K3 w - - 0 1")  # b7b8q, b7a8? (no piece on a8): only pushes
    assert {m.uci() for m in promo.legal_moves if m.promotion} == {f"b7b8{p}" for p in "qrbn"} <= vocab


def test_bad_fens_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="fen is not a FEN"):
        board_from_fen("not a fen")
    with pytest.raises(ValueError, match="not a valid chess position"):
        board_from_fen("8/8/8/8/8/8/8/8 w - - 0 1")  # no kings
    with pytest.raises(TypeError, match="fen must be a FEN string"):
        board_from_fen(3)  # type: ignore[arg-type]
    assert board_from_fen(chess.STARTING_FEN).fen() == chess.STARTING_FEN


def test_response_round_trip_and_malformed_text() -> None:
    text = format_response(["e2e4", "e7e5"], "e2e4")
    assert text == "<think> e2e4 e7e5 </think> <answer> e2e4 </answer>"
    r = parse_response(text)
    assert r.think == ("e2e4", "e7e5") and r.answer == "e2e4" and r.well_formed and r.faithful
    assert parse_response("<think> </think> <answer> g1f3 </answer>").faithful is False
    for bad in ("e2e4", "<think> e2e4 </think>", "<think> e2e4 </think> <answer> e2e4 e7e5 </answer>",
                "<think> e2e4 </think> <answer> castle </answer>"):
        assert parse_response(bad).answer is None and not parse_response(bad).well_formed
    assert not parse_response("<think> K@h2 </think> <answer> e2e4 </answer>").well_formed
    with pytest.raises(ValueError, match="answer must be a UCI move"):
        format_response(["e2e4"], "O-O")
    with pytest.raises(TypeError, match="think must be a sequence"):
        format_response("e2e4", "e2e4")  # type: ignore[arg-type]


def test_legal_prefix_plays_the_line_on_the_board() -> None:
    b = chess.Board()
    assert legal_prefix(b, ["e2e4", "e7e5", "g1f3", "b8c6"]) == 4
    assert legal_prefix(b, ["e2e4", "e2e4", "g1f3"]) == 1  # the second ply moves a pawn that is not there
    assert legal_prefix(b, ["e7e5"]) == 0  # black's move with white to move
    assert legal_prefix(b, []) == 0 and b.fen() == chess.STARTING_FEN  # the board itself is untouched
    assert is_legal(b, "g1f3") and not is_legal(b, "g1g3") and not is_legal(b, None) and not is_legal(b, "zz")
    pinned = chess.Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")  # king next to a rook: Kd1/Kf1/Kxe2
    assert {m for m in ("e1d1", "e1f1", "e1e2", "e1d2", "e1f2") if is_legal(pinned, m)} == {
        m.uci() for m in pinned.legal_moves}


def test_positions_follow_the_fullmove_balance() -> None:
    fens = sample_positions(200, seed=0)
    assert len(set(fens)) == 200
    full = np.array([chess.Board(f).fullmove_number for f in fens])
    assert all(chess.Board(f).legal_moves.count() >= 5 for f in fens)
    lo, hi = FULLMOVE_BUCKETS[0][0], FULLMOVE_BUCKETS[-1][1]
    assert full.min() >= lo and full.max() <= hi
    early = np.mean(full <= 9)  # 10 % drawn there (games that end early shift a little weight)
    assert 0.03 < early < 0.2
    assert sample_positions(20, seed=0) == fens[:20]  # deterministic in the seed
    held = sample_positions(30, seed=1, exclude=frozenset(fens))
    assert not set(held) & set(fens)
