"""The SFT datasets of [P20]: the same positions, different targets.

- best move (``bestmove``): the answer is the engine's best move. The paper's best-move data has no reasoning of its
  own (its 7B model brings that); a model trained from scratch has none, so ours writes a *generic* legal line in the
  think block (a random playout of ``line_plies`` plies, unrelated to the answer): the format the RL prompt asks for,
  without reasoning that supports the move.
- best line (``bestline``): the think block is the engine's line (``line_plies`` plies, the paper's "next k plies"),
  and the answer is its first ply.
- legal moves (``legal``, both arms alike): one legal move of the position, our small analogue of the paper's factual
  board-answering data.

:func:`sft_target` gives one (think, answer) pair; :func:`sft_text` the prompt and response text for any language
model; :func:`sft_tokens` the padded token rows and loss masks for :class:`~icml26.common.nn.TinyGPT`.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np
import torch

from icml26.common import validation
from icml26.papers.chess_reasoning._board import board_from_fen, format_response
from icml26.papers.chess_reasoning._labels import MoveLabels
from icml26.papers.chess_reasoning._tokens import PROMPT_LEN, ChessTokenizer

__all__ = ["ARMS", "legal_tokens", "prompt_text", "random_line", "sft_target", "sft_text", "sft_tokens"]

#: the two SFT arms of [P20] compared here
ARMS: tuple[str, ...] = ("bestmove", "bestline")


def random_line(board: chess.Board, plies: int, rng: np.random.Generator) -> list[str]:
    """A random legal playout of up to ``plies`` plies from ``board`` (shorter if the game ends): the generic
    reasoning line of our [P20] best-move data."""
    b = board.copy(stack=False)
    out: list[str] = []
    for _ in range(plies):
        moves = sorted(m.uci() for m in b.legal_moves)
        if not moves:
            break
        out.append(moves[int(rng.integers(len(moves)))])
        b.push_uci(out[-1])
    return out


def sft_target(labels: MoveLabels, *, arm: str, line_plies: int, rng: np.random.Generator
               ) -> tuple[list[str], str]:
    """[P20] SFT target (think plies, answer) of one labelled position for ``arm`` (module docstring)."""
    if not isinstance(labels, MoveLabels):
        raise TypeError(f"labels must be MoveLabels, got {type(labels).__name__}")
    arm = validation.choice(arm, "arm", ARMS)
    k = validation.positive_int(line_plies, "line_plies", hi=16)
    if arm == "bestline":
        line = list(labels.line[:k])
        return line, line[0]
    return random_line(board_from_fen(labels.fen), k, rng), labels.best


def prompt_text(fen: str) -> str:
    """A [P20]-style text prompt: the board as 8 rows (rank 8 first, ``.`` for empty), the side to move, castling
    and en-passant rights, and the requested format (for training a language model on :func:`sft_text`)."""
    b = board_from_fen(fen)
    ep = chess.square_name(b.ep_square) if b.ep_square is not None and b.has_legal_en_passant() else "-"
    castling = b.castling_xfen() if b.castling_rights else "-"
    return (f"{b}\nSide to move: {'white' if b.turn else 'black'}. Castling: {castling}. En passant: {ep}.\n"
            "Think in UCI moves inside <think></think>, then give your move inside <answer></answer>.")


def sft_text(labels: Sequence[MoveLabels], *, arm: str, line_plies: int, seed: int) -> list[tuple[str, str]]:
    """(prompt, response) text pairs of a [P20] SFT dataset, one per labelled position."""
    rng = np.random.default_rng(validation.seed(seed))
    out = []
    for lab in labels:
        think, answer = sft_target(lab, arm=arm, line_plies=line_plies, rng=rng)
        out.append((prompt_text(lab.fen), format_response(think, answer)))
    return out


def _soft_line(board: chess.Board, plies: int, rng: np.random.Generator, tokenizer: ChessTokenizer
               ) -> tuple[list[str], list[list[int]]]:
    """A random legal playout and, at each of its plies, every legal move of the position reached (the target of a
    generic line is the uniform distribution over the legal moves, the expectation of a random playout)."""
    b = board.copy(stack=False)
    line, cands = [], []
    for _ in range(plies):
        moves = sorted(m.uci() for m in b.legal_moves)
        if not moves:
            break
        cands.append([tokenizer.move_id(m) for m in moves])
        line.append(moves[int(rng.integers(len(moves)))])
        b.push_uci(line[-1])
    return line, cands


def sft_tokens(labels: Sequence[MoveLabels], *, arm: str, line_plies: int, copies: int, legal_share: float,
               seed: int, tokenizer: ChessTokenizer) -> tuple[torch.Tensor, torch.Tensor]:
    """Token rows and their per-position targets for a [P20] SFT dataset of the TinyGPT policy.

    Each position gives ``copies`` task rows (for ``bestmove`` each copy draws a new generic line) and, in
    proportion ``legal_share`` of all rows, legal-move rows. A target is the set of tokens the position is trained
    towards with equal weight: one token for a fixed target (a tag, an engine move, the answer), every legal move
    for a ply of a generic line and for a legal-move row (their sampled token stands in the row as the context of
    what follows). Rows are right-padded to ``PROMPT_LEN + line_plies + 4`` tokens.

    Returns:
        ``(tokens (N, T) int64, targets (N, T - PROMPT_LEN, K) int64)``: ``targets[n, j]`` lists the target tokens
        of response position j (the token at ``PROMPT_LEN + j``), padded with -1; all -1 where nothing is learned.
    """
    if not labels:
        raise ValueError("labels must not be empty")
    arm = validation.choice(arm, "arm", ARMS)
    k = validation.positive_int(line_plies, "line_plies", hi=16)
    copies = validation.positive_int(copies, "copies")
    share = validation.real(legal_share, "legal_share", lo=0.0, hi=0.9)
    rng = np.random.default_rng(validation.seed(seed))
    rows: list[tuple[list[int], list[list[int]]]] = []
    for lab in labels:
        board = board_from_fen(lab.fen)
        prompt = tokenizer.encode_prompt(board)
        for _ in range(copies):
            if arm == "bestline":
                think = list(lab.line[:k])
                cands = [[tokenizer.move_id(m)] for m in think]
                answer = think[0]
            else:
                think, cands = _soft_line(board, k, rng, tokenizer)
                answer = lab.best
            resp = tokenizer.encode_response(think, answer)
            rows.append((prompt + resp, [[resp[0]], *cands, *([t] for t in resp[len(think) + 1:])]))
    for i in rng.integers(len(labels), size=int(round(len(rows) * share / (1.0 - share)))):
        rows.append(_legal_row(board_from_fen(labels[int(i)].fen), rng, tokenizer))
    return _pack(rows, PROMPT_LEN + k + 4, tokenizer)


def _legal_row(board: chess.Board, rng: np.random.Generator, tokenizer: ChessTokenizer
               ) -> tuple[list[int], list[list[int]]]:
    moves = sorted(m.uci() for m in board.legal_moves)
    row = tokenizer.encode_legal(board, moves[int(rng.integers(len(moves)))])
    return row, [[tokenizer.move_id(m) for m in moves], [tokenizer.eos]]


def _pack(rows: Sequence[tuple[list[int], list[list[int]]]], width: int, tokenizer: ChessTokenizer
          ) -> tuple[torch.Tensor, torch.Tensor]:
    widest = max(len(c) for _, cs in rows for c in cs)
    tokens = torch.full((len(rows), width), tokenizer.pad, dtype=torch.int64)
    targets = torch.full((len(rows), width - PROMPT_LEN, widest), -1, dtype=torch.int64)
    for r, (row, cs) in enumerate(rows):
        tokens[r, :len(row)] = torch.tensor(row)
        for j, c in enumerate(cs):
            targets[r, j, :len(c)] = torch.tensor(c)
    return tokens, targets


def legal_tokens(fens: Sequence[str], *, line_plies: int, seed: int, tokenizer: ChessTokenizer
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """[P20] analogue of factual board answering: the legal-move rows of positions (task ``<legal>``, target: every legal move), in the layout of
    :func:`sft_tokens`: the pre-training of our base policy, a stand-in for the board knowledge the paper's
    pretrained model brings to SFT (our analogue of its factual board-answering data)."""
    if not fens:
        raise ValueError("fens must not be empty")
    rng = np.random.default_rng(validation.seed(seed))
    rows = [_legal_row(board_from_fen(f, name=f"fens[{i}]"), rng, tokenizer) for i, f in enumerate(fens)]
    return _pack(rows, PROMPT_LEN + validation.positive_int(line_plies, "line_plies", hi=16) + 4, tokenizer)
