"""Is the machine idle while a timed claim measures? Detected, never assumed.

:class:`LoadMonitor` brackets a timed check. It records the load average, this process's CPU time against wall time,
the CPU time the rest of the machine used meanwhile (``/proc/stat``), a calibration kernel timed before and after,
the CPU model and the frequency governor. :meth:`LoadMonitor.stop` says the run was contended when

- the rest of the machine used more than :data:`MAX_OTHER_CORES` cores on average during the check, or
- this process got less than :data:`MIN_CPU_SHARE` of the wall time as CPU time (it waited for a core), or
- the calibration kernel ran more than :data:`MAX_CALIBRATION_DRIFT` slower or faster after than before.

Where ``/proc`` is missing (not Linux) only the calibration and the CPU share are used.
"""

from __future__ import annotations

import os
import platform
import resource
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MAX_CALIBRATION_DRIFT", "MAX_OTHER_CORES", "MIN_CPU_SHARE", "LoadMonitor", "calibrate", "cpu_model"]

#: cores' worth of CPU time other processes may use beside a timed check (a shell, a logger: well below one core)
MAX_OTHER_CORES = 0.3
#: CPU time / wall time a single-threaded timed check must get (below: it waited for a core)
MIN_CPU_SHARE = 0.85
#: the calibration kernel's after/before time ratio beyond which the machine changed under the check
MAX_CALIBRATION_DRIFT = 1.3


def _kernel() -> float:
    t0 = time.perf_counter()
    acc = 0
    for k in range(100_000):
        acc = (acc + k * k) % 1_000_003
    return time.perf_counter() - t0


def calibrate(*, reps: int = 5, warmup_s: float = 0.1) -> float:
    """Seconds of a fixed single-threaded kernel (pure-Python arithmetic, ~5-10 ms), best of ``reps`` after
    ``warmup_s`` seconds of the same kernel (an idle core takes a while to reach its clock: a cold first measurement
    would read as a machine that changed under the check)."""
    end = time.perf_counter() + warmup_s
    while time.perf_counter() < end:
        _kernel()
    return min(_kernel() for _ in range(reps))


def _proc_busy() -> float | None:
    """Busy CPU seconds of the whole machine since boot (``/proc/stat``), or ``None``."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    busy = sum(ticks[:8]) - idle  # user nice system idle iowait irq softirq steal (guest is inside user)
    return busy / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what :mod:`platform` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _governor() -> str | None:
    try:
        return Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").read_text().strip()
    except OSError:
        return None


@dataclass
class LoadMonitor:
    """Brackets a timed section: :meth:`start` before it, :meth:`stop` after.

    ``threads`` is what the section may use per process; ``parallel`` > 1 when it fans out to worker processes of its
    own (their CPU counts as its own once they are reaped; the CPU-share test is then skipped, since a sweep need not
    keep every worker busy all the time).
    """

    threads: int = 1
    parallel: int = 1

    def start(self) -> None:
        """Sample the machine before the timed section (runs the calibration kernel first)."""
        self._calib0 = calibrate()
        self._load0 = _loadavg()
        self._busy0 = _proc_busy()
        self._cpu0 = _own_cpu()
        self._t0 = time.perf_counter()

    def stop(self) -> dict[str, Any]:
        """Sample after the section; the dict holds every number and ``contended`` with ``why``."""
        wall = max(time.perf_counter() - self._t0, 1e-9)
        own = _own_cpu() - self._cpu0
        busy1 = _proc_busy()
        load1 = _loadavg()
        calib1 = calibrate()
        other = None if busy1 is None or self._busy0 is None else max(0.0, (busy1 - self._busy0 - own) / wall)
        share = own / (wall * self.threads)
        drift = calib1 / self._calib0 if self._calib0 > 0 else 1.0
        why = []
        if other is not None and other > MAX_OTHER_CORES:
            why.append(f"other processes used {other:.2f} cores (bar <= {MAX_OTHER_CORES})")
        if self.parallel == 1 and share < MIN_CPU_SHARE:
            why.append(f"the check got {share:.2f} of its wall time as CPU time (bar >= {MIN_CPU_SHARE})")
        if not (1 / MAX_CALIBRATION_DRIFT <= drift <= MAX_CALIBRATION_DRIFT):
            why.append(f"a calibration kernel took {drift:.2f}x as long after as before (bar within "
                       f"{MAX_CALIBRATION_DRIFT}x)")
        return {
            "contended": bool(why), "why": "; ".join(why), "wall_s": round(wall, 4), "cpu_s": round(own, 4),
            "cpu_share": round(share, 3), "other_cores": None if other is None else round(other, 3),
            "calibration_s": [round(self._calib0, 6), round(calib1, 6)], "calibration_drift": round(drift, 3),
            "loadavg_before": self._load0, "loadavg_after": load1, "cpu_model": cpu_model(), "governor": _governor(),
            "threads": self.threads, "parallel": self.parallel,
        }
