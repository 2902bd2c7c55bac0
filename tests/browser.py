"""The browser for every browser test (tests/e2e, and tests/deploy's through the proxy and compose):
Debian's Chromium, one shared browser context, the ``student`` fixture, a screenshot on failure.
A pytest plugin, registered by tests/conftest.py.

* ``chromium_path``   the system Chromium (harness.chromium); missing: skipped with the reason, or an
                      error under RBFVIZ_REQUIRE_BROWSER=1 (CI): a browser test must never pass without one.
* ``context``         one browser context for the session (shared HTTP cache), cleaned after each test.
* ``student``         a Playwright page wrapped in ``Student`` (harness/student.py); when its test
                      failed it saves a screenshot to artifacts/screenshots/<test name>.png.
* mark ``last_in_module``: the test runs after every other test of its module.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from harness import settings
from harness.chromium import CHROMIUM_ARGS, missing_chromium
from harness.student import HANG_TIMEOUT_MS, Student

SCREENSHOTS = settings.ARTIFACTS / "screenshots"
# Every wait in the browser tests waits for a state (harness/student.py); its bound, HANG_TIMEOUT_MS
# (RBFVIZ_E2E_TIMEOUT), only catches a hang. It is also the bound of Playwright's expect() (5 s by
# default).
expect.set_options(timeout=HANG_TIMEOUT_MS)


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


@pytest.fixture(scope="session")
def chromium_path() -> str:
    reason = missing_chromium()
    if reason is not None:
        if settings.require_browser():
            pytest.fail(f"RBFVIZ_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    return settings.chromium_path()


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
    another's state. A test that needs other browser settings (a phone, a language) takes a page from
    ``pooled_page``; one that needs a context of its own (a second student at once) makes one."""
    yield shared_context
    _clean(shared_context)


def _clean(context) -> None:
    """Close every page of ``context`` and forget its cookies, storage and permissions; its HTTP cache
    stays."""
    for page in context.pages:
        try:
            page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
        except Exception:  # noqa: BLE001 — a page that crashed or is still navigating has nothing to clear
            pass
        page.close()
    context.clear_cookies()
    context.clear_permissions()


@pytest.fixture(scope="session")
def _context_pool(browser):
    """Browser contexts by their settings, each made once per session (pytest-xdist worker)."""
    pool: dict[str, object] = {}
    yield pool
    for context in pool.values():
        context.close()


@pytest.fixture
def pooled_page(browser, _context_pool):
    """``pooled_page(**context_args)``: a new page in a browser context with those settings (a phone's
    viewport and touch, a locale), shared by the tests that ask for the same settings, as ``context``
    is: its HTTP cache stays, and at the test's end its pages are closed and its cookies and storage
    cleared."""
    used: set[str] = set()

    def new_page(**context_args):
        key = json.dumps(context_args, sort_keys=True)
        if key not in _context_pool:
            _context_pool[key] = browser.new_context(**context_args)
        used.add(key)
        return _context_pool[key].new_page()

    yield new_page
    for key in used:
        _clean(_context_pool[key])


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so the ``student`` fixture knows at teardown
    whether the test failed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def student(page, request):
    """A browser tab driven like a student would. When the test failed (or with
    RBFVIZ_E2E_SCREENSHOTS=all), a screenshot of its last state is saved on teardown
    (artifacts/screenshots/<test name>.png). Only then: a whole-page screenshot makes Plotly lay out
    every figure again at a tall viewport, a cost every passing test would pay for nothing."""
    page.set_default_timeout(HANG_TIMEOUT_MS)
    who = Student(page, SCREENSHOTS, re.sub(r"\W+", "_", request.node.name).strip("_"))
    yield who
    call = getattr(request.node, "rep_call", None)
    if not (settings.screenshot_every_test() or call is None or call.failed):
        return
    try:
        who.screenshot()
    except Exception as exc:  # noqa: BLE001 — a failed screenshot must not hide the test's result
        print(f"screenshot of {who.name} failed: {exc}")
