"""A local Ray cluster that stays on loopback and dies with its driver.

Ray left to itself advertises the machine's external address, listens on all interfaces, probes the cloud metadata
address from its dashboard process (even with the dashboard off and usage stats disabled) and leaves its dashboard
and runtime-env agents running when the driver is killed. :func:`start` starts it with the node address pinned to
127.0.0.1, usage stats off, HTTP(S) proxies for Ray's own processes pointed at a closed loopback port (so the
metadata probe fails locally instead of leaving the machine), every Ray process marked with a session token in its
environment, and a reaper process that kills every marked process once the driver is gone.

``python -m icml26._ray_local <driver pid> <token>`` is the reaper.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["MARKER", "TOKEN_ENV", "marked_pids", "reap", "start"]

#: the environment variable that marks this session's Ray processes (set for them only, never for the driver)
MARKER = "ICML26_RAY_SESSION"
#: a token for the marker chosen by the caller (tests use it to find the processes); default: a fresh one
TOKEN_ENV = "ICML26_RAY_TOKEN"
#: where Ray's own HTTP clients are sent: a loopback port nothing listens on
DEAD_PROXY = "http://127.0.0.1:9"
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")


def marked_pids(token: str) -> list[int]:
    """PIDs of the processes whose environment carries ``MARKER=token`` (Linux ``/proc``; empty elsewhere)."""
    needle = f"{MARKER}={token}".encode()
    out = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            if needle in (d / "environ").read_bytes().split(b"\0"):
                out.append(int(d.name))
        except OSError:  # gone, or not ours to read
            continue
    return out


def reap(token: str, *, spare: int | None = None) -> int:
    """SIGKILL every process marked with ``token`` (except ``spare``); returns how many were signalled."""
    n = 0
    for pid in marked_pids(token):
        if pid in (spare, os.getpid()):
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            n += 1
    return n


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def start(ray: Any, *, num_cpus: int | None) -> tuple[str, subprocess.Popen[bytes]]:
    """``ray.init`` a local cluster on loopback (see the module docstring); returns (token, reaper process)."""
    token = os.environ.get(TOKEN_ENV) or uuid.uuid4().hex
    # the reaper starts first, so a driver killed while ray.init is still starting processes leaves nothing either
    reaper = subprocess.Popen([sys.executable, "-m", "icml26._ray_local", str(os.getpid()), token],
                              start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    proxies = dict.fromkeys(_PROXY_VARS, DEAD_PROXY)
    with _env(**proxies, NO_PROXY="127.0.0.1,localhost,::1", no_proxy="127.0.0.1,localhost,::1", **{MARKER: token},
              RAY_USAGE_STATS_ENABLED="0", RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0"):
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    return token, reaper


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _main(argv: list[str]) -> int:
    driver, token = int(argv[0]), argv[1]
    while _alive(driver):
        time.sleep(0.5)
    # sweep until nothing marked has been seen for 2 s: processes forked while a sweep runs (an agent a dying raylet
    # was still starting) are caught by a later one; give up after 60 s
    quiet_since = deadline = time.monotonic()
    deadline += 60.0
    while time.monotonic() < deadline and time.monotonic() - quiet_since < 2.0:
        if reap(token):
            quiet_since = time.monotonic()
        time.sleep(0.2)
    return 0


if __name__ == "__main__":  # pragma: no cover - runs as the reaper process
    sys.exit(_main(sys.argv[1:]))
