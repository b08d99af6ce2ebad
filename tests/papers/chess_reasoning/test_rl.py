"""Dr.GRPO of [P20]: hand-computed advantages and loss, bad input, a few real iterations, the games."""

import math

import chess
import numpy as np
import pytest
import torch

from icml26.papers.chess_reasoning import (
    ChessTokenizer,
    MinimaxLabeller,
    PolicySpec,
    RLSpec,
    drgrpo_loss,
    elo_difference,
    evaluate,
    group_advantages,
    label_positions,
    make_policy,
    play_match,
    rl_finetune,
    sample_positions,
)
from icml26.papers.chess_reasoning._strength import _result

TOK = ChessTokenizer()


def test_group_advantages_by_hand() -> None:
    adv = group_advantages(np.array([1.0, 0.0, 0.5, 0.5, 0.2, 0.2]), group=3)
    np.testing.assert_allclose(adv, [0.5, -0.5, 0.0, 0.2, -0.1, -0.1])  # mean only, no std (Dr.GRPO)
    with pytest.raises(ValueError, match="groups of 4"):
        group_advantages(np.zeros(6), group=4)
    with pytest.raises(ValueError, match="rewards"):
        group_advantages(np.array([np.nan, 1.0]), group=2)
    with pytest.raises(ValueError, match="rewards"):
        group_advantages(np.array([]), group=2)


def test_drgrpo_loss_on_policy_by_hand() -> None:
    logp = torch.log(torch.tensor([[0.5, 0.5, 0.5], [0.2, 0.2, 0.2]], requires_grad=True))
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    out = drgrpo_loss(logp, logp.detach(), torch.tensor([1.0, 0.0]), mask, group=2)
    # A = (0.5, -0.5); ratio 1: loss = -(0.5 * 2 - 0.5 * 3) / (2 rows * 3 tokens)
    assert out.loss.item() == pytest.approx(-(0.5 * 2 - 0.5 * 3) / 6)
    assert float(out.clip_fraction) == 0.0
    with pytest.raises(ValueError, match="logp must be finite"):
        drgrpo_loss(torch.full((2, 3), math.nan), logp.detach(), torch.tensor([1.0, 0.0]), mask, group=2)
    with pytest.raises(TypeError, match="rewards must be a torch tensor"):
        drgrpo_loss(logp, logp.detach(), np.array([1.0, 0.0]), mask, group=2)  # type: ignore[arg-type]


def test_a_few_iterations_run_and_report() -> None:
    labels = label_positions(sample_positions(8, seed=2), labeller=MinimaxLabeller(depth=1), line_plies=4)
    model = make_policy(PolicySpec(d_model=16, n_layer=1, n_head=2), seed=0, tokenizer=TOK)
    before = [p.detach().clone() for p in model.parameters()]
    hist = rl_finetune(model, labels, spec=RLSpec(iterations=3, prompts=4, group=4), seed=0, tokenizer=TOK)
    assert len(hist) == 3 and all(set(h) >= {"reward", "answer_illegal", "hallucinated", "faithful"} for h in hist)
    # a fresh model never answers a legal move: every reward 0, every Dr.GRPO advantage 0, no update at all
    assert all(h["reward"] == 0.0 and h["answer_illegal"] == 1.0 for h in hist)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    ev = evaluate(model, labels, tokenizer=TOK, samples=2, seed=0)
    assert 0.0 <= ev["quality"] <= 1.0 and 0.0 <= ev["any_illegal"] <= 1.0
    assert ev["any_illegal"] >= max(ev["answer_illegal"], ev["hallucinated"])
    with pytest.raises(ValueError, match="at least 16 positions"):
        rl_finetune(model, labels, spec=RLSpec(prompts=16), seed=0, tokenizer=TOK)


def test_games_and_their_scores() -> None:
    model = make_policy(PolicySpec(d_model=16, n_layer=1, n_head=2), seed=0, tokenizer=TOK)
    g = play_match(model, opponent="random", games=2, seed=0, tokenizer=TOK, max_plies=10)
    assert g["wins"] + g["draws"] + g["losses"] == 2 and g["plies"] <= 10
    assert g["score"] == pytest.approx((g["wins"] + 0.5 * g["draws"]) / 2)
    assert 0.0 <= g["replaced"] <= 1.0
    mated = chess.Board("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1")
    assert _result(mated, chess.WHITE, 120) == 1.0 and _result(mated, chess.BLACK, 120) == 0.0
    up_a_rook = chess.Board("4k3/8/8/8/8/8/8/R3K3 b - - 0 1")
    assert _result(up_a_rook, chess.WHITE, 10) == 1.0
    assert _result(chess.Board(), chess.WHITE, 10) == 0.5
    assert elo_difference(0.5) == 0.0 and elo_difference(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_difference(1.0) == math.inf
    with pytest.raises(ValueError, match="opponent"):
        play_match(model, opponent="human", games=1, seed=0, tokenizer=TOK)
