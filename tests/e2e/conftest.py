"""Fixtures for the browser tests: a real `streamlit run app.py` server (the browser itself, the shared
context and the ``student`` fixture are tests/browser.py's, shared with tests/deploy).

* ``server``        one server per pytest-xdist worker (started on a free port, health-polled, stopped).
* ``fresh_server``  a new server for one test (the deep-link test must be the first visitor).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

from harness.settings import ARTIFACTS, DOCS_SITE, in_ci
from harness.streamlit_server import StreamlitServer
from harness.student import HANG_TIMEOUT_MS

# a server's start waits for the first `import torch` on a busy machine: bounded as a hang only
STARTUP_TIMEOUT = HANG_TIMEOUT_MS / 1000


def _start(name: str) -> StreamlitServer:
    """`streamlit run app.py` on a free port (harness.streamlit_server), healthy, logging to
    artifacts/. ``server.hold_rest``: while a test keeps a file there, the server holds back the rest of
    a new setting's σ levels (ui.hold_rest.ENV); nobody creates it otherwise."""
    from ui.hold_rest import ENV as HOLD_REST_ENV  # here: importing Streamlit at collection logs warnings

    ARTIFACTS.mkdir(exist_ok=True)
    hold = Path(tempfile.gettempdir()) / f"rbfviz-e2e-hold-rest-{os.getpid()}-{name}"
    hold.unlink(missing_ok=True)
    server = StreamlitServer(ARTIFACTS / f"e2e-server-{name}.log", env={HOLD_REST_ENV: str(hold)})
    server.hold_rest = hold
    try:
        server.wait_healthy(STARTUP_TIMEOUT)
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


@pytest.fixture(scope="module")
def built_site() -> Path:
    """The built documentation site: skipped with the reason where it is missing, a failure in CI."""
    if not (DOCS_SITE / "index.html").is_file():
        reason = "the documentation is not built (run `mkdocs build`: static/docs/index.html is missing)"
        if in_ci():
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)
    return DOCS_SITE
