"""``--executor ray --address``: a head and two worker nodes started with ``ray start`` on loopback; one worker node is
killed mid-run. Every claim is recorded exactly once, as a verdict (re-run elsewhere) or an error: none twice, none
lost."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kills nodes through /proc")]

from icml26._ray_local import MARKER, marked_pids, reap  # noqa: E402

RAY = str(Path(sys.executable).with_name("ray"))
NAPS = [f"delta:nap_{i}" for i in range(6)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_start(args: list[str], token: str, env: dict[str, str]) -> None:
    res = subprocess.run([RAY, "start", "--node-ip-address=127.0.0.1", "--disable-usage-stats", *args],
                         env={**env, MARKER: token}, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def _comms(token: str) -> set[str]:
    out = set()
    for pid in marked_pids(token):
        try:
            out.add(Path(f"/proc/{pid}/comm").read_text().strip())
        except OSError:
            pass
    return out


def test_killing_a_worker_node_mid_run_loses_no_claim_and_records_none_twice(toy_papers, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}  # it forbids multi-node
    env.update(RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    tokens = {name: uuid.uuid4().hex for name in ("head", "w1", "w2")}
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="rc", dir="/tmp")
    address = f"127.0.0.1:{port}"
    try:
        _ray_start(["--head", f"--port={port}", "--num-cpus=0", "--include-dashboard=false", f"--temp-dir={temp}"],
                   tokens["head"], env)
        for w in ("w1", "w2"):
            _ray_start([f"--address={address}", "--num-cpus=1"], tokens[w], env)
        out = tmp_path / "out"
        driver = subprocess.Popen([sys.executable, "-m", "icml26.cli", "reproduce", *NAPS, "--executor", "ray",
                                   "--address", address, "--json", "--timeout", "120", "--out", str(out)],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60  # kill w1 once it runs a claim (a worker process beyond its raylet)
        while time.monotonic() < deadline and not any(c.startswith("ray::") for c in _comms(tokens["w1"]) - {
                "ray::IDLE"}):
            time.sleep(0.2)
        killed = reap(tokens["w1"])
        assert killed, "worker node 1 had no process to kill"
        stdout, stderr = driver.communicate(timeout=300)
    finally:
        for t in tokens.values():
            reap(t)
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    claims = [f"{e['paper']}:{e['claim']}" for e in events if e["event"] == "claim"]
    assert sorted(claims) == sorted(NAPS), f"recorded {claims}\n{stderr[-3000:]}"  # each once: none lost or twice
    stored = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(f"{r['paper']}:{r['claim']}" for r in stored) == sorted(NAPS)
    verdicts = {f"{r['paper']}:{r['claim']}": r["verdict"] for r in stored}
    assert set(verdicts.values()) <= {"holds", "error"}, verdicts
    assert driver.returncode in (0, 1), stderr[-3000:]  # 1 when a lost claim is recorded as an error
    for r in stored:
        if r["verdict"] == "error":
            assert r["error"], r
