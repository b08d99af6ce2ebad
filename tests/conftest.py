"""Hermetic tests: HOME, caches and matplotlib's config live in a temp folder; nothing is written elsewhere."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

_HOME = Path(tempfile.mkdtemp(prefix="icml26-test-home-"))
for _var, _sub in (("HOME", ""), ("XDG_CACHE_HOME", "cache"), ("MPLCONFIGDIR", "mpl"), ("RAY_TMPDIR", "ray")):
    (_HOME / _sub).mkdir(parents=True, exist_ok=True)
    os.environ[_var] = str(_HOME / _sub)
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
# pytest -n 2 runs two workers on a 2-core machine: one BLAS/OpenMP thread each avoids oversubscription
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def toy_papers(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the registry at the toy papers in tests/fixtures/toypapers (also for spawned workers)."""
    from icml26 import registry

    monkeypatch.setenv(registry.ENV_DIR, str(FIXTURES / "toypapers"))
    monkeypatch.setenv(registry.ENV_PACKAGE, "toypapers")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(FIXTURES), os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(FIXTURES))
    # toy paper beta needs the gpu extra; make it missing here whether or not triton is installed (dev installs it)
    monkeypatch.setitem(registry.EXTRAS, "gpu", ("icml26_toy_absent_module",))
    return FIXTURES / "toypapers"
