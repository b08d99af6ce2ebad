"""Tokens, SFT data, the KV-cached decoder and SFT of the [P20] policy, against python-chess and the full forward."""

import chess
import numpy as np
import pytest
import torch
from torch.nn import functional as F

from icml26.papers.chess_reasoning import (
    PROMPT_LEN,
    ChessTokenizer,
    MinimaxLabeller,
    PolicySpec,
    forward_cached,
    label_positions,
    make_policy,
    parse_response,
    response_logprobs,
    sample,
    sample_positions,
    sft_loss,
    sft_target,
    sft_text,
    sft_tokens,
    sft_train,
)

TOK = ChessTokenizer()
MIDGAME = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
SPEC = PolicySpec(d_model=32, n_layer=2, n_head=2)


@pytest.fixture(scope="module")
def labels():
    return label_positions(sample_positions(12, seed=5), labeller=MinimaxLabeller(depth=1), line_plies=4)


def test_prompt_spells_the_position() -> None:
    b = chess.Board("r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 0 2")  # en passant e5xd6 is legal
    ids = TOK.encode_prompt(b)
    words = [TOK.tokens[i] for i in ids]
    assert len(ids) == PROMPT_LEN and words[:7] == ["<bos>", "<white>", "<castle-K-yes>", "<castle-Q-no>",
                                                    "<castle-k-no>", "<castle-q-yes>", "<ep-d>"]
    pieces = {w for w in words if "@" in w}
    assert pieces == {f"{p.symbol()}@{chess.square_name(s)}" for s, p in b.piece_map().items()}
    assert words[-1] == "<predict>" and words.count("<none>") == 32 - len(b.piece_map())
    with pytest.raises(ValueError, match="task"):
        TOK.encode_prompt(b, task="chat")


def test_response_tokens_decode_to_the_text_format() -> None:
    ids = TOK.encode_response(["e2e4", "e7e5"], "e2e4")
    text = TOK.decode(ids)
    assert text == TOK.response_text(["e2e4", "e7e5"], "e2e4")
    r = parse_response(text)
    assert r.think == ("e2e4", "e7e5") and r.answer == "e2e4"
    with pytest.raises(ValueError, match="uci"):
        TOK.move_id("<bos>")


def test_sft_targets_of_both_arms(labels) -> None:
    rng = np.random.default_rng(0)
    for lab in labels:
        think, answer = sft_target(lab, arm="bestline", line_plies=4, rng=rng)
        assert think == list(lab.line[:4]) and answer == think[0] == lab.best
        think, answer = sft_target(lab, arm="bestmove", line_plies=4, rng=rng)
        assert answer == lab.best
        b = chess.Board(lab.fen)
        for m in think:  # the generic line is a legal playout
            assert chess.Move.from_uci(m) in b.legal_moves
            b.push_uci(m)
    pairs = sft_text(labels, arm="bestline", line_plies=4, seed=0)
    assert pairs[0][1].startswith("<think> ") and "Side to move" in pairs[0][0]
    with pytest.raises(ValueError, match="arm"):
        sft_target(labels[0], arm="vabp", line_plies=4, rng=rng)


def test_sft_token_targets(labels) -> None:
    x, y = sft_tokens(labels, arm="bestmove", line_plies=4, copies=1, legal_share=0.5, seed=0, tokenizer=TOK)
    assert x.shape == (2 * len(labels), PROMPT_LEN + 8) and y.shape[:2] == (x.shape[0], 8)
    for r in range(len(labels)):  # task rows: <think>, then every legal move at the first ply of the generic line
        b = chess.Board(labels[r].fen)
        assert y[r, 0, 0] == TOK.think and y[r, 0, 1] == -1
        first = {int(t) for t in y[r, 1] if t >= 0}
        assert first == {TOK.move_id(m.uci()) for m in b.legal_moves}
    bl_x, bl_y = sft_tokens(labels, arm="bestline", line_plies=4, copies=1, legal_share=0.0, seed=0, tokenizer=TOK)
    lab = labels[0]
    assert [int(t) for t in bl_y[0, :, 0]] == TOK.encode_response(list(lab.line), lab.best)[:8]
    legal = x[len(labels):]  # legal-move rows: task <legal>, target every legal move
    assert all(TOK.tokens[int(row[PROMPT_LEN - 1])] == "<legal>" for row in legal)
    with pytest.raises(ValueError, match="labels"):
        sft_tokens([], arm="bestline", line_plies=4, copies=1, legal_share=0.0, seed=0, tokenizer=TOK)


def test_cached_decoding_equals_the_full_forward() -> None:
    model = make_policy(SPEC, seed=0, tokenizer=TOK).eval()
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(0, TOK.vocab_size, (3, 20), generator=g)
    full = model.hidden(idx)
    h1, cache = forward_cached(model, idx[:, :12])
    h2, _ = forward_cached(model, idx[:, 12:], cache)
    torch.testing.assert_close(torch.cat([h1, h2], 1), full, rtol=1e-5, atol=1e-5)
    prompts = torch.tensor([TOK.encode_prompt(chess.Board()), TOK.encode_prompt(chess.Board(MIDGAME))])
    toks, mask = sample(model, prompts, max_new=6, eos=TOK.eos, pad=TOK.pad, group=3, temperature=1.0,
                        generator=torch.Generator().manual_seed(1))
    assert toks.shape[0] == 6 and mask[:, 0].all()
    lp = response_logprobs(model, prompts, toks, group=3)
    seq = torch.cat([prompts.repeat_interleave(3, 0), toks], 1)
    ref = F.log_softmax(model(seq)[:, PROMPT_LEN - 1:-1], -1).gather(-1, toks[..., None])[..., 0]
    torch.testing.assert_close(lp, ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="needs a torch.Generator"):
        sample(model, prompts, max_new=2, eos=TOK.eos, pad=TOK.pad, temperature=1.0)
    with pytest.raises(ValueError, match="block_size"):
        forward_cached(model, torch.zeros(1, SPEC.block_size + 1, dtype=torch.int64))


def test_sft_lowers_the_loss_and_keeps_snapshots(labels) -> None:
    model = make_policy(SPEC, seed=0, tokenizer=TOK)
    x, y = sft_tokens(labels, arm="bestline", line_plies=4, copies=1, legal_share=0.2, seed=0, tokenizer=TOK)
    with torch.no_grad():
        before = float(sft_loss(model, x, y))
    res, snaps = sft_train(model, x, y, steps=30, lr=3e-3, batch_size=16, seed=0, snapshots=3)
    with torch.no_grad():
        after = float(sft_loss(model, x, y))
    assert len(snaps) == 3 and after < before - 1.0
    assert before == pytest.approx(np.log(TOK.vocab_size), rel=0.15)  # a fresh model is close to uniform
