"""Fixtures for the browser tests: a real `streamlit run app.py` server and Debian's Chromium.

* ``server``        one server for the whole session (started on a free port, health-polled, stopped).
* ``fresh_server``  a new server for one test (the deep-link test must be the first visitor).
* ``context``       one browser context for the session (shared HTTP cache), cleaned after each test.
* ``student``       a Playwright page wrapped in ``Student`` (tests/e2e/student.py); when its test
                    failed it saves a screenshot to artifacts/screenshots/<test name>.png.

Chromium comes from the system (`apt-get install chromium`), never from Playwright's download.
If it is missing the tests are skipped with the reason, unless RBFVIZ_REQUIRE_BROWSER=1 (CI),
where a missing browser is an error: a browser test must never pass without a browser.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect
from student import HANG_TIMEOUT_MS, Student

from bench.load import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Every wait in the browser tests waits for a state (tests/e2e/student.py); its bound, HANG_TIMEOUT_MS
# (RBFVIZ_E2E_TIMEOUT), only catches a hang. It is also the bound of Playwright's expect() (5 s by
# default) and of a server's start (the first `import torch` on a busy machine).
TIMEOUT_MS = HANG_TIMEOUT_MS
STARTUP_TIMEOUT = HANG_TIMEOUT_MS / 1000
expect.set_options(timeout=TIMEOUT_MS)


# --- order ----------------------------------------------------------------------------------------


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "last_in_module: runs after every other test of its module (it stops what the module's tests share)",
    )


@pytest.hookimpl(trylast=True)  # after pytest's own reordering (by the fixtures tests share)
def pytest_collection_modifyitems(items):
    """A test marked ``last_in_module`` moves to just after its module's last other test."""
    for last in [item for item in items if item.get_closest_marker("last_in_module")]:
        items.remove(last)
        same = [i for i, item in enumerate(items) if item.module is last.module]
        items.insert(same[-1] + 1 if same else len(items), last)


# --- the browser ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        reason = (
            f"no Chromium at {path} (set CHROMIUM_PATH, or `apt-get install -y chromium`); "
            "Playwright's own browser download is not used"
        )
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


@pytest.fixture(scope="session")
def shared_context(browser, browser_context_args):
    context = browser.new_context(**browser_context_args)
    yield context
    context.close()


@pytest.fixture
def context(shared_context):
    """pytest-playwright's ``context`` (and so ``page``), shared by the session's tests: its HTTP cache
    keeps Streamlit's content-hashed code bundles, so a page loads each once per session instead of once
    per test (less work, and fewer requests to a busy server). Each test gets its own page (``page``);
    at its end every page of the context is closed and cookies and storage are cleared, so no test sees
    another's state. A test that needs a context of its own (touch input, a second student) makes one."""
    yield shared_context
    for page in shared_context.pages:
        try:
            page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
        except Exception:  # noqa: BLE001 — a page that crashed or is still navigating has nothing to clear
            pass
        page.close()
    shared_context.clear_cookies()
    shared_context.clear_permissions()


# --- the server -----------------------------------------------------------------------------------


def _start(name: str) -> ServerProcess:
    """`streamlit run app.py` on a free port (bench/load.py's ServerProcess), healthy, logging to
    artifacts/. ``server.hold_rest``: while a test keeps a file there, the server holds back the rest of
    a new setting's σ levels (ui.hold_rest.ENV); nobody creates it otherwise."""
    from ui.hold_rest import ENV as HOLD_REST_ENV  # here: importing Streamlit at collection logs warnings

    ARTIFACTS.mkdir(exist_ok=True)
    hold = Path(tempfile.gettempdir()) / f"rbfviz-e2e-hold-rest-{os.getpid()}-{name}"
    hold.unlink(missing_ok=True)
    server = ServerProcess(ARTIFACTS / f"e2e-server-{name}.log", env={HOLD_REST_ENV: str(hold)})
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


# --- the student ----------------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so the ``student`` fixture knows at teardown
    whether the test failed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


# RBFVIZ_E2E_SCREENSHOTS=all: a screenshot of every test's last state, not only of a failed test's
SCREENSHOT_EVERY_TEST = os.environ.get("RBFVIZ_E2E_SCREENSHOTS") == "all"


@pytest.fixture
def student(page, request):
    """A browser tab driven like a student would. When the test failed (or with
    RBFVIZ_E2E_SCREENSHOTS=all), a screenshot of its last state is saved on teardown
    (artifacts/screenshots/<test name>.png). Only then: a whole-page screenshot makes Plotly lay out
    every figure again at a tall viewport, a cost every passing test would pay for nothing."""
    page.set_default_timeout(TIMEOUT_MS)
    who = Student(page, SCREENSHOTS, re.sub(r"\W+", "_", request.node.name).strip("_"))
    yield who
    call = getattr(request.node, "rep_call", None)
    if not (SCREENSHOT_EVERY_TEST or call is None or call.failed):
        return
    try:
        who.screenshot()
    except Exception as exc:  # noqa: BLE001 — a failed screenshot must not hide the test's result
        print(f"screenshot of {who.name} failed: {exc}")
