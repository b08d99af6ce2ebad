"""ruff (pyflakes, isort, pydocstyle google, absolute imports) and basedpyright (basic) are clean on the whole tree."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed (it is in the [dev] extra)")
    return found


def test_ruff_is_clean():
    res = subprocess.run([_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]


def test_basedpyright_is_clean():
    res = subprocess.run([_tool("basedpyright")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
