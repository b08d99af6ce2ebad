"""Results store: an append-only ``results.jsonl`` in the output folder, written by the driver only.

Each record is one claim run (see :func:`icml26.claims.run_claim`). Appends are flushed and fsynced per record, so a
killed run loses at most the claims in flight; a reader skips a torn (partial) last line with a warning.
Figures arrive inside records as SVG text / PNG bytes; :meth:`ResultStore.append` writes them to
``report/figures/`` and keeps only their relative paths in the record.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["ResultStore", "latest_by_claim"]

log = logging.getLogger(__name__)

RESULTS = "results.jsonl"
FIGURES = Path("report") / "figures"


class ResultStore:
    """The results of one output folder (``out/results.jsonl`` + ``out/report/figures/``)."""

    def __init__(self, out_dir: str | os.PathLike[str]) -> None:
        self.out = Path(out_dir)

    @property
    def path(self) -> Path:
        return self.out / RESULTS

    def ensure_writable(self) -> None:
        """Create the folder if needed; raise ``PermissionError``/``OSError`` with the path if it cannot be written."""
        self.out.mkdir(parents=True, exist_ok=True)
        probe = self.out / ".icml26-write-probe"
        probe.write_text("")
        probe.unlink()

    def _write_figures(self, record: dict[str, Any]) -> None:
        figs = record.get("figures") or []
        out = []
        for f in figs:
            if "svg" not in f and "png_b64" not in f:  # already written
                out.append(f)
                continue
            stem = f"{record['paper']}__{record['claim']}__{record['budget']}__{record['run_id'][:8]}__{f['name']}"
            d = self.out / FIGURES
            d.mkdir(parents=True, exist_ok=True)
            entry = {"name": f["name"], "caption": f.get("caption", "")}
            if f.get("svg"):
                (d / f"{stem}.svg").write_text(f["svg"], encoding="utf-8")
                entry["svg"] = (FIGURES / f"{stem}.svg").as_posix()
            if f.get("png_b64"):
                (d / f"{stem}.png").write_bytes(base64.b64decode(f["png_b64"]))
                entry["png"] = (FIGURES / f"{stem}.png").as_posix()
            out.append(entry)
        record["figures"] = out

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Write the record's figures, then append the record as one line (flushed + fsynced). Returns the record."""
        self.out.mkdir(parents=True, exist_ok=True)
        self._write_figures(record)
        line = json.dumps(record, sort_keys=True, ensure_ascii=False)
        with open(self.path, "a+b") as fh:
            if fh.tell() > 0:  # a killed writer may have left a torn line without its newline: end it first
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
            fh.write(line.encode("utf-8") + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        return record

    def read(self) -> list[dict[str, Any]]:
        """All records in order. A line that does not parse is skipped with a warning (a torn last line is expected
        after a killed run)."""
        if not self.path.exists():
            return []
        records = []
        with open(self.path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                where = "last line" if i >= len(lines) - 1 else f"line {i}"
                log.warning("%s: skipping unreadable %s (torn write?)", self.path, where)
                continue
            if isinstance(rec, dict) and "paper" in rec and "claim" in rec:
                records.append(rec)
            else:
                log.warning("%s: skipping line %d, not a claim record", self.path, i)
        return records


def latest_by_claim(records: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The latest record per (paper, claim), preferring the largest budget run last: simply the last one appended."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        out[(r["paper"], r["claim"])] = r
    return out
