"""Provenance of a claim run: versions, git state, host, resources. Reads only; writes nothing."""

from __future__ import annotations

import datetime as _dt
import functools
import importlib.metadata
import os
import platform
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["collect", "git_state", "peak_rss_mb", "utc_now"]

_PACKAGES = ("icml26", "numpy", "scipy", "torch", "matplotlib", "ray")


def utc_now() -> str:
    """The current UTC time, ISO 8601 with seconds."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def peak_rss_mb() -> float:
    """Peak resident memory of this process (and finished children) in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(own / 1024.0, 1)  # Linux reports KiB


@functools.lru_cache(maxsize=1)
def git_state() -> dict[str, Any] | None:
    """``{"commit", "dirty"}`` of the checkout this package was imported from, or ``None`` outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        def git(*args: str) -> str:
            return subprocess.run(
                ["git", "--no-optional-locks", *args], cwd=here, capture_output=True, text=True, timeout=5, check=True
            ).stdout.strip()

        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
        return {"commit": commit, "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return None


@functools.lru_cache(maxsize=1)
def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for p in _PACKAGES:
        try:
            out[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            out[p] = None
    return out


def collect() -> dict[str, Any]:
    """The provenance block stored with every record."""
    torch_threads = None
    if "torch" in sys.modules:
        torch_threads = sys.modules["torch"].get_num_threads()
    return {
        "versions": _versions(),
        "python": platform.python_version(),
        "git": git_state(),
        "host": platform.node(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "pid": os.getpid(),
        "torch_threads": torch_threads,
        "threads_env": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")},
    }
