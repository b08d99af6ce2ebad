"""The record of one claim run (:class:`RunRecord`), as the harness writes it and every reader reads it.

A record is JSON on one line of ``results.jsonl``. The schema is versioned: ``icml26.run/2`` adds the bars, the
basis and the verdict against our bars, the findings and the contention check of timed claims to ``icml26.run/1``;
old files still load (:meth:`RunRecord.from_json` fills what they lack).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from icml26.claims import BUDGET_NAMES, ClaimResult, Verdict, jsonable

__all__ = ["SCHEMA", "SCHEMAS", "RunRecord", "latest"]

SCHEMA = "icml26.run/2"
SCHEMAS = ("icml26.run/1", SCHEMA)


@dataclass(frozen=True)
class RunRecord:
    """One claim run: what was claimed, what was measured, the verdict and everything needed to trust it.

    ``verdict`` is what a user reads; ``bar_verdict`` what the measurement said against our bars before the basis
    (:func:`icml26.verdicts.settle`) and the contention check (:func:`icml26.verdicts.contended`) were applied.
    """

    paper: str
    claim: str
    budget: str
    verdict: str
    reason: str
    paper_id: str = ""
    claim_text: str = ""
    source: str = ""
    paper_value: str = ""
    bars: tuple[dict[str, Any], ...] = ()
    basis: str | None = None
    basis_note: str = ""
    platform: str = "cpu"
    timed: bool = False
    bar_verdict: str | None = None
    summary: str = ""
    measured: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    notes: str = ""
    findings: dict[str, str] = field(default_factory=dict)
    seeds: tuple[int, ...] = ()
    config: Any = None
    error: str | None = None
    timed_out: bool = False
    contention: dict[str, Any] | None = None
    started_at: str = ""
    finished_at: str = ""
    duration_s: float = 0.0
    cpu_s: float = 0.0
    peak_rss_mb: float | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    schema: str = SCHEMA

    def __post_init__(self) -> None:
        Verdict(self.verdict)  # a ValueError for an unknown verdict
        if self.budget not in BUDGET_NAMES:
            raise ValueError(f"budget must be one of {BUDGET_NAMES}, got {self.budget!r}")
        if self.schema not in SCHEMAS:
            raise ValueError(f"unknown record schema {self.schema!r}; this version reads {SCHEMAS}")

    @property
    def key(self) -> tuple[str, str]:
        """``(paper, claim)``."""
        return (self.paper, self.claim)

    @property
    def label(self) -> str:
        """The verdict with its basis, as lists and reports show it: ``"fails (paper)"``, ``"inconclusive (scaled)"``."""
        return self.verdict if not self.basis or self.verdict == "error" else f"{self.verdict} ({self.basis})"

    @property
    def commit(self) -> str:
        """The git commit the run came from (empty outside a checkout)."""
        return str(((self.provenance or {}).get("git") or {}).get("commit") or "")

    @classmethod
    def from_result(cls, result: ClaimResult, **fields: Any) -> RunRecord:
        """A record from a check's result and the run's fields (paper, claim, budget, spec fields, provenance...)."""
        d = result.to_dict()
        d.pop("basis", None)  # the harness passes the basis it settled on
        return cls(**{**d, **fields})

    def replace(self, **changes: Any) -> RunRecord:
        """A copy with ``changes``."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict (one line of ``results.jsonl``)."""
        out = {f.name: jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RunRecord:
        """A record from its JSON form, of this schema or an older one (``icml26.run/1``)."""
        if not isinstance(d, Mapping):
            raise TypeError(f"a record must be a JSON object, got {type(d).__name__}")
        schema = d.get("schema", "icml26.run/1")
        if schema not in SCHEMAS:
            raise ValueError(f"unknown record schema {schema!r}; this version reads {SCHEMAS}")
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        kw["schema"] = SCHEMA
        kw["seeds"] = tuple(kw.get("seeds") or ())
        kw["bars"] = tuple(kw.get("bars") or ())
        kw["figures"] = list(kw.get("figures") or [])
        kw["findings"] = dict(kw.get("findings") or {})
        kw.setdefault("bar_verdict", d.get("verdict"))
        for k in ("paper", "claim", "budget", "verdict", "reason"):
            if k not in kw:
                raise ValueError(f"a record lacks {k!r}")
        return cls(**kw)


_RANK = {b: i for i, b in enumerate(BUDGET_NAMES)}


def latest(records: Iterable[RunRecord], *, budget: str | None = None) -> dict[tuple[str, str], RunRecord]:
    """The current record per ``(paper, claim)``: the latest run at the largest budget that ran.

    With ``budget``, only runs at that budget count. A run that could not happen at its budget (``unsupported``
    because no such budget is declared) does not hide a real run at a smaller budget. Order: as first seen.
    """
    best: dict[tuple[str, str], tuple[tuple[bool, int], RunRecord]] = {}
    for r in records:
        if budget is not None and r.budget != budget:
            continue
        score = (not _not_run(r), _RANK.get(r.budget, -1))
        if r.key not in best or score >= best[r.key][0]:
            best[r.key] = (score, r)
    return {k: v[1] for k, v in best.items()}


def _not_run(r: RunRecord) -> bool:
    return r.verdict == Verdict.UNSUPPORTED.value and r.config is None and r.error is None
