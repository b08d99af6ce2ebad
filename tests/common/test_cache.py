"""common.cache: build folders left by killed builders are swept; live ones and other folders' are kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from icml26.common import cache


def _write(folder: Path) -> None:
    (folder / "value.json").write_text(json.dumps({"x": 1}), encoding="utf-8")


def test_builds_verifies_and_rebuilds_a_damaged_folder(tmp_path: Path) -> None:
    target = tmp_path / "thing"
    calls: list[int] = []

    def build(folder: Path) -> None:
        calls.append(1)
        _write(folder)

    assert cache.materialise(target, key={"k": 1}, build=build) == target
    assert cache.materialise(target, key={"k": 1}, build=build) == target
    assert len(calls) == 1
    (target / "value.json").write_text("damaged", encoding="utf-8")
    cache.materialise(target, key={"k": 1}, build=build)
    assert len(calls) == 2 and json.loads((target / "value.json").read_text(encoding="utf-8")) == {"x": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["thing"]


def test_a_killed_builders_folder_is_swept_and_a_live_ones_kept(tmp_path: Path) -> None:
    target = tmp_path / "thing"
    host = cache._host()
    # a builder that was SIGKILLed: its pid no longer exists
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    dead = tmp_path / f".thing-{host}-{child.pid}-abc123"
    live = tmp_path / f".thing-{host}-{os.getpid()}-def456"  # this process: alive
    other_host = tmp_path / f".thing-elsewhere-{child.pid}-ghi789"  # cannot tell from here: kept
    other_folder = tmp_path / f".thing-v2-{host}-{child.pid}-jkl012"  # folder "thing-v2"'s build: not ours to judge
    old_unknown = tmp_path / ".thing-zz9x8w7v"  # the former naming, a day old: left over
    new_unknown = tmp_path / ".thing-aa1b2c3d"  # the former naming, fresh: may still run
    for d in (dead, live, other_host, other_folder, old_unknown, new_unknown):
        d.mkdir()
        (d / "part").write_text("half", encoding="utf-8")
    day_ago = time.time() - 2 * 24 * 3600
    os.utime(old_unknown, (day_ago, day_ago))
    cache.materialise(target, key={"k": 1}, build=_write)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["thing", live.name, other_host.name, other_folder.name, new_unknown.name])


def test_build_failure_leaves_nothing(tmp_path: Path) -> None:
    def build(folder: Path) -> None:
        _write(folder)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cache.materialise(tmp_path / "thing", key={"k": 1}, build=build)
    assert list(tmp_path.iterdir()) == []
