"""The token interface of the [P20] policy: a position as a fixed-length prompt, a response as move tokens.

The paper's prompt shows the board (8 rows), the side to move, castling and en-passant rights; ours spells the same
facts as 40 tokens: ``<bos>``, the side, four castling tokens (right held or not), the en-passant file (or none),
one token per piece (piece and square, sorted by square) padded to 32 slots with ``<none>``, and the task
(``<predict>``: reason then answer; ``<legal>``: name one legal move). A response is
``<think> m1 ... mk </think> a <eos>`` with one token per UCI move; :meth:`ChessTokenizer.decode` gives the text
format of :mod:`._board`, so the same parser scores our policy and any language model.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

from icml26.papers.chess_reasoning._board import MOVE_VOCAB, format_response

__all__ = ["PROMPT_LEN", "ChessTokenizer"]

_SPECIALS = ("<pad>", "<bos>", "<think>", "</think>", "<eos>", "<predict>", "<legal>", "<none>", "<white>", "<black>")
_CASTLE = tuple(f"<castle-{c}-{s}>" for c in "KQkq" for s in ("yes", "no"))
_EP = ("<ep-none>",) + tuple(f"<ep-{f}>" for f in "abcdefgh")
_PIECES = tuple(f"{p}@{chess.square_name(s)}" for p in "PNBRQKpnbrqk" for s in chess.SQUARES)
_RIGHTS = (chess.BB_H1, chess.BB_A1, chess.BB_H8, chess.BB_A8)
#: <bos>, side, 4 castling rights, en passant, 32 piece slots, the task
PROMPT_LEN = 40


class ChessTokenizer:
    """Token ids of the [P20] policy: 10 specials, 8 castling, 9 en-passant, 768 piece-square and 1968 move tokens.

    ``encode_prompt(board)`` is always :data:`PROMPT_LEN` ids; ``encode_response(think, answer)`` gives
    ``<think> m1 ... mk </think> a <eos>``; ``encode_legal(board, move)`` the legal-move auxiliary example
    (the prompt with task ``<legal>``, then ``move <eos>``); ``decode(ids)`` the response text (moves in UCI, tags
    as in :mod:`._board`).
    """

    def __init__(self) -> None:
        self.tokens: tuple[str, ...] = _SPECIALS + _CASTLE + _EP + _PIECES + MOVE_VOCAB
        self.index: dict[str, int] = {t: i for i, t in enumerate(self.tokens)}
        self.pad, self.bos, self.think, self.end_think, self.eos = (
            self.index[t] for t in ("<pad>", "<bos>", "<think>", "</think>", "<eos>"))
        self.first_move = len(self.tokens) - len(MOVE_VOCAB)

    @property
    def vocab_size(self) -> int:
        """Number of tokens ([P20] policy vocabulary)."""
        return len(self.tokens)

    def move_id(self, uci: str) -> int:
        """The token of a UCI move string (``ValueError`` for a string no chess move can take)."""
        i = self.index.get(uci, -1) if isinstance(uci, str) else -1
        if i < self.first_move:
            raise ValueError(f"uci must be a move of the 1968-move vocabulary, got {uci!r}")
        return i

    def is_move(self, token: int) -> bool:
        """Whether ``token`` is a move token."""
        return self.first_move <= int(token) < len(self.tokens)

    def encode_prompt(self, board: chess.Board, *, task: str = "predict") -> list[int]:
        """The :data:`PROMPT_LEN` ids of a position ([P20] prompt: board, side, castling and en-passant rights) and
        the task (``predict`` or ``legal``)."""
        if task not in ("predict", "legal"):
            raise ValueError(f"task must be 'predict' or 'legal', got {task!r}")
        ids = [self.bos, self.index["<white>" if board.turn == chess.WHITE else "<black>"]]
        for c, bb in zip("KQkq", _RIGHTS):
            ids.append(self.index[f"<castle-{c}-{'yes' if board.castling_rights & bb else 'no'}>"])
        ep = board.ep_square if board.has_legal_en_passant() else None
        ids.append(self.index["<ep-none>" if ep is None else f"<ep-{chess.square_name(ep)[0]}>"])
        pieces = sorted(board.piece_map().items())
        ids.extend(self.index[f"{p.symbol()}@{chess.square_name(s)}"] for s, p in pieces)
        ids.extend([self.index["<none>"]] * (32 - len(pieces)))
        ids.append(self.index[f"<{task}>"])
        return ids

    def encode_response(self, think: Sequence[str], answer: str) -> list[int]:
        """``<think> m1 ... mk </think> a <eos>`` ([P20] reasoning line, then the answer move)."""
        return [self.think, *(self.move_id(m) for m in think), self.end_think, self.move_id(answer), self.eos]

    def encode_legal(self, board: chess.Board, move: str) -> list[int]:
        """The legal-move auxiliary example ``prompt <legal> move <eos>`` (our analogue of [P20]'s factual board
        answering data: one legal move of the position)."""
        return [*self.encode_prompt(board, task="legal"), self.move_id(move), self.eos]

    def decode(self, ids: Sequence[int]) -> str:
        """The text of a generated response (ids after the prompt), up to ``<eos>``: tags and UCI moves; any other
        token is spelled out as it is, which the parser then reads as malformed."""
        words: list[str] = []
        for t in ids:
            t = int(t)
            if t == self.eos:
                words.append("</answer>")
                break
            if t == self.end_think:
                words.append("</think> <answer>")
            else:
                words.append(self.tokens[t] if 0 <= t < len(self.tokens) else f"<{t}>")
        return " ".join(words)

    def response_text(self, think: Sequence[str], answer: str) -> str:
        """The text :meth:`decode` gives for :meth:`encode_response` (``format_response`` of :mod:`._board`)."""
        return format_response(think, answer)
