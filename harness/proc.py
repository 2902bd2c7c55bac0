"""A process's CPU time and memory, and the machine's, read from /proc (Linux).

The benchmarks report server CPU per action rather than wall time (2 shared, noisy cores), and the
tests check that a server's memory stays bounded.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")  # clock ticks per second, the unit of /proc/PID/stat's times


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds ``pid`` has used so far (/proc/PID/stat fields 14 and 15), None if the
    process is gone or ``pid`` is None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None


def rss_mb(pid: int) -> float | None:
    """Resident set size of ``pid`` in MB (VmRSS in /proc/PID/status), None if unreadable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent not idle since boot (/proc/stat): to see other work on the machine."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return (sum(values[:8]) - idle) / TICK


def children_cpu_seconds() -> float:
    """User + system CPU seconds of this process's children that have ended and been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pid_listening_on(port: int) -> int | None:
    """The pid of the process listening on TCP ``port`` (from /proc/net/tcp and /proc/*/fd), or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if int(cols[1].rsplit(":", 1)[1], 16) == port and cols[3] == "0A":  # 0A = LISTEN
                inodes.add(f"socket:[{cols[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    return None
