"""bench/load.py (a class of simulated students over Streamlit's websocket) run in a subprocess, as the
scale-out benchmark and the load tests run it: its command line written once.

    proc, report = run_load(tmp_path / "load.json", sessions=5, changes=5, arrival_seconds=2,
                            think=(0.2, 0.6), settle=5, timeout=60)

``report`` is load.py's JSON report (None if it failed: see ``proc.stdout`` and ``proc.stderr``).
Without ``port`` load.py starts a server of its own; with it, it drives the server there (``pid``: that
server's process, for its CPU and memory).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness.settings import ROOT

LOAD = ROOT / "bench" / "load.py"


def load_command(
    report_path: Path,
    *,
    sessions: int,
    changes: int,
    arrival_seconds: float,
    think: tuple[float, float],
    settle: float,
    timeout: float,
    port: int | str | None = None,
    pid: int | None = None,
    probe_opens: int | None = None,
) -> list[str]:
    """load.py's command line: ``sessions`` students arriving over ``arrival_seconds``, each committing σ
    ``changes`` times after a think time uniform in ``think`` seconds; ``settle`` seconds before the last
    memory sample; ``timeout`` seconds allowed per script run; ``probe_opens`` first opens on the idle
    server before the class (None: load.py's default)."""
    command = [
        sys.executable,
        str(LOAD),
        "--sessions",
        str(sessions),
        "--changes",
        str(changes),
        "--arrival-seconds",
        f"{arrival_seconds:g}",
        "--think",
        *(f"{seconds:g}" for seconds in think),
        "--settle",
        f"{settle:g}",
        "--timeout",
        f"{timeout:g}",
        "--json",
        str(report_path),
    ]
    if port is not None:
        command += ["--port", str(port)]
    if pid is not None:
        command += ["--pid", str(pid)]
    if probe_opens is not None:
        command += ["--probe-opens", str(probe_opens)]
    return command


def run_load(
    report_path: Path, *, process_timeout: float | None = None, **options
) -> tuple[subprocess.CompletedProcess, dict | None]:
    """Run load.py (``load_command``'s options) from the repository; (the finished process, its report or
    None). process_timeout: seconds before the run is killed (subprocess.TimeoutExpired)."""
    proc = subprocess.run(
        load_command(report_path, **options),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=process_timeout,
    )
    ok = proc.returncode == 0 and report_path.exists()
    return proc, json.loads(report_path.read_text()) if ok else None
