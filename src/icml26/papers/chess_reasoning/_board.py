"""Positions, moves and the response format of [P20]: python-chess for every rule.

A response is text ``<think> m1 m2 ... mk </think> <answer> a </answer>`` with moves in UCI (the paper's answers are
UCI moves; its best-line data writes the next k plies of the engine line, Sec. 3). :func:`parse_response` reads it
back (any model's text, not only ours), :func:`legal_prefix` plays a reasoning line on the board and counts its legal
plies (the paper's hallucinated moves are the plies that are illegal or do not exist).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import chess

__all__ = ["MOVE_VOCAB", "Response", "board_from_fen", "format_response", "is_legal", "legal_prefix",
           "parse_response"]

_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
_THINK = re.compile(r"<think>(.*?)</think>", re.S)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)


def _move_vocab() -> tuple[str, ...]:
    """Every UCI string a legal chess move can take: queen-line and knight moves from each square, and pawn
    promotions (to q, r, b, n) from the 7th to the 8th rank and from the 2nd to the 1st: 1968 strings."""
    out: list[str] = []
    for a in chess.SQUARES:
        fa, ra = chess.square_file(a), chess.square_rank(a)
        for b in chess.SQUARES:
            if a == b:
                continue
            df, dr = abs(chess.square_file(b) - fa), abs(chess.square_rank(b) - ra)
            if df == 0 or dr == 0 or df == dr or {df, dr} == {1, 2}:
                out.append(chess.square_name(a) + chess.square_name(b))
    for from_rank, to_rank in ((6, 7), (1, 0)):
        for f in range(8):
            for g in (f - 1, f, f + 1):
                if 0 <= g < 8:
                    base = chess.square_name(chess.square(f, from_rank)) + chess.square_name(chess.square(g, to_rank))
                    out.extend(base + p for p in "qrbn")
    return tuple(out)


#: all 1968 UCI move strings (the action space of searchless chess, whose positions the paper's RL tasks use)
MOVE_VOCAB: tuple[str, ...] = _move_vocab()


def board_from_fen(fen: str, *, name: str = "fen") -> chess.Board:
    """The position of ``fen`` (a python-chess :class:`chess.Board`), refused clearly when it is not a valid position.

    [P20] prompts give the board, the side to move, castling and en-passant rights; everything here starts from a
    FEN. ``ValueError`` naming ``name`` for text python-chess cannot read or a position it calls invalid (two kings
    missing, the side not to move in check, pawns on the back rank...); ``TypeError`` for a non-string.
    """
    if not isinstance(fen, str):
        raise TypeError(f"{name} must be a FEN string, got {type(fen).__name__} {fen!r}")
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise ValueError(f"{name} is not a FEN python-chess can read ({exc}): {fen!r}") from None
    if not board.is_valid():
        raise ValueError(f"{name} is not a valid chess position (python-chess status {board.status()!r}): {fen!r}")
    return board


@dataclass(frozen=True)
class Response:
    """A parsed [P20] response: the reasoning plies (whatever stood between the think tags, split on spaces), the
    answer (a UCI-shaped string, or ``None`` when missing or malformed) and whether both parts were well formed."""

    think: tuple[str, ...]
    answer: str | None
    well_formed: bool

    @property
    def faithful(self) -> bool:
        """[P20] faithfulness: the answer is the first reasoned ply (the reasoning is consistent with the move)."""
        return self.answer is not None and len(self.think) > 0 and self.think[0] == self.answer


def format_response(think: Sequence[str], answer: str) -> str:
    """The text of a [P20] response: ``<think> m1 ... mk </think> <answer> a </answer>`` (UCI moves)."""
    if isinstance(think, str):
        raise TypeError("think must be a sequence of UCI moves, not one string")
    for i, m in enumerate(think):
        if not isinstance(m, str) or not _UCI.match(m):
            raise ValueError(f"think[{i}] must be a UCI move string, got {m!r}")
    if not isinstance(answer, str) or not _UCI.match(answer):
        raise ValueError(f"answer must be a UCI move string, got {answer!r}")
    return f"<think> {' '.join(think)} </think> <answer> {answer} </answer>".replace("<think>  </think>",
                                                                                  "<think> </think>")


def parse_response(text: str) -> Response:
    """Read a [P20] response back: the plies inside ``<think>...</think>`` and the move inside
    ``<answer>...</answer>``. A missing tag, an answer that is not one UCI move, or a reasoning item that is not a
    UCI move makes the response malformed; a malformed answer is ``None`` (reward 0, as the paper's task gives an
    unparsable answer)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    t = _THINK.search(text)
    a = _ANSWER.search(text[t.end():] if t else text)
    think = tuple(t.group(1).split()) if t else ()
    raw = a.group(1).split() if a else []
    answer = raw[0] if len(raw) == 1 and _UCI.match(raw[0]) else None
    ok = t is not None and answer is not None and all(_UCI.match(m) for m in think)
    return Response(think=think, answer=answer, well_formed=ok)


def is_legal(board: chess.Board, uci: str | None) -> bool:
    """Whether ``uci`` is a legal move on ``board`` ([P20]'s illegal answer: malformed, impossible or illegal)."""
    if uci is None or not _UCI.match(uci):
        return False
    return chess.Move.from_uci(uci) in board.legal_moves


def legal_prefix(board: chess.Board, plies: Sequence[str]) -> int:
    """How many plies of a reasoning line are legal when played in order from ``board`` ([P20] hallucinations).

    The line is played on a copy: the count stops at the first ply that is not a legal move of the position reached
    so far (everything after it is reasoning about a board that does not exist). ``len(plies)`` for a legal line.
    """
    b = board.copy(stack=False)
    for i, m in enumerate(plies):
        if not is_legal(b, m):
            return i
        b.push_uci(m)
    return len(plies)
