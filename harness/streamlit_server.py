"""``python -m streamlit run app.py`` in a subprocess, on a free loopback port.

Runs like the container: the repository's .streamlit/config.toml (post-run GC on, XSRF on, session TTL)
and the Dockerfile's process environment (``CONTAINER_ENV``: one OpenMP and BLAS thread, MALLOC_ARENA_MAX=2)
unless the environment sets those variables. Without OMP_NUM_THREADS=1 scikit-learn's K-Means runs two
OpenMP threads per fit, and on a busy machine one of them waits for the other: a 2 ms fit took 0.1–1.2 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from harness.ports import free_port
from harness.settings import ROOT

# The Dockerfile's ENV lines that shape a server's speed and memory (deploy/run-local sets the same).
CONTAINER_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MALLOC_ARENA_MAX": "2",
}


class StreamlitServer:
    """Started on construction; ``wait_healthy()`` until /_stcore/health answers; ``stop()`` ends it.

    ``log_path`` receives its output (``log_tail()`` shows the end when a start fails); ``env`` adds
    variables to this process's environment; ``folder`` is the app's folder (default: the repository;
    a test's throw-away app elsewhere); ``script`` the page it runs (default app.py). Also a context
    manager (waits healthy, stops on exit)."""

    def __init__(
        self,
        log_path: Path | None = None,
        port: int | None = None,
        env: dict | None = None,
        folder: Path = ROOT,
        script: str = "app.py",
    ):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = open(log_path, "w") if log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                script,
                "--server.headless=true",
                f"--server.port={self.port}",
                "--server.address=127.0.0.1",
                "--server.fileWatcherType=none",
                "--browser.gatherUsageStats=false",
            ],
            cwd=folder,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**CONTAINER_ENV, **os.environ, **(env or {})},
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_healthy(self, timeout: float = 90.0) -> "StreamlitServer":
        """Poll the health endpoint until it says ok; RuntimeError with the log's end if the server
        exits or ``timeout`` seconds pass first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                raise RuntimeError(f"streamlit exited with code {code}; log: {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        return self
            except OSError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"streamlit not healthy after {timeout:.0f} s; log: {self.log_tail()}")

    def log_tail(self, chars: int = 4000) -> str:
        if self.log_path is None:
            return "(not logged)"
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-chars:]

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 s; closes the log."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log is not subprocess.DEVNULL and not self._log.closed:
            self._log.close()

    def __enter__(self) -> "StreamlitServer":
        try:
            return self.wait_healthy()
        except Exception:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()
