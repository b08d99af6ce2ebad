"""A SQLite index of ``results.jsonl`` for ``icml26 history`` across many runs.

The JSONL stays the source of truth: the index (``results.sqlite`` beside it, WAL mode) is rebuilt from it whenever
it is missing, damaged or stale (the JSONL's size or modification time differs from what the index recorded).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from icml26.store import ResultStore

__all__ = ["INDEX", "history", "rebuild"]

INDEX = "results.sqlite"
_COLUMNS = ("run_id", "paper", "claim", "budget", "verdict", "basis", "bar_verdict", "summary", "reason",
            "finished_at", "duration_s", "git_commit")


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def rebuild(out: str | Path) -> Path:
    """Build ``out/results.sqlite`` afresh from ``out/results.jsonl``; returns its path."""
    out = Path(out)
    store = ResultStore(out)
    db = out / INDEX
    tmp = out / f".{INDEX}.tmp"
    tmp.unlink(missing_ok=True)
    size, mtime = _stamp(store.path) if store.path.exists() else (0, 0)
    con = sqlite3.connect(tmp)
    try:
        con.execute(f"CREATE TABLE runs (seq INTEGER PRIMARY KEY, {', '.join(c + ' TEXT' for c in _COLUMNS)})")
        con.execute("CREATE INDEX runs_claim ON runs (paper, claim)")
        con.execute("CREATE TABLE meta (jsonl_size INTEGER, jsonl_mtime_ns INTEGER)")
        con.execute("INSERT INTO meta VALUES (?, ?)", (size, mtime))
        rows = [(r.run_id, r.paper, r.claim, r.budget, r.verdict, r.basis, r.bar_verdict, r.summary, r.reason,
                 r.finished_at, r.duration_s, r.commit[:12]) for r in store.read()]
        con.executemany(f"INSERT INTO runs ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})", rows)
        con.commit()
    finally:
        con.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    tmp.replace(db)
    with contextlib.closing(sqlite3.connect(db)) as c:
        c.execute("PRAGMA journal_mode=WAL")
    return db


def _fresh(out: Path) -> bool:
    db, jsonl = out / INDEX, ResultStore(out).path
    if not db.exists() or not jsonl.exists():
        return False
    try:
        with contextlib.closing(sqlite3.connect(db)) as con:
            row = con.execute("SELECT jsonl_size, jsonl_mtime_ns FROM meta").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and tuple(row) == _stamp(jsonl)


def history(out: str | Path, paper: str, claim: str | None = None) -> list[dict[str, Any]]:
    """Every run of ``paper`` (one ``claim`` or all), oldest first, from the index (rebuilt first if stale)."""
    out = Path(out)
    if not _fresh(out):
        rebuild(out)
    with contextlib.closing(sqlite3.connect(out / INDEX)) as con:
        con.row_factory = sqlite3.Row
        q = f"SELECT {', '.join(_COLUMNS)} FROM runs WHERE paper = ?" + (" AND claim = ?" if claim else "")
        rows = con.execute(q + " ORDER BY seq", (paper, claim) if claim else (paper,)).fetchall()
    return [dict(r) for r in rows]
