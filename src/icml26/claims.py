"""The claim-check contract: :class:`Claim`, :class:`Budget`, :class:`Bar`, :class:`Basis`, :class:`ClaimResult`,
:class:`Verdict`, :class:`Context`.

This module holds types only: running a claim (seeding, threads, timeouts, the contention check, provenance, the
record) is :mod:`icml26.harness`'s job, judging is :mod:`icml26.verdicts`'. It imports nothing else of the package
except :mod:`icml26.figures`, so that every layer can import it without a circle.

A paper's ``claims.py`` defines ``CLAIMS: list[Claim]``. Each claim's words, source, the paper's number, our bars and
the basis live in the paper's ``paper.toml`` (read by :mod:`icml26.registry` without importing the paper); the
:class:`Claim` object carries the check function and one :class:`Budget` per budget name.

A check is ``check(config, ctx) -> ClaimResult``: ``config`` is the budget's frozen config and ``ctx`` a
:class:`Context` with the seeds and the claim's declared bars. It measures, hands the rows to a pure rule of its
paper's ``_rules.py`` and returns the numbers with the verdict the rule gave.
"""

from __future__ import annotations

import enum
import logging
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from icml26.figures import FigureData
from icml26.jsonable import jsonable

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.verdicts import Judgement

__all__ = [
    "BAR_OPS",
    "BAR_PROVENANCE",
    "BUDGET_NAMES",
    "Bar",
    "Basis",
    "Budget",
    "Claim",
    "ClaimResult",
    "ClaimTimeout",
    "Context",
    "Memo",
    "Verdict",
    "jsonable",
]

log = logging.getLogger(__name__)

BUDGET_NAMES: tuple[str, ...] = ("smoke", "small", "full")
#: comparison operators a bar may use; ``in`` is a closed band ``[lo, hi]``
BAR_OPS: tuple[str, ...] = ("<", "<=", ">", ">=", "in")
#: where a bar's value comes from: the paper's own number, the research notes, or a value we chose (with a reason)
BAR_PROVENANCE: tuple[str, ...] = ("paper", "notes", "ours")


class Verdict(str, enum.Enum):
    """What a claim check concluded. Always paired with a reason."""

    HOLDS = "holds"  # the measured numbers support the claim at this budget
    FAILS = "fails"  # the measured numbers contradict the claim (a finding, not a bug)
    INCONCLUSIVE = "inconclusive"  # the effect is inside the noise at this budget, or our basis cannot decide it
    UNSUPPORTED = "unsupported"  # this budget / machine cannot test it (e.g. a GPU speed claim on a CPU)
    ERROR = "error"  # the check raised or timed out (set by the harness, never by a check)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


class Basis(str, enum.Enum):
    """What a verdict is about: how close our measurement is to the paper's own test.

    Only a verdict on basis ``paper`` may be a bare ``fails``: elsewhere a measurement that misses our bar says
    something about our reconstruction, our scale or our machine, and is reported as ``inconclusive``.
    """

    PAPER = "paper"  # the paper's method and bar at a comparable scale
    RECONSTRUCTION = "reconstruction"  # an abstract-only method (or test problem) we rebuilt
    SCALED = "scaled"  # the paper's method, far below the paper's scale
    PLATFORM = "platform"  # a claim about hardware this run does not have (a GPU claim on a CPU)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


class ClaimTimeout(BaseException):
    """Raised inside a check when its budget's timeout has passed.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that a check's own ``except Exception`` cannot swallow it;
    the harness also re-raises it after the check returns if the alarm fired meanwhile.
    """


def _exact(v: float) -> str:
    """The shortest text that reads back as ``v`` (``1.5``, ``1e-12``, ``1.000000001``; ``10`` rather than ``10.0``)."""
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(float(x))


@dataclass(frozen=True)
class Bar:
    """A threshold fixed before the run: ``<measured name> <op> <value>``, with where the value comes from.

    Attributes:
        name: identifier of the bar within its claim (the check reads it as ``ctx.bar(name)``).
        op: one of :data:`BAR_OPS`; ``in`` takes ``value = (lo, hi)`` (a closed band).
        value: the threshold (a number, or ``(lo, hi)`` for ``in``).
        provenance: ``paper`` (the paper's own number), ``notes`` (the research notes) or ``ours``.
        why: the reason for this value (for ``ours``: why this number and not another).
        text: what is compared, in words (``"max/min median iterations over κ"``).
    """

    name: str
    op: str
    value: float | tuple[float, float]
    provenance: str
    why: str
    text: str = ""

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(f"bar name must be a non-empty identifier, got {self.name!r}")
        if self.op not in BAR_OPS:
            raise ValueError(f"bar {self.name!r}: op must be one of {BAR_OPS}, got {self.op!r}")
        if self.op == "in":
            v = self.value
            if not (isinstance(v, (tuple, list)) and len(v) == 2 and all(_is_number(x) for x in v) and v[0] <= v[1]):
                raise ValueError(f"bar {self.name!r}: 'in' needs value = [lo, hi] with lo <= hi, got {v!r}")
            object.__setattr__(self, "value", (float(v[0]), float(v[1])))
        elif not _is_number(self.value):
            raise ValueError(f"bar {self.name!r}: value must be a number, got {self.value!r}")
        else:
            object.__setattr__(self, "value", float(self.value))  # type: ignore[arg-type]
        if self.provenance not in BAR_PROVENANCE:
            raise ValueError(f"bar {self.name!r}: provenance must be one of {BAR_PROVENANCE}, got {self.provenance!r}")
        if not self.why or not self.why.strip():
            raise ValueError(f"bar {self.name!r}: 'why' must say where the value comes from")

    def satisfied(self, x: float) -> bool:
        """Whether the number ``x`` meets the bar."""
        if self.op == "in":
            lo, hi = self.value  # type: ignore[misc]
            return lo <= x <= hi
        v = float(self.value)  # type: ignore[arg-type]
        return {"<": x < v, "<=": x <= v, ">": x > v, ">=": x >= v}[self.op]

    @property
    def threshold(self) -> str:
        """The comparison as text, the value exactly as declared: ``"<= 1.5"`` or ``"in [2.7, 4.5]"``."""
        if self.op == "in":
            lo, hi = self.value  # type: ignore[misc]
            return f"in [{_exact(lo)}, {_exact(hi)}]"
        return f"{self.op} {_exact(float(self.value))}"  # type: ignore[arg-type]

    def __str__(self) -> str:
        return f"{self.text or self.name} {self.threshold} ({self.provenance})"

    def to_dict(self) -> dict[str, Any]:
        """JSON form (as declared in ``paper.toml``)."""
        v = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"name": self.name, "op": self.op, "value": v, "provenance": self.provenance, "why": self.why,
                "text": self.text}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Bar:
        """Inverse of :meth:`to_dict`; raises ``ValueError`` on a malformed bar."""
        missing = [k for k in ("name", "op", "value", "provenance", "why") if k not in d]
        if missing:
            raise ValueError(f"bar {d.get('name', '?')!r} lacks {missing}")
        v = d["value"]
        return cls(name=str(d["name"]), op=str(d["op"]), value=tuple(v) if isinstance(v, list) else v,
                   provenance=str(d["provenance"]), why=str(d["why"]), text=str(d.get("text", "")))


@dataclass(frozen=True)
class Budget:
    """One budget of a claim: the config passed to the check, the number of seeds, an expected time, threads.

    Attributes:
        config: a frozen dataclass (or a plain mapping) with the check's hyper-parameters at this budget.
        seeds: how many seeds the check uses by default (``--seeds`` overrides it); stochastic claims use >= 3.
        expected_s: the wall-clock seconds the check is expected to take on 2 CPU cores (smoke <= 10, small <= 300);
            the progress display's ETA is built from it.
        threads: BLAS/OpenMP/torch threads the harness gives the check (default 1: tiny models and small BLAS calls
            run fastest on one thread, and oversubscribed cores cost 10x).
        requires: what the budget needs beyond the package (e.g. ``("models",)``), shown by ``icml26 show``; the
            check itself decides what to do when it is missing (an ``unsupported`` verdict with the install hint).
    """

    config: Any
    seeds: int = 1
    expected_s: float = 10.0
    threads: int = 1
    requires: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("seeds", "threads"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        if not (isinstance(self.expected_s, (int, float)) and self.expected_s > 0):
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
    check: Callable[[Any, Context], ClaimResult]
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


def _module_level(fn: Callable[..., Any], what: str) -> None:
    """Refuse a lambda or a closure (``what`` names the caller): they cannot ship to a worker process."""
    target: Any = fn
    while hasattr(target, "func") and callable(target.func):  # functools.partial: judge the wrapped function
        target = target.func
    qual = getattr(target, "__qualname__", None)
    if qual is None:
        qual = type(target).__qualname__  # a callable object: its class must be module-level
    if "<lambda>" in qual or "<locals>" in qual:
        raise TypeError(
            f"{what} needs a module-level function (it may run in another process), got {qual!r}: define it at "
            "module level and bind its arguments with functools.partial or pass them in the items")


class Memo:
    """Results shared by the claims of one run group (see ``group`` in ``paper.toml``), keyed by function and
    arguments. The harness makes a fresh one per claim unless the runner hands one group's claims the same."""

    def __init__(self) -> None:
        self._values: dict[tuple[Any, ...], Any] = {}

    def get(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """``fn(*args)``, computed at most once per memo."""
        _module_level(fn, "ctx.shared")
        key = (getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)), args)
        try:
            hash(key)
        except TypeError as exc:
            raise TypeError(f"ctx.shared({key[1]}, ...): the arguments must be hashable (frozen configs, ints)") from exc
        if key not in self._values:
            self._values[key] = fn(*args)
        return self._values[key]

    def __len__(self) -> int:
        return len(self._values)


@dataclass
class Context:
    """What a check gets besides its config.

    Attributes:
        seeds: the seeds to use, one per repetition (``len(seeds)`` >= 1).
        budget: the budget name being run.
        bars: the claim's bars as declared in ``paper.toml``, by name.
        mapper: ``map(fn, items) -> list`` used by :meth:`map`; the runner may give one that fans work out.
        memo: results shared with the other claims of this run group (:meth:`shared`).
    """

    seeds: tuple[int, ...]
    budget: str = "smoke"
    bars: Mapping[str, Bar] = field(default_factory=dict)
    mapper: Callable[[Callable[[Any], Any], list[Any]], list[Any]] | None = None
    memo: Memo = field(default_factory=Memo)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """Apply ``fn`` to every item, in order (in parallel if the runner supplied a mapper).

        ``fn`` must be a module-level function (or a ``functools.partial`` of one): a lambda or closure cannot be
        shipped to a worker, and a ``TypeError`` naming it says so (rather than silently running serially).
        """
        _module_level(fn, "ctx.map")
        items = list(items)
        if self.mapper is None:
            return [fn(x) for x in items]
        return list(self.mapper(fn, items))

    def shared(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` computed once for all the claims of this run group (module-level ``fn``, hashable args)."""
        return self.memo.get(fn, args)

    def bar(self, name: str) -> Bar:
        """The declared bar ``name`` (a ``KeyError`` naming the declared ones otherwise)."""
        try:
            return self.bars[name]
        except KeyError:
            raise KeyError(f"no bar {name!r} declared in paper.toml for this claim; declared: {sorted(self.bars)}") from None

    def progress(self, message: str) -> None:
        """Log a progress message from a long check (goes to the ``icml26`` logger)."""
        log.info("%s", message)


@dataclass
class ClaimResult:
    """What one claim check returns.

    Attributes:
        verdict: the verdict against our bars; never ``ERROR`` (that is the harness's). The harness turns it into the
            final verdict by the claim's basis (a ``fails`` on a reconstruction becomes ``inconclusive``).
        reason: why this verdict, with the deciding numbers (the estimate, its CI, the bar, the n).
        summary: the headline measured number(s) as display text, e.g. ``"max/min iters = 1.07 [1.03, 1.12]"``.
        measured: the numbers measured (JSON-serialisable); deterministic for a fixed seed (the conformance test runs
            the smoke budget twice and compares them).
        timings: wall-clock-derived numbers (seconds, throughputs, speed ratios), apart from ``measured``.
        rows: optional raw rows (one dict per point of a sweep) kept in the record for later analysis.
        figures: figures made with :func:`icml26.figures.render`.
        notes: anything else a reader should know (deviations from the paper, caveats).
        findings: results of our own beside the claim (``{"shared step size (ours)": "GLU 0.84x ..."}``): shown
            with the claim, never part of its verdict.
        basis: overrides the claim's declared basis for this run (``None``: as declared).
    """

    verdict: Verdict
    reason: str
    summary: str = ""
    measured: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    figures: list[FigureData] = field(default_factory=list)
    notes: str = ""
    findings: dict[str, str] = field(default_factory=dict)
    basis: Basis | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            self.verdict = Verdict(self.verdict)
        if self.basis is not None and not isinstance(self.basis, Basis):
            self.basis = Basis(self.basis)
        if not self.reason or not isinstance(self.reason, str):
            raise ValueError("a ClaimResult needs a non-empty reason")

    @classmethod
    def judged(cls, judgement: Judgement, **kw: Any) -> ClaimResult:
        """A result carrying ``judgement``'s verdict and reason; its ``measured``/``timings`` are merged under
        what ``kw`` gives."""
        measured = {**dict(judgement.measured), **kw.pop("measured", {})}
        timings = {**dict(judgement.timings), **kw.pop("timings", {})}
        return cls(verdict=judgement.verdict, reason=judgement.reason, measured=measured, timings=timings, **kw)

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
            "findings": {str(k): str(v) for k, v in self.findings.items()},
            "basis": None if self.basis is None else self.basis.value,
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
            findings=dict(d.get("findings", {})),
            basis=None if d.get("basis") is None else Basis(d["basis"]),
        )
