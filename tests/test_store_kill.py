"""kill -9 of the driver at random points loses at most the claims in flight; two drivers on one folder interleave
whole records."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest

from icml26.harness import run_claim
from icml26.store import ResultStore

NAPS = [f"delta:nap_{i}" for i in range(6)]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _printed(stdout: str) -> set[str]:
    return {f"{e['paper']}:{e['claim']}" for line in stdout.splitlines() if line.startswith("{")
            for e in [json.loads(line)] if e.get("event") == "claim"}


@pytest.mark.slow
def test_a_driver_killed_at_random_points_loses_only_claims_in_flight(toy_papers, tmp_path):
    rng = random.Random(20261201)  # random kill points, the same in every run of the suite
    out = tmp_path / "out"
    reported: set[str] = set()
    for point in sorted(rng.uniform(1.5, 9.0) for _ in range(3)):
        proc = subprocess.Popen([sys.executable, "-m", "icml26.cli", "reproduce", *NAPS, "--executor", "process",
                                 "--jobs", "2", "--json", "--out", str(out)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        time.sleep(point)
        proc.send_signal(signal.SIGKILL)
        stdout, _ = proc.communicate(timeout=30)
        reported |= _printed(stdout)  # a claim shown as finished was appended (and fsynced) before it was shown
        stored = ResultStore(out).read()  # every stored line parses (a torn one would be skipped, with a warning)
        assert reported <= {f"{r.paper}:{r.claim}" for r in stored}
        assert len(stored) == len({r.run_id for r in stored}), "a record written twice"
    lines = (out / "results.jsonl").read_text().splitlines()
    assert all(json.loads(x) for x in lines), "only whole records in the file"
    done = subprocess.run([sys.executable, "-m", "icml26.cli", "reproduce", "delta:rebuilt_holds", "--executor",
                           "serial", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and ResultStore(out).read()[-1].claim == "rebuilt_holds"  # the folder still works


def test_two_writers_on_one_folder_interleave_whole_records(toy_papers, tmp_path):
    rec = run_claim("alpha", "always_wrong").replace(rows=[{"pad": "x" * 5000}])  # ~5 KB lines: no atomic writes
    stores = [ResultStore(tmp_path), ResultStore(tmp_path)]

    def write(store: ResultStore, n: int) -> None:
        for i in range(n):
            store.append(rec.replace(run_id=f"{id(store)}-{i}"))

    threads = [threading.Thread(target=write, args=(s, 60)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = ResultStore(tmp_path).read()
    assert len(got) == 120 and len({r.run_id for r in got}) == 120
    assert os.path.getsize(tmp_path / "results.jsonl") > 120 * 5000
