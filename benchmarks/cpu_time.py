"""CPU seconds (user + system) that processes have used, read from /proc: no clock, no perf.

Used by the scale benchmark to see where a node's CPU goes on the measuring machine: its
workers, the PostgreSQL cluster's processes, redis-server, and the benchmark itself.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat after the command name (which may hold spaces): state is field 0."""
    return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                if int(_stat_fields(int(entry.name))[1]) == pid:
                    found.append(int(entry.name))
    return found


def user_system_seconds(pids: Iterable[int]) -> tuple[float, float]:
    """utime and stime of these processes (those that have gone count nothing)."""
    user = system = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = _stat_fields(pid)
            user += int(fields[11])  # utime (stat field 14)
            system += int(fields[12])  # stime (stat field 15)
    return user / _TICKS, system / _TICKS


def cpu_seconds(pids: Iterable[int]) -> float:
    """utime + stime of these processes."""
    return sum(user_system_seconds(pids))


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of `pid` and of its children (a postmaster's backends, a pool's workers)."""
    return cpu_seconds([pid, *children(pid)])


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent not idle (steal included: a core the
    hypervisor gave to someone else was not ours either), from /proc/stat."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / _TICKS
