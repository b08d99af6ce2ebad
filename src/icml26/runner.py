"""Runs many claims through one :class:`concurrent.futures.Executor` interface.

Executors: ``serial`` (in-process; tests), ``process`` (a local process pool; the default), ``ray`` (optional extra
``[ray]``; ``address`` joins an existing cluster, otherwise a local one is started on loopback). Workers return
records (plain dicts); only the driver writes them (see :mod:`icml26.store`).
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import os
import pickle
import sys
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from icml26 import registry
from icml26.claims import Memo
from icml26.harness import error_record, run_claim
from icml26.record import RunRecord
from icml26.registry import MissingExtraError

__all__ = ["EXECUTORS", "Job", "LocalPoolMapper", "MissingExtraError", "RayExecutor", "SerialExecutor", "Task", "make_executor",
           "plan", "run_tasks", "slots"]

log = logging.getLogger(__name__)

EXECUTORS = ("serial", "process", "ray")
#: extra seconds the driver waits beyond a claim's own timeout before it gives up on a worker
GRACE_S = 30.0


@dataclass(frozen=True)
class Task:
    """One claim run: paper slug, claim id, budget, base seed and (optional) number of seeds."""

    paper: str
    claim: str
    budget: str = "smoke"
    seed: int = 0
    n_seeds: int | None = None


class SerialExecutor(cf.Executor):
    """Runs each submitted call at once, in this process, and returns a finished future."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered through the future like any executor
            if isinstance(exc, KeyboardInterrupt):
                raise
            fut.set_exception(exc)
        return fut


class RayExecutor(cf.Executor):
    """Submits calls as Ray tasks (``num_cpus=1`` each); ``ObjectRef.future()`` gives a ``concurrent.futures.Future``.

    Joins the cluster at ``address`` if given (an existing cluster: its own settings apply); otherwise starts a local
    one that stays on loopback and dies with this process (:mod:`icml26._ray_local`). Shuts Ray down on
    :meth:`shutdown` only if it started it.
    """

    def __init__(self, *, address: str | None = None, num_cpus: int | None = None) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        if address is None and "ray" not in sys.modules:  # read by Ray at import: advertise 127.0.0.1, not the NIC
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        try:
            import ray
        except ImportError as exc:
            raise MissingExtraError("the ray executor needs ray: pip install 'icml26[ray]'") from exc
        self._ray = ray
        self._started = False
        self._token_set = False
        self._session: str | None = None
        self._reaper: Any = None
        if not ray.is_initialized():
            # a token in the environment: Ray would otherwise write a new one to ~/.ray/auth_token
            if not any(v in os.environ for v in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")):
                os.environ["RAY_AUTH_TOKEN"] = uuid.uuid4().hex
                self._token_set = True
            if address is None:
                from icml26 import _ray_local

                self._session, self._reaper = _ray_local.start(ray, num_cpus=num_cpus)
            else:
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
            self._started = True

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        return self._ray.remote(num_cpus=1)(fn).remote(*args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
            self._started = False
        if self._session is not None:  # agents Ray leaves behind, then the reaper itself
            from icml26 import _ray_local

            _ray_local.reap(self._session, spare=os.getpid())
            if self._reaper is not None:
                self._reaper.kill()
                self._reaper.wait()
            self._session = None
        if self._token_set:  # never hand our local cluster's token to a cluster joined later in this process
            os.environ.pop("RAY_AUTH_TOKEN", None)
            self._token_set = False


def _limit_threads(n: int) -> None:
    """Worker initializer: ``n`` BLAS threads, and (Linux) die with the parent process.

    A claim worker that is killed (timeout, crash) must not leave its own ``ctx.map`` workers running: without the
    parent-death signal they would be re-parented to init and live on, holding the caller's pipes.
    """
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ[var] = str(n)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            pass


def make_executor(kind: str = "process", *, jobs: int | None = None, address: str | None = None) -> cf.Executor:
    """An executor of ``kind`` (``serial`` | ``process`` | ``ray``) running ``jobs`` claims at once."""
    if kind not in EXECUTORS:
        raise ValueError(f"executor must be one of {EXECUTORS}, got {kind!r}")
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    if address is not None and kind != "ray":
        raise ValueError("address is only meaningful with the ray executor")
    jobs = jobs or os.cpu_count() or 1
    if kind == "serial":
        return SerialExecutor()
    if kind == "process":
        threads = max(1, (os.cpu_count() or 1) // jobs)
        return cf.ProcessPoolExecutor(
            max_workers=jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_limit_threads, initargs=(threads,)
        )
    return RayExecutor(address=address, num_cpus=None if address else jobs)


def _apply(fn: Callable[[Any], Any], x: Any) -> Any:
    return fn(x)


def _ray_mapper(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    import ray

    remote = ray.remote(num_cpus=1)(_apply)  # a plain function: fn itself may be a functools.partial
    return ray.get([remote.remote(fn, x) for x in items])


@dataclass(frozen=True)
class LocalPoolMapper:
    """``ctx.map`` over a local process pool of ``width`` workers (one BLAS thread each).

    Used by the ``process`` executor when it runs fewer claims at once than there are cores, so that a sweep inside
    one claim can use the idle cores. A function that the standard pickle cannot ship (a lambda, a closure) runs
    serially instead; results keep the order of ``items`` and, every point being seeded, equal a serial run's.
    """

    width: int

    def __call__(self, fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        if self.width <= 1 or len(items) <= 1 or not _picklable(fn):
            return [fn(x) for x in items]
        ctx = multiprocessing.get_context("spawn")
        ex = cf.ProcessPoolExecutor(min(self.width, len(items)), mp_context=ctx, initializer=_limit_threads, initargs=(1,))
        try:
            out = list(ex.map(fn, items))
        except BaseException:  # the claim's timeout (or an error) stops the sweep now, not after the queued points
            _kill(ex)
            raise
        ex.shutdown(wait=True)
        return out


def _picklable(fn: Callable[[Any], Any]) -> bool:
    try:
        pickle.dumps(fn)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


Job = tuple[Task, ...]  # claims run one after the other in one worker (a run group shares one memo)


def _execute(job: Job, timeout: float | None, fan_out: bool, width: int = 1) -> list[RunRecord]:
    """Worker entry point (top level, so that it pickles): run the job's claims in order, sharing one memo.
    ``fan_out``: ``ctx.map`` through Ray; else ``width`` local processes."""
    mapper: Callable[[Callable[[Any], Any], list[Any]], list[Any]] | None = LocalPoolMapper(width) if width > 1 else None
    if fan_out:
        try:
            import ray

            mapper = _ray_mapper if ray.is_initialized() else None
        except ImportError:  # pragma: no cover - only reached when ray vanished mid-run
            mapper = None
    memo = Memo()
    return [run_claim(t.paper, t.claim, budget=t.budget, seed=t.seed, n_seeds=t.n_seeds, timeout=timeout,
                      mapper=mapper, memo=memo) for t in job]


def _errors(job: Job, reason: str, *, tb: str = "", timed_out: bool = False) -> list[RunRecord]:
    return [error_record(t.paper, t.claim, budget=t.budget, seed=t.seed, reason=reason, tb=tb, timed_out=timed_out)
            for t in job]


def plan(tasks: Sequence[Task]) -> tuple[list[Job], list[Job]]:
    """Split ``tasks`` into jobs: the claims of one run group (``group`` in ``paper.toml``, same paper, budget and
    seeds) form one job, every other claim a job of its own. Returns (untimed jobs, timed jobs): a job holding a
    timed claim runs alone, after the others."""
    jobs: dict[Any, list[Task]] = {}
    timed: set[Any] = set()
    for i, t in enumerate(tasks):
        spec = registry.get_paper(t.paper).claim(t.claim)
        key = (t.paper, t.budget, t.seed, t.n_seeds, spec.group) if spec.group else i
        jobs.setdefault(key, []).append(t)
        if spec.timed:
            timed.add(key)
    return ([tuple(v) for k, v in jobs.items() if k not in timed], [tuple(v) for k, v in jobs.items() if k in timed])


def run_tasks(
    tasks: Sequence[Task], executor: cf.Executor, *, timeout: float | None = None
) -> Iterator[RunRecord]:
    """Run ``tasks`` on ``executor`` and yield each record as it finishes (serial: in order).

    Untimed claims run first, as many at once as the executor runs; then each timed claim alone (DESIGN: a claim that
    rests on wall-clock has the machine to itself, and the harness checks that it did). ``timeout`` (seconds per
    claim) is enforced inside the worker; the driver additionally gives up on workers that have not answered
    ``GRACE_S`` after every claim could have run, and yields error records for them. When a worker process dies (a
    crash, the OOM killer), a process pool breaks and fails every claim it held; those claims are then run again,
    each in a fresh process of its own, so that only the claim that kills its process gets the error.
    """
    untimed, timed = plan(tasks)
    yield from _run_jobs(untimed, executor, timeout)
    for job in timed:  # alone on the machine: its own sweep may use every core
        yield from _run_jobs([job], executor, timeout, alone=True)


def _run_jobs(jobs: Sequence[Job], executor: cf.Executor, timeout: float | None, *, alone: bool = False
              ) -> Iterator[RunRecord]:
    fan_out = isinstance(executor, RayExecutor)
    width = 1
    if isinstance(executor, cf.ProcessPoolExecutor):  # cores left idle by running fewer claims at once go to ctx.map
        cores = os.cpu_count() or 1
        at_once = max(1, min(int(getattr(executor, "_max_workers", 1) or 1), len(jobs)))  # fewer jobs than workers
        width = cores if alone else max(1, cores // at_once)
    pending: dict[cf.Future, Job] = {}
    broken: list[Job] = []
    for job in jobs:
        try:
            fut = executor.submit(_execute, job, timeout, fan_out, width)
        except BrokenProcessPool:
            broken.append(job)
            continue
        if fut.done() and isinstance(fut.exception(), BrokenProcessPool):
            broken.append(job)
        elif fut.done():
            yield from _records_of(fut, job)
        else:
            pending[fut] = job
    if pending:
        n_claims = sum(len(j) for j in pending.values())
        deadline = None if timeout is None else (timeout + GRACE_S) * (n_claims / slots(executor) + 1)
        t0 = time.monotonic()
        try:
            for fut in cf.as_completed(pending, timeout=deadline):
                job = pending.pop(fut)
                if isinstance(fut.exception(), BrokenProcessPool):
                    broken.append(job)
                else:
                    yield from _records_of(fut, job)
        except cf.TimeoutError:
            waited = time.monotonic() - t0
            for fut, job in list(pending.items()):
                fut.cancel()
                yield from _errors(job, f"no answer from the worker after {waited:.0f} s (timeout {timeout:g} s)",
                                   timed_out=True)
            _kill(executor)
    if broken:  # each again in a process of its own, as many at once as the pool ran
        log.warning("a worker process died; running %d job(s) again, each in a process of its own", len(broken))
        at_once = min(len(broken), slots(executor))
        blas = max(1, (os.cpu_count() or 1) // at_once)  # BLAS threads per re-run: the cores, shared
        with cf.ThreadPoolExecutor(max_workers=at_once) as threads:  # each thread owns (and outlives) its process
            futs = [threads.submit(_run_isolated, job, timeout, width, blas) for job in broken]
            for fut in cf.as_completed(futs):
                yield from fut.result()


def slots(executor: cf.Executor) -> int:
    """How many claims ``executor`` runs at once (a Ray cluster: its CPUs, not this machine's)."""
    if isinstance(executor, SerialExecutor):
        return 1
    if isinstance(executor, RayExecutor):
        try:
            return max(1, int(executor._ray.cluster_resources().get("CPU", 1)))
        except Exception:  # noqa: BLE001 - a cluster that cannot say: fall back to this machine
            return os.cpu_count() or 1
    return max(1, getattr(executor, "_max_workers", None) or os.cpu_count() or 1)


def _run_isolated(job: Job, timeout: float | None, width: int, blas_threads: int) -> list[RunRecord]:
    """Run one job in a fresh single-worker process pool; a dying process gives its claims error records."""
    ex = cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_limit_threads,
                                initargs=(blas_threads,))
    try:
        fut = ex.submit(_execute, job, timeout, False, width)
        try:
            recs = fut.result(timeout=None if timeout is None else (timeout + GRACE_S) * len(job))
        except BrokenProcessPool:
            recs = _errors(job, "the worker process died while running this claim (a crash or the out-of-memory "
                                "killer); it died again when run alone")
        except cf.TimeoutError:
            recs = _errors(job, f"no answer from the worker after {timeout:g} s + {GRACE_S:g} s", timed_out=True)
        except BaseException as exc:  # noqa: BLE001 - anything else is this claim's error
            if isinstance(exc, KeyboardInterrupt):
                raise
            recs = _errors(job, f"worker failed: {type(exc).__name__}: {exc}", tb="".join(traceback.format_exception(exc)))
    finally:
        _kill(ex)
    return recs


def _records_of(fut: cf.Future, job: Job) -> list[RunRecord]:
    try:
        return list(fut.result())
    except BaseException as exc:  # noqa: BLE001 - a crashed worker becomes an error record
        if isinstance(exc, KeyboardInterrupt):
            raise
        return _errors(job, f"worker failed: {type(exc).__name__}: {exc}", tb="".join(traceback.format_exception(exc)))


def _kill(executor: cf.Executor) -> None:
    procs = getattr(executor, "_processes", None) or {}
    for p in list(procs.values()):
        p.kill()
    executor.shutdown(wait=False, cancel_futures=True)
