"""Move labels of [P20]: a win probability for every legal move of a position, and the engine's best line.

The paper's RL tasks use searchless-chess positions whose every legal move carries a Stockfish win probability, and
its best-line SFT data writes the engine's next plies. :class:`StockfishLabeller` asks Debian's ``stockfish``
through python-chess's engine API (one multi-PV search at a fixed depth scores every root move);
:class:`MinimaxLabeller` is a pure python-chess alpha-beta search (material and centralisation) for tests and the
smoke budget. Scores become win probabilities with the logistic curve of searchless chess and lichess
(:func:`win_probability`). :func:`label_positions` caches labels on disk keyed by the FENs and the labeller settings.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine

from icml26.common import validation
from icml26.common.cache import cache_root, materialise
from icml26.papers.chess_reasoning._board import board_from_fen

__all__ = ["APT_HINT", "MinimaxLabeller", "MoveLabels", "StockfishLabeller", "label_positions", "stockfish_path",
           "win_probability"]

#: what to do when the engine is missing
APT_HINT = "install Debian's engine: `sudo apt-get install stockfish` (or pass engine_path=...)"
#: the logistic slope of searchless chess's centipawns_to_win_probability (the lichess curve)
_SLOPE = 0.00368208
_VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 0}
_MATE = 1_000_000


def _mate_cp(moves: int) -> float:
    """The centipawns lichess gives a mate in ``moves`` (> 0: we mate; < 0: we are mated)."""
    return math.copysign((21 - min(10, abs(moves))) * 100, moves)


def win_probability(score: chess.engine.Score | float) -> float:
    """[P20] win probability of a score from the mover's side: ``1 / (1 + exp(-0.00368208 cp))`` (searchless chess
    and lichess); a mate in n counts as ``(21 - min(10, n)) * 100`` cp, as lichess's model does."""
    if isinstance(score, chess.engine.Score):
        m = score.mate()
        if m is None:
            cp = float(score.score() or 0)
        elif m == 0:  # Mate(0): the mover is mated; MateGiven: the mover has mated
            cp = 2100.0 if score > chess.engine.Cp(0) else -2100.0
        else:
            cp = _mate_cp(m)
    else:
        cp = validation.real(score, "score")
    return 1.0 / (1.0 + math.exp(-_SLOPE * max(-1e4, min(1e4, cp))))


@dataclass(frozen=True)
class MoveLabels:
    """The labels of one position ([P20] predictmove data): every legal move (UCI, sorted), its win probability for
    the side to move, and the labeller's best line (up to ``line_plies`` plies, the best move first)."""

    fen: str
    moves: tuple[str, ...]
    winprob: tuple[float, ...]
    line: tuple[str, ...]

    def winprob_map(self) -> dict[str, float]:
        """``{move: win probability}``."""
        return dict(zip(self.moves, self.winprob))

    @property
    def best(self) -> str:
        """The move of highest win probability (the first of the best line)."""
        return self.line[0]


def _static(board: chess.Board) -> int:
    """Material plus a small centralisation bonus, for the side to move (centipawns)."""
    total = 0
    for sq, p in board.piece_map().items():
        f, r = chess.square_file(sq), chess.square_rank(sq)
        centre = 6 - (abs(2 * f - 7) + abs(2 * r - 7)) // 2 if p.piece_type in (chess.KNIGHT, chess.BISHOP) else 0
        v = _VALUES[p.piece_type] + 2 * centre
        total += v if p.color == board.turn else -v
    return total


def _ordered(board: chess.Board) -> list[chess.Move]:
    """Legal moves, captures of the most valuable piece first, then by UCI (deterministic)."""
    def key(m: chess.Move) -> tuple[int, str]:
        victim = board.piece_type_at(m.to_square)
        return (-_VALUES.get(victim, 0) if victim else 1, m.uci())
    return sorted(board.legal_moves, key=key)


class MinimaxLabeller:
    """[P20] labels from a python-chess alpha-beta search to ``depth`` plies (our stand-in for Stockfish in tests
    and at the smoke budget): every root move gets the exact depth-limited negamax value of material and
    centralisation, mates scored by distance."""

    def __init__(self, *, depth: int = 2) -> None:
        self.depth = validation.positive_int(depth, "depth", hi=4)

    @property
    def settings(self) -> dict[str, Any]:
        """What determines the labels (the cache key)."""
        return {"labeller": "minimax", "depth": self.depth, "version": 1}

    def _search(self, board: chess.Board, depth: int, ply: int, alpha: int, beta: int) -> tuple[int, list[str]]:
        if depth == 0:  # a leaf: only whether any legal move exists (mate, stalemate), not all of them
            if not any(True for _ in board.generate_legal_moves()):
                return (-(_MATE - ply) if board.is_check() else 0), []
            return (0 if board.is_insufficient_material() else _static(board)), []
        moves = _ordered(board)
        if not moves:
            return (-(_MATE - ply) if board.is_check() else 0), []
        if board.is_insufficient_material():
            return 0, []
        best, line = -_MATE - 1, []
        for m in moves:
            board.push(m)
            v, sub = self._search(board, depth - 1, ply + 1, -beta, -alpha)
            board.pop()
            if -v > best:
                best, line = -v, [m.uci(), *sub]
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best, line

    def root_scores(self, board: chess.Board) -> dict[str, tuple[chess.engine.Score, list[str]]]:
        """Every legal move's score (a python-chess ``Cp`` or ``Mate`` for the mover) and its line."""
        out = {}
        for m in _ordered(board):
            board.push(m)
            v, sub = self._search(board, self.depth - 1, 1, -_MATE - 1, _MATE + 1)
            board.pop()
            v = -v
            if abs(v) > _MATE // 2:
                plies = _MATE - abs(v)
                score: chess.engine.Score = chess.engine.Mate((plies + 1) // 2 if v > 0 else -(plies // 2))
            else:
                score = chess.engine.Cp(v)
            out[m.uci()] = (score, [m.uci(), *sub])
        return out

    def pv(self, board: chess.Board) -> list[str]:
        """The principal variation from ``board`` (the best root move's line; empty when the game is over)."""
        scores = self.root_scores(board)
        return scores[max(scores, key=lambda m: win_probability(scores[m][0]))][1] if scores else []

    def close(self) -> None:
        """Nothing to release (same interface as :class:`StockfishLabeller`)."""


def stockfish_path(engine_path: str | None = None) -> str | None:
    """The Stockfish binary of the [P20] labels: ``engine_path`` if given, else ``stockfish`` on PATH or Debian's ``/usr/games``."""
    if engine_path is not None:
        return engine_path if Path(engine_path).is_file() else None
    return shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")


class StockfishLabeller:
    """[P20] labels from Stockfish (Debian's ``stockfish``) at a fixed ``depth``, one thread and a fixed hash, a new
    game per position (so a position's labels do not depend on what was searched before). Use as a context
    manager or call :meth:`close`."""

    def __init__(self, *, depth: int = 4, engine_path: str | None = None, hash_mb: int = 16) -> None:
        self.depth = validation.positive_int(depth, "depth", hi=30)
        self.hash_mb = validation.positive_int(hash_mb, "hash_mb")
        path = stockfish_path(engine_path)
        if path is None:
            raise FileNotFoundError(f"stockfish not found; {APT_HINT}")
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"Threads": 1, "Hash": self.hash_mb})
        self.version = str(self.engine.id.get("name", "stockfish"))

    @property
    def settings(self) -> dict[str, Any]:
        """What determines the labels (the cache key)."""
        return {"labeller": "stockfish", "depth": self.depth, "hash_mb": self.hash_mb, "engine": self.version}

    def root_scores(self, board: chess.Board) -> dict[str, tuple[chess.engine.Score, list[str]]]:
        """Every legal move's score for the mover and its principal variation (one multi-PV search)."""
        n = board.legal_moves.count()
        infos = self.engine.analyse(board, chess.engine.Limit(depth=self.depth), multipv=n, game=object())
        out = {}
        for info in infos:
            pv = info.get("pv") or []
            if pv and "score" in info:
                out[pv[0].uci()] = (info["score"].relative, [m.uci() for m in pv])
        for m in board.legal_moves:  # a root move the multi-PV search did not report: search its child
            if m.uci() not in out:
                board.push(m)
                info = self.engine.analyse(board, chess.engine.Limit(depth=max(1, self.depth - 1)), game=object())
                board.pop()
                pov = info.get("score")
                if pov is None:
                    raise ValueError(f"stockfish gave no score after {m.uci()} in {board.fen()!r}")
                score = pov.relative
                out[m.uci()] = (-score, [m.uci()] + [x.uci() for x in info.get("pv") or []])
        return out

    def pv(self, board: chess.Board) -> list[str]:
        """Stockfish's principal variation from ``board`` (one single-PV search at this depth)."""
        info = self.engine.analyse(board, chess.engine.Limit(depth=self.depth), game=object())
        return [m.uci() for m in info.get("pv") or []]

    def play(self, board: chess.Board) -> str:
        """Stockfish's move at this labeller's depth (the fixed-depth opponent of the strength check)."""
        res = self.engine.play(board, chess.engine.Limit(depth=self.depth), game=object())
        if res.move is None:
            raise ValueError("stockfish returned no move")
        return res.move.uci()

    def close(self) -> None:
        """Stop the engine process."""
        self.engine.quit()

    def __enter__(self) -> StockfishLabeller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Labeller = MinimaxLabeller | StockfishLabeller


def _label_one(board: chess.Board, labeller: Labeller, line_plies: int) -> MoveLabels:
    """Every legal move's win probability, and the best line: the best move, then the labeller's principal
    variations from the positions it leads to until ``line_plies`` plies (or the end of the game)."""
    scores = labeller.root_scores(board)
    if not scores:
        raise ValueError(f"fen has no legal move (game over): {board.fen()!r}")
    moves = tuple(sorted(scores))
    wp = tuple(win_probability(scores[m][0]) for m in moves)
    line = [max(scores, key=lambda m: win_probability(scores[m][0]))]  # ties: the labeller's own ranking first
    b = board.copy(stack=False)
    b.push_uci(line[0])
    while len(line) < line_plies and not b.is_game_over():
        pv = labeller.pv(b)[:line_plies - len(line)]
        if not pv:
            break
        for m in pv:
            b.push_uci(m)
        line.extend(pv)
    return MoveLabels(fen=board.fen(), moves=moves, winprob=wp, line=tuple(line))


def label_positions(fens: Sequence[str], *, labeller: Labeller, line_plies: int = 4,
                    cache_dir: str | Path | None = None) -> list[MoveLabels]:
    """[P20] labels of every position of ``fens``, computed once per (FENs, labeller settings, ``line_plies``) and
    kept under ``<cache>/chess_reasoning/labels/`` (``cache_dir``, else ``$ICML26_CACHE_DIR``; no caching without
    either). ``ValueError`` for an invalid FEN or a position with no legal move."""
    if isinstance(fens, str) or not isinstance(fens, Sequence) or len(fens) == 0:
        raise ValueError("fens must be a non-empty sequence of FEN strings")
    boards = [board_from_fen(f, name=f"fens[{i}]") for i, f in enumerate(fens)]
    for i, b in enumerate(boards):
        if b.is_game_over():
            raise ValueError(f"fens[{i}] has no legal move to label (game over): {fens[i]!r}")
    k = validation.positive_int(line_plies, "line_plies", hi=16)

    def compute() -> list[MoveLabels]:
        return [_label_one(b, labeller, k) for b in boards]

    root = cache_root(cache_dir)
    if root is None:
        return compute()
    key = {**labeller.settings, "line_plies": k, "n": len(boards),
           "fens": hashlib.sha256("\n".join(b.fen() for b in boards).encode()).hexdigest()}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]

    def build(tmp: Path) -> None:
        (tmp / "labels.json").write_text(json.dumps([asdict(x) for x in compute()]), encoding="utf-8")

    folder = materialise(root / "chess_reasoning" / "labels" / digest, key=key, build=build)
    rows: list[Mapping[str, Any]] = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    return [MoveLabels(fen=r["fen"], moves=tuple(r["moves"]), winprob=tuple(r["winprob"]), line=tuple(r["line"]))
            for r in rows]
