"""Running one claim: :func:`run_claim` owns everything around a check, so that papers only measure.

Around the check it seeds the global RNGs (the only place that does), applies the budget's thread limit, arms the
timeout, watches the machine for timed claims (:mod:`icml26.contention`), and records provenance. After it, it
turns the verdict against our bars into the verdict a user reads: a timed claim on a busy machine is
``inconclusive`` (:func:`icml26.verdicts.contended`), and the claim's basis is applied (:func:`icml26.verdicts.settle`:
a ``fails`` off the paper's basis is ``inconclusive``; a GPU claim without a GPU is ``unsupported``). The result is
a :class:`~icml26.record.RunRecord`; a check that raises or times out gives an ``error`` record, never an exception.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from icml26 import provenance, registry, verdicts
from icml26.claims import BUDGET_NAMES, Basis, ClaimResult, ClaimTimeout, Context, Memo, Verdict, jsonable
from icml26.common.seeding import seed_everything
from icml26.contention import LoadMonitor
from icml26.record import RunRecord

__all__ = ["Mapper", "derive_seeds", "error_record", "gpu_name", "run_claim", "thread_limit"]

Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]
#: the note of a GPU claim run on a machine without a GPU
NO_GPU = "the claim is about GPU hardware and this machine has no GPU"


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


@contextlib.contextmanager
def thread_limit(n: int, *, torch: bool = False) -> Iterator[None]:
    """Inside the block: ``n`` BLAS/OpenMP threads and, with ``torch`` (imported here if needed) or when torch is
    already imported, ``n`` torch intra-op threads. Restored on exit. ``RAYON_NUM_THREADS`` (HF tokenizers' pool,
    read when the pool first starts) is set too unless the caller set it."""
    from threadpoolctl import threadpool_limits

    os.environ.setdefault("RAYON_NUM_THREADS", str(n))

    if torch and "torch" not in sys.modules and importlib.util.find_spec("torch") is not None:
        import torch as _torch  # noqa: F401 - imported so that its thread pool is set before the check builds models
    mod = sys.modules.get("torch")
    before = mod.get_num_threads() if mod is not None else None
    try:
        with threadpool_limits(n):
            if mod is not None:
                mod.set_num_threads(n)
            yield
    finally:
        if mod is not None and before is not None:
            mod.set_num_threads(before)


def gpu_name() -> str | None:
    """The name of the first CUDA device, or ``None`` (torch missing or no GPU). Imports torch if installed."""
    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    try:
        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except Exception:  # noqa: BLE001 - a broken driver is no GPU
        return None


def _spec_fields(info: registry.PaperInfo, spec: registry.ClaimSpec, budget: str) -> dict[str, Any]:
    return {
        "paper": info.slug, "paper_id": info.id, "claim": spec.id, "claim_text": spec.text, "source": spec.source,
        "paper_value": spec.paper_value, "bars": tuple(b.to_dict() for b in spec.bars), "basis": spec.basis.value,
        "basis_note": spec.basis_note, "platform": spec.platform, "timed": spec.timed, "budget": budget,
    }


def error_record(paper: str, claim: str, *, budget: str, seed: int, reason: str, tb: str = "",
                 timed_out: bool = False, started_at: str | None = None) -> RunRecord:
    """The record of a claim that did not return a result (it raised, timed out, or its worker died)."""
    info = registry.get_paper(paper)
    now = provenance.utc_now()
    return RunRecord(**_spec_fields(info, info.claim(claim), budget), verdict=Verdict.ERROR.value, reason=reason,
                     bar_verdict=None, error=tb or reason, timed_out=timed_out, seeds=(seed,),
                     started_at=started_at or now, finished_at=now, provenance=provenance.collect())


def _final(spec: registry.ClaimSpec, result: ClaimResult, contention: dict[str, Any] | None) -> dict[str, Any]:
    """The verdict a user reads and its basis, from the check's result (see the module docstring)."""
    basis = result.basis or spec.basis
    note = spec.basis_note if basis is spec.basis else ""
    if spec.platform == "gpu" and gpu_name() is None:
        basis, note = Basis.PLATFORM, (spec.basis_note if spec.basis is Basis.PLATFORM else NO_GPU)
    verdict, reason = result.verdict, result.reason
    if contention is not None and contention["contended"]:
        verdict, reason = verdicts.contended(verdict, reason, why=contention["why"])
    verdict, reason = verdicts.settle(verdict, reason, basis=basis, note=note)
    return {"verdict": verdict.value, "reason": reason, "basis": basis.value, "basis_note": note,
            "bar_verdict": result.verdict.value}


def _check(claim: Any, budget: str, ctx: Context, *, timeout: float | None, threads: int, torch: bool,
           timed: bool) -> tuple[ClaimResult, dict[str, Any] | None]:
    b = claim.budgets[budget]
    parallel = max(1, int(getattr(ctx.mapper, "width", 1) or 1))
    monitor = LoadMonitor(threads=threads, parallel=parallel) if timed else None
    with thread_limit(threads, torch=torch), _Alarm(timeout) as alarm:
        if monitor is not None:
            monitor.start()
        result = claim.check(b.config, ctx)
        contention = monitor.stop() if monitor is not None else None
    if alarm.fired:  # the check caught the timeout (e.g. a bare ``except:``) and returned anyway
        raise ClaimTimeout(f"timed out after {timeout:g} s")
    if not isinstance(result, ClaimResult):
        raise TypeError(f"check returned {type(result).__name__}, expected ClaimResult")
    if result.verdict is Verdict.ERROR:
        raise ValueError("a check may not return the 'error' verdict itself; raise instead")
    return result, contention


def run_claim(
    paper: str,
    claim_id: str,
    *,
    budget: str = "smoke",
    seed: int = 0,
    n_seeds: int | None = None,
    timeout: float | None = None,
    mapper: Mapper | None = None,
    memo: Memo | None = None,
) -> RunRecord:
    """Run one claim of one paper and return its :class:`~icml26.record.RunRecord`. Never raises for a failing check.

    ``mapper`` fans ``ctx.map`` out (a timed claim may fan out its own sweep: each timed pair runs inside one worker,
    and the runner runs no other claim beside it); ``memo`` is shared by the claims of one run group (a fresh one
    otherwise: each claim recomputes what it needs).
    """
    if budget not in BUDGET_NAMES:
        raise ValueError(f"budget must be one of {BUDGET_NAMES}, got {budget!r}")
    info = registry.get_paper(paper)
    spec = info.claim(claim_id)
    base = _spec_fields(info, spec, budget)
    started = provenance.utc_now()
    t0, c0 = time.perf_counter(), time.process_time()
    seeds: tuple[int, ...] = (seed,)
    config: Any = None
    try:
        claim = registry.load_claim(info.slug, claim_id)
        if budget not in claim.budgets:  # e.g. --budget full for a claim the paper makes only at CPU scale
            result = ClaimResult(Verdict.UNSUPPORTED, reason=(
                f"no {budget!r} budget declared for this claim (it has {', '.join(sorted(claim.budgets))})"))
            return _finish(RunRecord.from_result(result, **base, bar_verdict=None, seeds=seeds, started_at=started),
                           t0, c0)
        b = claim.budgets[budget]
        seeds = derive_seeds(seed, n_seeds if n_seeds is not None else b.seeds)
        config = jsonable(b.config)
        seed_everything(seed)
        ctx = Context(seeds=seeds, budget=budget, bars=spec.bar_map, mapper=mapper,
                      memo=memo if memo is not None else Memo())
        torch = bool({"torch", "rl"} & set(info.requires))
        result, contention = _check(claim, budget, ctx, timeout=timeout, threads=b.threads, torch=torch,
                                    timed=spec.timed)
        rec = RunRecord.from_result(result, **{**base, **_final(spec, result, contention)}, seeds=seeds,
                                    config=config, contention=contention, started_at=started)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a record; KeyboardInterrupt re-raised
        if isinstance(exc, KeyboardInterrupt):
            raise
        timed_out = isinstance(exc, ClaimTimeout)
        rec = RunRecord(**base, verdict=Verdict.ERROR.value, bar_verdict=None,
                        reason=(f"timed out after {timeout:g} s" if timed_out else f"{type(exc).__name__}: {exc}"),
                        error=traceback.format_exc(), timed_out=timed_out, seeds=seeds, config=config,
                        started_at=started)
    return _finish(rec, t0, c0)


def _finish(rec: RunRecord, t0: float, c0: float) -> RunRecord:
    """Add times, provenance and peak memory; check, here in the worker, that the record serialises."""
    rec = rec.replace(duration_s=round(time.perf_counter() - t0, 4), cpu_s=round(time.process_time() - c0, 4),
                      finished_at=provenance.utc_now(), provenance=provenance.collect(),
                      peak_rss_mb=provenance.peak_rss_mb())
    json.dumps(rec.to_json())
    return rec
