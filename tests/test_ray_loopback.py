"""A local Ray cluster (``--executor ray`` without ``--address``) listens on loopback only, connects nowhere else,
and leaves no process behind when its driver is killed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytestmark = pytest.mark.ray

from icml26._ray_local import TOKEN_ENV, marked_pids  # noqa: E402

LOOPBACK = ("127.", "::1", "::ffff:127.")


def _addr(hexaddr: str) -> str:
    host, _ = hexaddr.split(":")
    if len(host) == 8:
        return ".".join(str(b) for b in bytes.fromhex(host)[::-1])
    words = [bytes.fromhex(host[i:i + 8])[::-1].hex() for i in range(0, 32, 8)]
    full = "".join(words)
    if full.startswith("0" * 20 + "ffff"):
        return "::ffff:" + ".".join(str(b) for b in bytes.fromhex(full[24:]))
    return "::1" if full == "0" * 31 + "1" else ":".join(full[i:i + 4] for i in range(0, 32, 4))


def _listening(pids: list[int]) -> dict[tuple[str, int], str]:
    """Listening TCP sockets of ``pids``: (local address, port) -> process name."""
    inodes: dict[str, int] = {}
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                m = re.match(r"socket:\[(\d+)\]", os.readlink(fd))
                if m:
                    inodes[m.group(1)] = pid
        except OSError:
            continue
    out = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # LISTEN
                pid = inodes[f[9]]
                try:
                    name = Path(f"/proc/{pid}/comm").read_text().strip()
                except OSError:
                    name = "?"
                out[(_addr(f[1]), int(f[1].split(":")[1], 16))] = name
    return out


def _driver(tmp: Path, token: str, claim: str, *, strace: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, TOKEN_ENV: token, "RAY_TMPDIR": tempfile.mkdtemp(prefix="r", dir="/tmp")}
    cmd = [sys.executable, "-m", "icml26.cli", "reproduce", claim, "--executor", "ray", "--jobs", "1",
           "--out", str(tmp / "out")]
    if strace:
        cmd = [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(tmp / "strace.txt"), *cmd]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_local_cluster_listens_on_loopback_only_and_connects_nowhere_else(toy_papers, tmp_path):
    token = uuid.uuid4().hex
    strace = shutil.which("strace")
    proc = _driver(tmp_path, token, "delta:sleeps", strace=strace)
    seen: dict[tuple[str, int], str] = {}
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        seen.update(_listening(marked_pids(token)))
        time.sleep(0.3)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "holds" in out
    ray_names = {n for n in seen.values()}
    assert {"gcs_server", "raylet"} <= ray_names, f"the sampling missed Ray's servers: {seen}"
    outside = {a: n for a, n in seen.items() if not a[0].startswith(LOOPBACK)}
    assert not outside, f"listening beyond loopback: {outside}"
    if strace and (tmp_path / "strace.txt").exists() and (tmp_path / "strace.txt").stat().st_size:
        calls = (tmp_path / "strace.txt").read_text()
        inet = re.findall(r'connect\(\d+, \{sa_family=AF_INET6?, [^}]*?(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")', calls)
        addrs = {a or b for a, b in inet}
        assert addrs, "strace saw no TCP/UDP connect at all: the probe is broken"
        assert all(a.startswith(LOOPBACK) for a in addrs), f"connects beyond loopback: {sorted(addrs)}"
    assert not marked_pids(token), "Ray processes left after a normal shutdown"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_driver_leaves_no_ray_process_behind(toy_papers, tmp_path):
    token = uuid.uuid4().hex
    proc = _driver(tmp_path, token, "delta:sleeps")
    deadline = time.monotonic() + 90
    names: set[str] = set()
    while time.monotonic() < deadline and not {"raylet", "gcs_server"} <= names:
        names = set()
        for pid in marked_pids(token):
            try:
                names.add(Path(f"/proc/{pid}/comm").read_text().strip())
            except OSError:
                pass
        time.sleep(0.3)
    assert {"raylet", "gcs_server"} <= names, f"the cluster did not start: {names}"
    time.sleep(1.0)  # let the agents start too
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = marked_pids(token)
    for _ in range(60):
        if not left:
            break
        time.sleep(0.5)
        left = marked_pids(token)
    assert not left, f"left behind: {[Path(f'/proc/{p}/comm').read_text().strip() for p in left if Path(f'/proc/{p}').exists()]}"
