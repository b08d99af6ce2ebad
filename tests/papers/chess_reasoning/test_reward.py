"""The predictmove reward and the per-response measures of [P20], hand-computed."""

import math

import chess
import chess.engine
import numpy as np
import pytest

from icml26.papers.chess_reasoning import normalised_quality, predictmove_reward, score_response, win_probability


def test_predictmove_reward_by_hand() -> None:
    wp = {"a2a3": 0.2, "b2b3": 0.5, "c2c3": 0.8, "d2d3": 0.35}
    # (p - 0.2) / 0.6: 0, 0.5, 1, 0.25 -> the last is below the 0.3 cut
    assert predictmove_reward("c2c3", wp) == pytest.approx(1.0)
    assert predictmove_reward("b2b3", wp) == pytest.approx(0.5)
    assert predictmove_reward("d2d3", wp) == 0.0
    assert predictmove_reward("d2d3", wp, cut=0.2) == pytest.approx(0.25)
    assert predictmove_reward("a2a3", wp) == 0.0
    assert predictmove_reward("h2h4", wp) == 0.0 and predictmove_reward(None, wp) == 0.0  # illegal / malformed
    assert predictmove_reward("a2a3", {"a2a3": 0.4, "b2b3": 0.4}) == 1.0  # every move equal: all 1
    np.testing.assert_allclose(normalised_quality(np.array([0.2, 0.5, 0.8, 0.35])), [0.0, 0.5, 1.0, 0.0])
    with pytest.raises(ValueError, match="winprob"):
        predictmove_reward("a2a3", {})
    with pytest.raises(ValueError, match="winprob must hold probabilities"):
        normalised_quality(np.array([0.2, 1.5]))


def test_win_probability_curve() -> None:
    assert win_probability(chess.engine.Cp(0)) == pytest.approx(0.5)
    p = win_probability(chess.engine.Cp(300))
    assert p == pytest.approx(1 / (1 + math.exp(-0.00368208 * 300)))
    assert win_probability(chess.engine.Cp(-300)) == pytest.approx(1 - p)
    m1, m5 = win_probability(chess.engine.Mate(1)), win_probability(chess.engine.Mate(5))
    assert m1 > m5 > win_probability(chess.engine.Cp(1000)) and win_probability(chess.engine.Mate(-1)) < 0.001
    assert win_probability(chess.engine.Mate(0)) < 0.001  # the mover is mated
    assert win_probability(200.0) == win_probability(chess.engine.Cp(200))


def test_score_response_on_the_start_position() -> None:
    b = chess.Board()
    wp = {m.uci(): 0.5 for m in b.legal_moves}
    wp["e2e4"], wp["a2a3"] = 0.6, 0.4
    s = score_response(b, "<think> e2e4 e7e5 </think> <answer> e2e4 </answer>", wp)
    assert s.reward == pytest.approx(1.0) and s.faithful and s.answer_legal and not s.hallucinated
    assert s.think_plies == s.legal_plies == 2 and s.think_quality == pytest.approx(1.0)
    h = score_response(b, "<think> e2e4 e2e4 d2d4 </think> <answer> a2a3 </answer>", wp)
    assert h.reward == 0.0 and h.hallucinated and h.legal_plies == 1
    assert h.illegal_ply_share == pytest.approx(2 / 3) and not h.faithful
    bad = score_response(b, "<think> e2e4 </think> <answer> e7e5 </answer>", wp)
    assert not bad.answer_legal and bad.reward == 0.0 and bad.well_formed
    empty = score_response(b, "<think> </think> <answer> g1f3 </answer>", wp)
    assert empty.reward == pytest.approx(0.5) and math.isnan(empty.illegal_ply_share)


def test_random_legal_move_quality_by_hand() -> None:
    from icml26.papers.chess_reasoning._labels import MoveLabels
    from icml26.papers.chess_reasoning._runs import random_quality

    a = MoveLabels(fen="x", moves=("a2a3", "b2b3", "c2c3", "d2d3"), winprob=(0.2, 0.5, 0.8, 0.35), line=("c2c3",))
    b = MoveLabels(fen="y", moves=("a2a3", "b2b3"), winprob=(0.4, 0.4), line=("a2a3",))
    # scores (0, 0.5, 1, 0) -> 0.375; all equal -> 1; the floor is the mean over positions
    assert random_quality([a], cut=0.3) == pytest.approx(0.375)
    assert random_quality([a, b], cut=0.3) == pytest.approx((0.375 + 1.0) / 2)
    assert random_quality([a], cut=0.2) == pytest.approx((0.5 + 1.0 + 0.25) / 4)
    with pytest.raises(ValueError, match="labels"):
        random_quality([], cut=0.3)
