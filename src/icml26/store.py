"""Results store: an append-only ``results.jsonl`` in the output folder, written by the driver only.

Each line is one :class:`~icml26.record.RunRecord`. Appends hold an advisory lock on the file and are flushed and
fsynced per record, so two drivers on one folder interleave whole lines and a killed run loses at most the claims in
flight; a reader skips a torn (partial) line with a warning. Figures arrive inside records as SVG text / PNG bytes;
:meth:`ResultStore.append` writes them to ``report/figures/`` and keeps only their relative paths in the record.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from icml26.record import RunRecord

__all__ = ["ResultStore", "atomic_write"]

log = logging.getLogger(__name__)

RESULTS = "results.jsonl"
FIGURES = Path("report") / "figures"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``path`` so that a reader sees the old file or the new one, never a half-written one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if isinstance(data, str):
        tmp.write_text(data, encoding="utf-8")
    else:
        tmp.write_bytes(data)
    os.replace(tmp, path)


@contextlib.contextmanager
def _locked(fh: Any) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: appends of whole lines, unlocked
        yield
        return
    fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


class ResultStore:
    """The results of one output folder (``out/results.jsonl`` + ``out/report/figures/``)."""

    def __init__(self, out_dir: str | os.PathLike[str]) -> None:
        self.out = Path(out_dir)

    @property
    def path(self) -> Path:
        """The ``results.jsonl`` file."""
        return self.out / RESULTS

    def ensure_writable(self) -> None:
        """Create the folder if needed; raise ``PermissionError``/``OSError`` with the path if it cannot be written."""
        self.out.mkdir(parents=True, exist_ok=True)
        probe = self.out / f".icml26-write-probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()

    def _write_figures(self, rec: RunRecord) -> list[dict[str, Any]]:
        out = []
        for f in rec.figures:
            if "svg" not in f and "png_b64" not in f:  # already written
                out.append(f)
                continue
            stem = f"{rec.paper}__{rec.claim}__{rec.budget}__{rec.run_id[:8]}__{f['name']}"
            entry = {"name": f["name"], "caption": f.get("caption", "")}
            if f.get("svg"):
                atomic_write(self.out / FIGURES / f"{stem}.svg", f["svg"])
                entry["svg"] = (FIGURES / f"{stem}.svg").as_posix()
            if f.get("png_b64"):
                atomic_write(self.out / FIGURES / f"{stem}.png", base64.b64decode(f["png_b64"]))
                entry["png"] = (FIGURES / f"{stem}.png").as_posix()
            out.append(entry)
        return out

    def append(self, rec: RunRecord) -> RunRecord:
        """Write the record's figures, then append it as one line (locked, flushed, fsynced). Returns the stored
        record (figures replaced by their paths)."""
        if not isinstance(rec, RunRecord):
            raise TypeError(f"append takes a RunRecord, got {type(rec).__name__}")
        self.out.mkdir(parents=True, exist_ok=True)
        rec = rec.replace(figures=self._write_figures(rec))
        line = json.dumps(rec.to_json(), sort_keys=True, ensure_ascii=False)
        with open(self.path, "a+b") as fh, _locked(fh):
            fh.seek(0, os.SEEK_END)
            if fh.tell() > 0:  # a killed writer may have left a torn line without its newline: end it first
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
            fh.write(line.encode("utf-8") + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        return rec

    def read(self) -> list[RunRecord]:
        """All records in order. A line that does not parse is skipped with a warning (a torn last line is expected
        after a killed run); records of schema ``icml26.run/1`` load too."""
        if not self.path.exists():
            return []
        records = []
        with open(self.path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                records.append(RunRecord.from_json(json.loads(line)))
            except json.JSONDecodeError:
                where = "last line" if i >= len(lines) - 1 else f"line {i}"
                log.warning("%s: skipping unreadable %s (torn write?)", self.path, where)
            except (TypeError, ValueError) as exc:
                log.warning("%s: skipping line %d, not a claim record (%s)", self.path, i, exc)
        return records
