"""The one vocabulary of verdict rules: every claim of every paper is judged with these.

A rule compares an estimate (a number, or a number with its confidence interval) with a :class:`~icml26.claims.Bar`
fixed before the run and returns a :class:`Judgement`: the verdict and a reason written in one style (the estimate,
its CI, the n, the bar and its provenance, and which way it went). A paper's ``_rules.py`` composes these over its
rows; it never writes its own "CI against a bar".

The rules:

- :func:`against_bar` — an estimate with its CI against a one-sided bar or a band (``in``): ``holds`` when the whole
  CI meets the bar, ``fails`` when none of it does (or, with ``fail_bar``, when the whole CI meets the fail bar),
  ``inconclusive`` when it straddles; ``inconclusive`` too below ``min_n`` seeds or on an undefined (NaN) estimate.
- :func:`non_inferior` — a difference (new − reference, higher is better) against a margin ``>= −δ``.
- :func:`sign` — a CI on the predicted side of 0.
- :func:`share` — a count ``k`` of ``n`` runs against a bar on the fraction (deterministic).
- :func:`all_of` — every part must hold: any ``fails`` fails, all ``holds`` hold, otherwise ``inconclusive``; the
  reason counts what held as well as what failed.
- :func:`enough_seeds` — ``inconclusive`` below a minimum number of seeds (:data:`MIN_SEEDS`).

And the two rules the harness applies to every result, after the check:

- :func:`settle` — the basis: a ``fails`` on basis ``reconstruction`` or ``scaled`` becomes ``inconclusive``; any
  verdict on basis ``platform`` becomes ``unsupported``; the reason then starts with the basis.
- :func:`contended` — a timed claim measured on a busy machine is ``inconclusive``, whatever it measured.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from icml26.claims import Bar, Basis, Verdict
from icml26.common.stats import Estimate

__all__ = [
    "BASIS_PREFIX",
    "MIN_SEEDS",
    "Judgement",
    "against_bar",
    "all_of",
    "contended",
    "describe",
    "enough_seeds",
    "fmt",
    "non_inferior",
    "settle",
    "share",
    "sign",
]

#: DESIGN.md: stochastic claims use >= 3 seeds; with fewer a bootstrap CI has no spread worth the name
MIN_SEEDS = 3

#: how a reason starts when the verdict is not on the paper's own basis
BASIS_PREFIX: dict[Basis, str] = {
    Basis.RECONSTRUCTION: "our reconstruction",
    Basis.SCALED: "scaled down",
    Basis.PLATFORM: "platform",
}


@dataclass(frozen=True)
class Judgement:
    """A verdict with its reason; ``measured`` holds the deterministic numbers the rule used, ``timings`` the
    wall-clock-derived ones (kept apart: the same seed must give the same ``measured``)."""

    verdict: Verdict
    reason: str
    measured: Mapping[str, Any] = field(default_factory=dict)
    timings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict) or self.verdict is Verdict.ERROR:
            raise ValueError(f"a judgement's verdict must be a Verdict other than error, got {self.verdict!r}")
        if not self.reason:
            raise ValueError("a judgement needs a reason")


def fmt(x: float) -> str:
    """A number for a reason: 4 significant digits, ``nan``/``inf`` spelled out."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}"


def _estimate(est: Estimate | float) -> Estimate:
    if isinstance(est, Estimate):
        return est
    if isinstance(est, bool) or not isinstance(est, (int, float)):
        raise TypeError(f"an estimate must be a number or an Estimate, got {type(est).__name__}")
    v = float(est)
    return Estimate(v, v, v)


def describe(name: str, est: Estimate | float, n: int | None = None) -> str:
    """``"name = 1.07 [1.03, 1.12] (n = 5)"``; a point estimate (no spread) prints without brackets."""
    e = _estimate(est)
    ci = "" if e.lo == e.value == e.hi else f" [{fmt(e.lo)}, {fmt(e.hi)}]"
    return f"{name} = {fmt(e.value)}{ci}" + ("" if n is None else f" (n = {n})")


def _record(name: str, e: Estimate, n: int | None, bar: Bar, call: Verdict) -> dict[str, Any]:
    return {name: {"estimate": e.value, "ci": [e.lo, e.hi], "n": n, "bar": bar.threshold, "call": call.value}}


def _pack(verdict: Verdict, reason: str, numbers: dict[str, Any], timed: bool) -> Judgement:
    return Judgement(verdict, reason, timings=numbers) if timed else Judgement(verdict, reason, measured=numbers)


def enough_seeds(n: int, *, min_n: int = MIN_SEEDS, what: str = "seeds") -> Judgement | None:
    """``inconclusive`` when ``n < min_n`` (no usable CI at this budget), else ``None``."""
    if n < min_n:
        return Judgement(Verdict.INCONCLUSIVE, f"only {n} {what} (< {min_n}): no usable confidence interval at this "
                                               "budget")
    return None


def _all_meet(bar: Bar, e: Estimate) -> bool:
    if bar.op == "in":
        lo, hi = bar.value  # type: ignore[misc]
        return e.lo >= lo and e.hi <= hi
    worst = e.hi if bar.op in ("<", "<=") else e.lo
    return bar.satisfied(worst)


def _none_meet(bar: Bar, e: Estimate) -> bool:
    if bar.op == "in":
        lo, hi = bar.value  # type: ignore[misc]
        return e.hi < lo or e.lo > hi
    best = e.lo if bar.op in ("<", "<=") else e.hi
    return not bar.satisfied(best)


def against_bar(
    name: str,
    est: Estimate | float,
    bar: Bar,
    *,
    n: int | None = None,
    min_n: int = 1,
    fail_bar: Bar | None = None,
    timed: bool = False,
) -> Judgement:
    """An estimate (with its CI, or a plain number) against ``bar``.

    ``holds`` iff every point of the CI meets ``bar``; ``fails`` iff no point does, or, when ``fail_bar`` is given
    (a claim with a separate threshold for failing, e.g. "holds at >= 80 %, fails at <= 20 %"), iff every point
    meets ``fail_bar``; ``inconclusive`` otherwise. Also ``inconclusive`` when ``n < min_n`` or the estimate is NaN.
    ``timed``: the numbers are wall-clock-derived and go to ``timings``, not ``measured``.
    """
    e = _estimate(est)
    text = describe(name, e, n)
    vs = f"bar {bar.threshold} ({bar.provenance})"
    if n is not None and n < min_n:
        call, why = Verdict.INCONCLUSIVE, f"{text}: only {n} (< {min_n}) for a usable CI; {vs}"
    elif any(math.isnan(x) for x in (e.value, e.lo, e.hi)):
        call, why = Verdict.INCONCLUSIVE, f"{text}: undefined; {vs}"
    elif _all_meet(bar, e):
        call, why = Verdict.HOLDS, f"{text} meets the {vs}" + (" with its whole CI" if e.lo != e.hi else "")
    elif (_all_meet(fail_bar, e) if fail_bar is not None else _none_meet(bar, e)):
        if fail_bar is not None:
            call, why = Verdict.FAILS, f"{text} meets the fail bar {fail_bar.threshold} ({fail_bar.provenance})"
        else:
            call, why = Verdict.FAILS, f"{text} misses the {vs}" + (" with its whole CI" if e.lo != e.hi else "")
    else:
        call, why = Verdict.INCONCLUSIVE, f"{text} straddles the {vs}" + (
            "" if fail_bar is None else f" and the fail bar {fail_bar.threshold}")
    return _pack(call, why, _record(name, e, n, bar, call), timed)


def non_inferior(
    name: str, diff: Estimate | float, margin: Bar, *, n: int | None = None, min_n: int = 1, timed: bool = False
) -> Judgement:
    """Non-inferiority: ``diff`` = new − reference (higher is better) against ``margin`` (``>= −δ``, δ >= 0).

    ``holds`` iff the CI's low end is at or above −δ; ``fails`` iff its high end is below −δ.
    """
    if margin.op not in (">=", ">") or float(margin.value) > 0:  # type: ignore[arg-type]
        raise ValueError(f"a non-inferiority margin is '>= -delta' (delta >= 0), got {margin.threshold}")
    j = against_bar(name, diff, margin, n=n, min_n=min_n, timed=timed)
    delta = fmt(-float(margin.value))  # type: ignore[arg-type]
    word = {Verdict.HOLDS: "non-inferior", Verdict.FAILS: "inferior"}.get(j.verdict, "undecided")
    return Judgement(j.verdict, f"{word} within margin {delta}: {j.reason}", j.measured, j.timings)


def sign(
    name: str, est: Estimate | float, *, expected: int, n: int | None = None, min_n: int = 1, timed: bool = False
) -> Judgement:
    """A CI on the predicted side of 0 (``expected`` = +1 or −1): holds iff the CI excludes 0 on that side, fails
    iff it excludes 0 on the other side, inconclusive when it contains 0."""
    if expected not in (1, -1):
        raise ValueError(f"expected must be +1 or -1, got {expected!r}")
    up = expected > 0
    bar = Bar(name="sign", op=">" if up else "<", value=0.0, provenance="paper", why="the sign the paper predicts")
    fail = Bar(name="opposite_sign", op="<" if up else ">", value=0.0, provenance="paper", why="the opposite sign")
    return against_bar(name, est, bar, n=n, min_n=min_n, fail_bar=fail, timed=timed)


def share(name: str, k: int, n: int, bar: Bar, *, fail_bar: Bar | None = None, noun: str = "runs") -> Judgement:
    """``k`` of ``n`` runs (cells, pairs: ``noun``) showing an effect, the fraction against ``bar`` (deterministic)."""
    if isinstance(k, bool) or isinstance(n, bool) or not (0 <= k <= n) or n < 1:
        raise ValueError(f"share needs 0 <= k <= n and n >= 1, got k={k!r}, n={n!r}")
    j = against_bar(name, k / n, bar, fail_bar=fail_bar)
    return Judgement(j.verdict, f"{k} of {n} {noun}: {j.reason}", j.measured, j.timings)


def _listing(items: Sequence[tuple[str, Judgement]], k: int) -> str:
    shown = "; ".join(f"{name}: {j.reason}" for name, j in items[:k])
    return shown + (f" (+{len(items) - k} more)" if len(items) > k else "")


def all_of(parts: Mapping[str, Judgement], *, what: str = "parts", show: int = 3) -> Judgement:
    """Every part must hold (cells of a grid, bars of a composite claim).

    ``fails`` if any part fails; ``holds`` if all hold; ``unsupported`` if all are unsupported; otherwise
    ``inconclusive``. The reason counts every outcome (what held as well as what failed) and lists up to ``show``
    parts of each kind that did not hold.
    """
    if not parts:
        raise ValueError("all_of needs at least one part")
    items = list(parts.items())
    by: dict[Verdict, list[tuple[str, Judgement]]] = {v: [] for v in Verdict}
    for name, j in items:
        by[j.verdict].append((name, j))
    n = len(items)
    counts = ", ".join(f"{len(by[v])} {v.value}" for v in Verdict if by[v])
    if by[Verdict.FAILS]:
        verdict = Verdict.FAILS
    elif len(by[Verdict.HOLDS]) == n:
        verdict = Verdict.HOLDS
    elif len(by[Verdict.UNSUPPORTED]) == n:
        verdict = Verdict.UNSUPPORTED
    else:
        verdict = Verdict.INCONCLUSIVE
    lines = [f"{len(by[Verdict.HOLDS])} of {n} {what} hold ({counts})"]
    for v in (Verdict.FAILS, Verdict.INCONCLUSIVE, Verdict.UNSUPPORTED):
        if by[v]:
            lines.append(f"{v.value}: {_listing(by[v], show)}")
    if verdict is Verdict.HOLDS and n <= show:
        lines.append(_listing(by[Verdict.HOLDS], show))
    measured: dict[str, Any] = {"parts": {name: j.verdict.value for name, j in items}}
    timings: dict[str, Any] = {}
    for name, j in items:
        if j.measured:
            measured[name] = dict(j.measured)
        if j.timings:
            timings[name] = dict(j.timings)
    return Judgement(verdict, ". ".join(lines), measured, timings)


def settle(verdict: Verdict, reason: str, *, basis: Basis, note: str = "") -> tuple[Verdict, str]:
    """The verdict a user reads, from the verdict against our bars and the basis of the measurement.

    On basis ``paper`` nothing changes. On ``reconstruction`` or ``scaled`` a ``fails`` becomes ``inconclusive`` (we
    missed our bar with our rebuild or at our scale: not the paper's error); on ``platform`` every verdict becomes
    ``unsupported`` (the measurement stays in the record as a measurement). Off the paper's basis the reason starts
    with the basis and its note.
    """
    if basis is Basis.PAPER or verdict is Verdict.ERROR:
        return verdict, reason
    head = BASIS_PREFIX[basis] + (f" ({note})" if note else "")
    if basis is Basis.PLATFORM:
        if verdict is Verdict.UNSUPPORTED:
            return verdict, f"{head}: {reason}"
        return Verdict.UNSUPPORTED, f"{head}: not testable here; measured on this machine (against our bar: {verdict.value}): {reason}"
    if verdict is Verdict.FAILS:
        return Verdict.INCONCLUSIVE, f"{head}: against our bar it fails: {reason}"
    return verdict, f"{head}: {reason}"


def contended(verdict: Verdict, reason: str, *, why: str) -> tuple[Verdict, str]:
    """A timed claim measured while the machine was busy: ``holds``/``fails`` become ``inconclusive``."""
    if verdict not in (Verdict.HOLDS, Verdict.FAILS):
        return verdict, f"the machine was busy during this timed run ({why}); {reason}"
    return Verdict.INCONCLUSIVE, (f"the machine was busy during this timed run ({why}), so the timing cannot decide; "
                                  f"the measurement said {verdict.value}: {reason}")
