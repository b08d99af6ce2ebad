"""What ``icml26 reproduce`` shows while it runs.

Results go to stdout: one line per finished claim and a final summary, never wrapped when stdout is not a terminal
(so ``> log`` and ``grep`` work), or one JSON object per line with ``--json``. The live display — the claims running
now, elapsed time and an ETA built from each budget's ``expected_s`` — goes to stderr, and only when stderr is a
terminal. Logs and warnings go to stderr.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from icml26.record import RunRecord

__all__ = ["RunDisplay", "STYLE"]

STYLE = {"holds": "green", "fails": "red", "inconclusive": "yellow", "unsupported": "bright_black", "error": "magenta"}


def _escape(text: Any) -> str:
    from rich.markup import escape

    return escape(str(text))


def _clock(s: float) -> str:
    s = max(0, int(round(s)))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


@dataclass
class RunDisplay:
    """Progress and results of one run of ``reproduce``.

    ``order`` is the claims (``"slug:claim"``) in the order they are submitted, ``expected`` their expected seconds,
    ``slots`` how many run at once. The claims running now are taken to be the first ``slots`` unfinished ones (pools
    hand out work first in, first out).
    """

    order: Sequence[str]
    expected: dict[str, float]
    slots: int
    as_json: bool = False
    quiet: bool = False
    budget: str = "smoke"
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        from rich.console import Console

        tty = sys.stdout.isatty()
        self.out = Console(file=sys.stdout, highlight=False, soft_wrap=not tty, force_terminal=tty or None,
                           width=None if tty else 10_000)
        self.err = Console(stderr=True, highlight=False)
        self.done: set[str] = set()
        self.t0 = time.perf_counter()
        self.actual = 0.0
        self.planned = 0.0
        self._live: Any = None
        if self.err.is_terminal and not self.as_json:
            from rich.live import Live

            self._live = Live(self._status(), console=self.err, refresh_per_second=2, transient=True)
            self._live.start()

    # ---- the live display (stderr, terminals only) -----------------------------------------------------------------
    def running(self) -> list[str]:
        """The claims taken to be running now."""
        return [c for c in self.order if c not in self.done][: self.slots]

    def eta_s(self) -> float:
        """Seconds left: the unfinished claims' expected time, scaled by how the finished ones compared, per slot."""
        left = [self.expected.get(c, 10.0) for c in self.order if c not in self.done]
        speed = self.actual / self.planned if self.planned > 0 else 1.0
        return sum(left) * speed / max(1, self.slots)

    def _status(self) -> Any:
        from rich.table import Table

        t = Table.grid(padding=(0, 1))
        elapsed = time.perf_counter() - self.t0
        t.add_row(f"[bold]{self.budget}[/] {len(self.done)}/{len(self.order)} claims", f"elapsed {_clock(elapsed)}",
                  f"ETA {_clock(self.eta_s())}")
        for c in self.running():
            t.add_row("  running", _escape(c), f"~{self.expected.get(c, 10.0):.0f} s expected")
        return t

    # ---- results (stdout) --------------------------------------------------------------------------------------------
    def finished(self, rec: RunRecord) -> None:
        """Print one finished claim and update the display."""
        key = f"{rec.paper}:{rec.claim}"
        self.done.add(key)
        self.actual += rec.duration_s
        self.planned += self.expected.get(key, 10.0)
        self.counts[rec.verdict] += 1
        if self.as_json:
            line = {"event": "claim", "paper": rec.paper, "claim": rec.claim, "budget": rec.budget,
                    "verdict": rec.verdict, "basis": rec.basis, "bar_verdict": rec.bar_verdict, "summary": rec.summary,
                    "reason": rec.reason, "duration_s": rec.duration_s, "run_id": rec.run_id}
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        elif not self.quiet or rec.verdict == "error":
            detail = rec.reason if rec.verdict == "error" else rec.summary
            self.out.print(f"[{STYLE[rec.verdict]}]{rec.label:<27}[/] {_escape(key)} ({rec.duration_s:.1f} s) "
                           f"{_escape(detail)}")
        if self._live is not None:
            self._live.update(self._status())

    def warn(self, message: str) -> None:
        """A warning line on stderr."""
        self.err.print(f"[yellow]{_escape(message)}[/]")

    def close(self, report: str | None) -> None:
        """Stop the live display and print the summary (and where the report is)."""
        if self._live is not None:
            self._live.stop()
        total = time.perf_counter() - self.t0
        n = sum(self.counts.values())
        if self.as_json:
            sys.stdout.write(json.dumps({"event": "summary", "claims": n, "seconds": round(total, 1),
                                         "counts": dict(sorted(self.counts.items())), "report": report}) + "\n")
            sys.stdout.flush()
            return
        line = ", ".join(f"{c} {v}" for v, c in sorted(self.counts.items()))
        self.out.print(f"{n} claim{'' if n == 1 else 's'} in {total:.1f} s: {line}")
        if report:
            self.out.print(f"report: {report}", soft_wrap=True)
