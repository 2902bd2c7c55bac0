"""Fixtures for the browser tests: a real `streamlit run app.py` server and Debian's Chromium.

* ``server``        one server for the whole session (started on a free port, health-polled, stopped).
* ``fresh_server``  a new server for one test (the deep-link test must be the first visitor).
* ``student``       a Playwright page wrapped in ``Student`` (tests/e2e/student.py); on teardown it
                    saves a screenshot to artifacts/screenshots/<test name>.png.

Chromium comes from the system (`apt-get install chromium`), never from Playwright's download.
If it is missing the tests are skipped with the reason, unless RBFVIZ_REQUIRE_BROWSER=1 (CI),
where a missing browser is an error: a browser test must never pass without a browser.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from student import Student

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
STARTUP_TIMEOUT = 90  # seconds to healthy (the first `import torch` on a busy 2-core machine)


# --- the browser ----------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        reason = (f"no Chromium at {path} (set CHROMIUM_PATH, or `apt-get install -y chromium`); "
                  "Playwright's own browser download is not used")
        if os.environ.get("RBFVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"RBFVIZ_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, chromium_path):
    """pytest-playwright's launch arguments, pointed at the system Chromium."""
    return {**browser_type_launch_args, "executable_path": chromium_path, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


# --- the server -----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`python -m streamlit run app.py` on a free loopback port, from the repository root."""

    def __init__(self, name: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        ARTIFACTS.mkdir(exist_ok=True)
        self.log_path = ARTIFACTS / f"e2e-server-{name}.log"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
             f"--server.port={self.port}", "--server.address=127.0.0.1", "--server.fileWatcherType=none"],
            cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT)

    def wait_healthy(self, timeout: float = STARTUP_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        raise RuntimeError(f"streamlit not healthy after {timeout} s:\n{self.log()}")

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text()[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def _start(name: str) -> Server:
    server = Server(name)
    try:
        server.wait_healthy()
    except Exception:
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def server(chromium_path):
    """One server shared by the tests that don't care who visited it first."""
    srv = _start("shared")
    yield srv
    srv.stop()


@pytest.fixture
def fresh_server(chromium_path, request):
    """A server nobody has visited yet (Streamlit's multipage set-up happens on the first session)."""
    srv = _start(re.sub(r"\W+", "_", request.node.name))
    yield srv
    srv.stop()


# --- the student ----------------------------------------------------------------------------------

@pytest.fixture
def student(page, request):
    """A browser tab driven like a student would; a screenshot of the last state is saved on teardown
    (artifacts/screenshots/<test name>.png), also when the test failed."""
    page.set_default_timeout(60_000)
    who = Student(page, SCREENSHOTS, re.sub(r"\W+", "_", request.node.name).strip("_"))
    yield who
    try:
        who.screenshot()
    except Exception as exc:  # noqa: BLE001 — a failed screenshot must not hide the test's result
        print(f"screenshot of {who.name} failed: {exc}")
