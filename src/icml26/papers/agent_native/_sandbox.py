"""Running a repository's unit tests for real ([P17]: the environmentally-native observations are test executions).

The paper runs rollouts in Docker images of real repositories; here a repository snapshot's ``unittest`` module runs
in a separate interpreter (``sys.executable -I``: isolated mode, a minimal environment, its working folder a
``tempfile.TemporaryDirectory()``, a wall-clock timeout, ``socket`` disabled, no file may grow (``RLIMIT_FSIZE`` 0),
1 GiB of address space, a per-snapshot alarm; a batch that hangs or dies is rerun one snapshot at a time). This
guards against accidents, not against code written to escape: the agent's edits are in a closed vocabulary
(:mod:`._text`) that names no file, process or network call.

The snapshot's modules are imported from their source text by a meta-path finder (nothing is written but the runner
script); several snapshots go to one interpreter in a batch (their modules are dropped from ``sys.modules`` between
snapshots), and a :class:`TestCache` keyed by the hash of the files runs each distinct snapshot once per run.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from icml26.common import validation as V
from icml26.papers.agent_native._repo import TEST_FILE, Repo

__all__ = ["TestCache", "TestReport", "run_unit_tests"]

_RUNNER = r'''
import _socket, importlib.abc, importlib.util, json, resource, signal, socket, sys, unittest

def _no_network(*a, **k):
    raise OSError("network access is disabled in the sandbox")

socket.socket = socket.create_connection = socket.socketpair = _no_network
_socket.socket = _socket.socketpair = _no_network
# no file can grow (writes fail with EFBIG instead of killing the process), a 1 GiB address space
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

def _alarm(signum, frame):
    raise TimeoutError("snapshot timed out")

signal.signal(signal.SIGALRM, _alarm)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports the snapshot's modules from their source text (nothing written to disk)."""

    def __init__(self, sources):
        self.sources = sources

    def find_spec(self, name, path=None, target=None):
        if name in self.sources:
            return importlib.util.spec_from_loader(name, self, origin=name + ".py")
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        code = compile(self.sources[module.__name__], module.__name__ + ".py", "exec")
        exec(code, module.__dict__)


states = json.load(sys.stdin)
per_state = float(sys.argv[1])
_stdout, sys.stdout = sys.stdout, sys.stderr  # whatever a snapshot prints stays out of the report
out = []
for files in states:
    mods = {n[:-3]: text for n, text in files.items() if n.endswith(".py")}
    for m in mods:
        sys.modules.pop(m, None)
    finder = _Finder(mods)
    sys.meta_path.insert(0, finder)
    rec = {"passed": 0, "failed": 0, "failures": [], "error": ""}
    signal.setitimer(signal.ITIMER_REAL, per_state)
    try:
        suite = unittest.defaultTestLoader.loadTestsFromName("TEST_MODULE")
        res = unittest.TestResult()
        suite.run(res)
        bad = [(t.id().split(".")[-1], tb.strip().splitlines()[-1]) for t, tb in res.failures + res.errors]
        rec["failed"] = len(bad)
        rec["passed"] = res.testsRun - len(bad)
        rec["failures"] = bad
    except BaseException as exc:
        rec["error"] = type(exc).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.meta_path.remove(finder)
        for m in mods:
            sys.modules.pop(m, None)
    out.append(rec)
json.dump(out, _stdout)
'''.replace("TEST_MODULE", TEST_FILE[:-3])


@dataclass(frozen=True)
class TestReport:
    """One test run ([P17] environment feedback): tests passed and failed, ``(test, last line of its traceback)`` per failure, an import error."""

    __test__ = False  # not a pytest class

    passed: int
    failed: int
    failures: tuple[tuple[str, str], ...] = ()
    error: str = ""

    @property
    def ok(self) -> bool:
        """All tests ran and passed."""
        return not self.error and self.failed == 0 and self.passed > 0


@dataclass
class TestCache:
    """[P17] sandbox: reports by snapshot hash, so that a run verifies each distinct snapshot once (pass one to every call)."""

    __test__ = False

    reports: dict[str, TestReport] = field(default_factory=dict)
    executed: int = 0  # snapshots actually run in a subprocess


def _key(repo: Repo) -> str:
    h = hashlib.sha256()
    for name in sorted(repo.files):
        h.update(name.encode() + b"\0" + repo.files[name].encode() + b"\0")
    return h.hexdigest()


def _run_batch(states: list[dict[str, str]], *, timeout: float, per_state: float) -> list[TestReport]:
    """One interpreter for ``states``; if it hangs or dies, each state alone (a hanging one reports ``TimeoutError``,
    one that kills its interpreter ``Exception``)."""
    try:
        with tempfile.TemporaryDirectory(prefix="agent_native_") as tmp:
            (Path(tmp) / "runner.py").write_text(_RUNNER)
            env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
            proc = subprocess.run([sys.executable, "-I", "runner.py", str(per_state)], input=json.dumps(states),
                                  capture_output=True, text=True, cwd=tmp, env=env, timeout=timeout, check=False)
        failed = "TimeoutError" if proc.returncode == 0 else "Exception"
        out = json.loads(proc.stdout) if proc.returncode == 0 else None
    except subprocess.TimeoutExpired:
        failed, out = "TimeoutError", None
    if out is None:
        if len(states) == 1:
            return [TestReport(passed=0, failed=0, error=failed)]
        return [r for st in states for r in _run_batch([st], timeout=per_state + 3.0, per_state=per_state)]
    return [TestReport(passed=r["passed"], failed=r["failed"], failures=tuple(tuple(f) for f in r["failures"]),
                       error=r["error"]) for r in out]


def run_unit_tests(repos: Sequence[Repo], *, cache: TestCache | None = None, timeout_s: float = 60.0,
                   per_repo_s: float = 2.0, batch: int = 2000) -> list[TestReport]:
    """The real test reports of ``repos`` ([P17] environmentally-native observations: test executions).

    Each distinct snapshot (by hash; ``cache`` remembers them across calls) runs once, ``batch`` snapshots per
    isolated interpreter, each under ``per_repo_s`` seconds, each interpreter under ``timeout_s`` plus the batch's
    per-snapshot allowance.
    """
    if not isinstance(repos, Sequence) or isinstance(repos, (str, bytes)):
        raise TypeError("repos must be a sequence of Repo")
    if any(not isinstance(r, Repo) for r in repos):
        raise TypeError("repos must hold Repo objects only")
    timeout_s = V.real(timeout_s, "timeout_s", lo=0.1)
    per_repo_s = V.real(per_repo_s, "per_repo_s", lo=0.01)
    batch = V.positive_int(batch, "batch")
    cache = cache if cache is not None else TestCache()
    keys = [_key(r) for r in repos]
    todo: dict[str, Repo] = {}
    for k, r in zip(keys, repos):
        if k not in cache.reports:
            todo.setdefault(k, r)
    items = list(todo.items())
    for i in range(0, len(items), batch):
        chunk = items[i:i + batch]
        reports = _run_batch([dict(r.files) for _, r in chunk], timeout=timeout_s + 0.01 * len(chunk),
                             per_state=per_repo_s)
        cache.reports.update({k: rep for (k, _), rep in zip(chunk, reports)})
        cache.executed += len(chunk)
    return [cache.reports[k] for k in keys]
