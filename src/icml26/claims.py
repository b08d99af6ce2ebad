"""The claim-check contract: :class:`Claim`, :class:`Budget`, :class:`ClaimResult`, :class:`Verdict`, :func:`run_claim`.

A paper's ``claims.py`` defines ``CLAIMS: list[Claim]``. Each claim's text, source and the paper's number live in the
paper's ``paper.toml`` (read without importing the paper); the :class:`Claim` object carries the check function and
one :class:`Budget` per budget name (``smoke`` and ``small`` are required, ``full`` is optional).

A check is ``check(config, ctx) -> ClaimResult``: ``config`` is the budget's (frozen dataclass) config and ``ctx`` a
:class:`Context` with the seeds to use. It returns the numbers it measured, a verdict and the reason for it.
:func:`run_claim` wraps a check with seeding, timing, exception capture and provenance, and returns a plain-dict
record (JSON-serialisable) that the runner hands back to the driver, which alone writes results.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import math
import signal
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from icml26.figures import FigureData

__all__ = [
    "BUDGET_NAMES",
    "Budget",
    "Claim",
    "ClaimResult",
    "ClaimTimeout",
    "Context",
    "Verdict",
    "run_claim",
    "jsonable",
]

log = logging.getLogger(__name__)

BUDGET_NAMES: tuple[str, ...] = ("smoke", "small", "full")
SCHEMA = "icml26.run/1"


class Verdict(str, enum.Enum):
    """What a claim check concluded. Always paired with a reason."""

    HOLDS = "holds"  # the measured numbers support the claim at this budget
    FAILS = "fails"  # the measured numbers contradict the claim (a finding, not a bug)
    INCONCLUSIVE = "inconclusive"  # the effect is inside the noise at this budget
    UNSUPPORTED = "unsupported"  # this budget / machine cannot test it (e.g. a GPU speed claim on a CPU)
    ERROR = "error"  # the check raised or timed out (set by the harness, never by a check)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


class ClaimTimeout(BaseException):
    """Raised inside a check when its budget's timeout has passed.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that a check's own ``except Exception`` cannot swallow it;
    the harness also re-raises it after the check returns if the alarm fired meanwhile.
    """


@dataclass(frozen=True)
class Budget:
    """One budget of a claim: the config passed to the check, the number of seeds, and an expected time.

    Attributes:
        config: a frozen dataclass (or a plain mapping) with the check's hyper-parameters at this budget.
        seeds: how many seeds the check uses by default (``--seeds`` overrides it); stochastic claims use >= 3.
        expected_s: the wall-clock seconds the check is expected to take on 2 CPU cores (smoke <= 10, small <= 300).
        requires: what the budget needs beyond the package (e.g. ``("gpu",)``); the check itself decides what to do
            when it is missing (usually a ``unsupported`` verdict) - this field is documentation for ``show``.
    """

    config: Any
    seeds: int = 1
    expected_s: float = 10.0
    requires: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.seeds, int) or self.seeds < 1:
            raise ValueError(f"seeds must be a positive int, got {self.seeds!r}")
        if not (self.expected_s > 0):
            raise ValueError(f"expected_s must be > 0, got {self.expected_s!r}")


@dataclass(frozen=True)
class Claim:
    """A paper's headline claim as a runnable check.

    Attributes:
        id: the claim's id, unique within the paper and equal to a ``[[claims]] id`` of its ``paper.toml``.
        check: ``check(config, ctx) -> ClaimResult``.
        budgets: budget name -> :class:`Budget`; must contain ``smoke`` and ``small``.
    """

    id: str
    check: Callable[[Any, "Context"], "ClaimResult"]
    budgets: Mapping[str, Budget]

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("_", "").isalnum():
            raise ValueError(f"claim id must be a non-empty identifier, got {self.id!r}")
        missing = {"smoke", "small"} - set(self.budgets)
        if missing:
            raise ValueError(f"claim {self.id!r} lacks budgets {sorted(missing)}")
        unknown = set(self.budgets) - set(BUDGET_NAMES)
        if unknown:
            raise ValueError(f"claim {self.id!r} has unknown budgets {sorted(unknown)}")
        for name, b in self.budgets.items():
            if not isinstance(b, Budget):
                raise TypeError(f"claim {self.id!r}: budget {name!r} must be a Budget, got {type(b).__name__}")


@dataclass
class Context:
    """What a check gets besides its config.

    Attributes:
        seeds: the seeds to use, one per repetition (``len(seeds)`` >= 1).
        budget: the budget name being run.
        mapper: ``map(fn, items) -> list`` used by :meth:`map`; the runner may give one that fans work out.
    """

    seeds: tuple[int, ...]
    budget: str = "smoke"
    mapper: Callable[[Callable[[Any], Any], list[Any]], list[Any]] | None = None

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """Apply ``fn`` to every item (serially unless the runner supplied a parallel mapper). Order is kept."""
        items = list(items)
        if self.mapper is None:
            return [fn(x) for x in items]
        return list(self.mapper(fn, items))

    def progress(self, message: str) -> None:
        """Log a progress message from a long check (goes to the ``icml26`` logger)."""
        log.info("%s", message)


@dataclass
class ClaimResult:
    """What one claim check returns.

    Attributes:
        verdict: the verdict; never ``ERROR`` (that is the harness's).
        reason: why this verdict, in one or two sentences, with the deciding numbers.
        summary: the headline measured number(s) as display text, e.g. ``"max/min iters = 1.07 [1.03, 1.12]"``.
        measured: the numbers measured (JSON-serialisable: floats, ints, strings, lists, dicts); deterministic for a
            fixed seed (the conformance test runs the smoke budget twice and compares them).
        timings: wall-clock-derived numbers (seconds, throughputs, speed ratios): kept apart from ``measured``
            because they vary between runs of the same seed.
        rows: optional raw rows (one dict per point of a sweep) kept in the record for later analysis.
        figures: figures made with :func:`icml26.figures.render`.
        notes: anything else a reader should know (deviations from the paper, caveats).
    """

    verdict: Verdict
    reason: str
    summary: str = ""
    measured: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    figures: list[FigureData] = field(default_factory=list)
    notes: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            self.verdict = Verdict(self.verdict)
        if not self.reason or not isinstance(self.reason, str):
            raise ValueError("a ClaimResult needs a non-empty reason")

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (figures included as text/base64)."""
        return {
            "verdict": self.verdict.value,
            "reason": self.reason,
            "summary": self.summary,
            "measured": jsonable(self.measured),
            "timings": jsonable(self.timings),
            "rows": jsonable(self.rows),
            "figures": [f.to_dict() for f in self.figures],
            "notes": self.notes,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClaimResult:
        """Inverse of :meth:`to_dict`."""
        return cls(
            verdict=Verdict(d["verdict"]),
            reason=d["reason"],
            summary=d.get("summary", ""),
            measured=dict(d.get("measured", {})),
            timings=dict(d.get("timings", {})),
            rows=list(d.get("rows", [])),
            figures=[FigureData.from_dict(f) for f in d.get("figures", [])],
            notes=d.get("notes", ""),
        )


def jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, tuples, dataclasses and non-finite floats into plain JSON values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {k: jsonable(v) for k, v in dataclasses.asdict(obj).items()}
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else repr(obj)  # "nan", "inf": JSON has no such numbers
    tolist = getattr(obj, "tolist", None)  # numpy scalars and arrays, torch tensors
    if callable(tolist):
        return jsonable(tolist())
    item = getattr(obj, "item", None)
    if callable(item):
        return jsonable(item())
    return str(obj)


def derive_seeds(base_seed: int, n: int) -> tuple[int, ...]:
    """``n`` seeds for the repetitions of a check: ``base_seed, base_seed + 1, ...`` (readable and reproducible)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return tuple(int(base_seed) + i for i in range(n))


class _Alarm:
    """Raise :class:`ClaimTimeout` in the main thread after ``seconds`` (no-op off the main thread or without SIGALRM)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.armed = False
        self.fired = False

    def _fire(self, signum: int, frame: Any) -> None:  # pragma: no cover - exercised by the timeout test
        self.fired = True
        raise ClaimTimeout(f"timed out after {self.seconds:g} s")

    def __enter__(self) -> _Alarm:
        if self.seconds and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, float(self.seconds))
            self.armed = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0.0)
            signal.signal(signal.SIGALRM, self._old)


def run_claim(
    paper: str,
    claim_id: str,
    *,
    budget: str = "smoke",
    seed: int = 0,
    n_seeds: int | None = None,
    timeout: float | None = None,
    mapper: Callable[[Callable[[Any], Any], list[Any]], list[Any]] | None = None,
) -> dict[str, Any]:
    """Run one claim of one paper and return its record (a JSON-serialisable dict).

    Seeds the global RNGs (Python, numpy, torch if already imported) from ``seed``, passes the derived seeds to the
    check, times it, records peak memory and provenance, and turns any exception (or a timeout) into an ``error``
    record holding the traceback. Never raises for a failing check.
    """
    from icml26 import provenance, registry
    from icml26.common.seeding import seed_everything

    if budget not in BUDGET_NAMES:
        raise ValueError(f"budget must be one of {BUDGET_NAMES}, got {budget!r}")
    info = registry.get_paper(paper)
    spec = info.claim(claim_id)
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "run_id": uuid.uuid4().hex,
        "paper": info.slug,
        "paper_id": info.id,
        "claim": claim_id,
        "claim_text": spec.text,
        "source": spec.source,
        "paper_value": spec.paper_value,
        "budget": budget,
        "started_at": provenance.utc_now(),
    }
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        claim = registry.load_claim(info.slug, claim_id)
        if budget not in claim.budgets:  # e.g. --budget full for a claim that the paper makes only at CPU scale
            record.update(ClaimResult(Verdict.UNSUPPORTED, reason=(
                f"no {budget!r} budget declared for this claim (it has {', '.join(sorted(claim.budgets))})")).to_dict())
            record.update({"seeds": [seed], "config": None, "error": None})
            return _finish(record, t0, c0)
        b = claim.budgets[budget]
        seeds = derive_seeds(seed, n_seeds if n_seeds is not None else b.seeds)
        record["seeds"] = list(seeds)
        record["config"] = jsonable(b.config)
        seed_everything(seed)
        ctx = Context(seeds=seeds, budget=budget, mapper=mapper)
        with _Alarm(timeout) as alarm:
            result = claim.check(b.config, ctx)
        if alarm.fired:  # the check caught the timeout (e.g. a bare ``except:``) and returned anyway
            raise ClaimTimeout(f"timed out after {timeout:g} s")
        if not isinstance(result, ClaimResult):
            raise TypeError(f"check returned {type(result).__name__}, expected ClaimResult")
        if result.verdict is Verdict.ERROR:
            raise ValueError("a check may not return the 'error' verdict itself; raise instead")
        record.update(result.to_dict())
        record["error"] = None
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a record; KeyboardInterrupt re-raised below
        if isinstance(exc, KeyboardInterrupt):
            raise
        timed_out = isinstance(exc, ClaimTimeout)
        record.update(
            {
                "verdict": Verdict.ERROR.value,
                "reason": (f"timed out after {timeout:g} s" if timed_out else f"{type(exc).__name__}: {exc}"),
                "summary": "",
                "measured": {},
                "timings": {},
                "rows": [],
                "figures": [],
                "notes": "",
                "error": traceback.format_exc(),
                "timed_out": timed_out,
            }
        )
        record.setdefault("seeds", [seed])
        record.setdefault("config", None)
    return _finish(record, t0, c0)


def _finish(record: dict[str, Any], t0: float, c0: float) -> dict[str, Any]:
    """Add times, provenance and peak memory to a claim record; check that it serialises."""
    from icml26 import provenance

    record["duration_s"] = round(time.perf_counter() - t0, 4)
    record["cpu_s"] = round(time.process_time() - c0, 4)
    record["finished_at"] = provenance.utc_now()
    record["provenance"] = provenance.collect()
    record["peak_rss_mb"] = provenance.peak_rss_mb()
    json.dumps(record)  # fail here, in the worker, if anything is not serialisable
    return record


def summarize_seeds(values: Sequence[float]) -> str:
    """``"mean [min, max]"`` for a short list of per-seed values (display helper for summaries)."""
    if not values:
        return "n/a"
    m = sum(values) / len(values)
    return f"{m:.4g} [{min(values):.4g}, {max(values):.4g}]"
