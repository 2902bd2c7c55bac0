"""``deploy/run-local`` in the background: HAProxy on a free loopback port in front of app processes.

The tests (tests/deploy/test_proxy.py) and the benchmarks (bench/scaleout.py, bench/compression.py,
bench/class_load.py) start it the same way and read the same ``--info`` file: the proxy's URL, each
replica's pid, URL and log, HAProxy's pid and its stats page.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness.ports import free_port
from harness.proc import cpu_seconds
from harness.settings import ROOT

RUN_LOCAL = ROOT / "deploy" / "run-local"


class RunLocal:
    """``deploy/run-local --processes N`` started on construction and ready (its --info file written).

    ``log_dir`` receives run-local's output (run-local.out), its replicas' logs and info.json.
    ``database``: "sqlite" or "postgres" (run-local's --database; None: its default).
    ``precompressed=False`` passes --no-precompressed; ``maxconn`` passes --maxconn; ``env`` adds
    variables to the environment. RuntimeError with the end of its output if it is not ready within
    ``startup_timeout`` seconds (two first imports of torch on a busy machine, and deploy/precompress
    the first time, take minutes)."""

    def __init__(
        self,
        processes: int,
        log_dir: Path,
        *,
        port: int | None = None,
        database: str | None = None,
        maxconn: int | None = None,
        precompressed: bool = True,
        env: dict | None = None,
        startup_timeout: float = 300.0,
    ):
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        info_path = self.log_dir / "info.json"
        info_path.unlink(missing_ok=True)
        argv = [
            sys.executable,
            str(RUN_LOCAL),
            "--processes",
            str(processes),
            "--port",
            str(port or free_port()),
        ]
        argv += ["--log-dir", str(self.log_dir), "--info", str(info_path)]
        argv += ["--database", database] if database else []
        argv += ["--maxconn", str(maxconn)] if maxconn else []
        argv += [] if precompressed else ["--no-precompressed"]
        self._out = open(self.log_dir / "run-local.out", "w")
        self.proc = subprocess.Popen(
            argv, cwd=ROOT, stdout=self._out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
        deadline = time.monotonic() + startup_timeout
        while not info_path.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"run-local not ready: {self.output()}")
            time.sleep(0.5)
        self.info = json.loads(info_path.read_text())
        self.url = self.info["url"]
        self.port = int(self.url.rsplit(":", 1)[1])
        self.replicas = self.info["replicas"]
        self.pids = [r["pid"] for r in self.replicas]

    def output(self, chars: int = 4000) -> str:
        """The end of run-local's own output."""
        if not self._out.closed:
            self._out.flush()
        return (self.log_dir / "run-local.out").read_text(errors="replace")[-chars:]

    def replica_log(self, index: int) -> str:
        return Path(self.replicas[index]["log"]).read_text(errors="replace")

    def server_cpu(self) -> float:
        """CPU seconds the app processes have used so far (a stopped one counts 0)."""
        return sum(cpu_seconds(pid) or 0.0 for pid in self.pids)

    def proxy_cpu(self) -> float:
        return cpu_seconds(self.info["haproxy_pid"]) or 0.0

    def stop(self) -> int:
        """SIGTERM (run-local stops its replicas and HAProxy), SIGKILL after 60 s; its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._out.close()
        return self.proc.returncode

    def __enter__(self) -> "RunLocal":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
