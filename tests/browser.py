"""The browser for every browser test (tests/e2e, and tests/deploy's through the proxy and compose):
Debian's Chromium, one shared browser context, the ``student`` fixture, a screenshot on failure.
A pytest plugin, registered by tests/conftest.py.

* ``chromium_path``   the system Chromium (harness.chromium); missing: skipped with the reason, or an
                      error under RBFVIZ_REQUIRE_BROWSER=1 (CI): a browser test must never pass without one.
* ``context``         one browser context for the session (shared HTTP cache), cleaned after each test.
* ``page``            the context's kept page: one tab that the tests take in turn (see ``kept_page``).
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
    per test (less work, and fewer requests to a busy server). Each test takes the context's kept page
    (``page``, ``kept_page``); at its end every other page of the context is closed and cookies and
    storage are cleared, so no test sees another's state. A test that needs other browser settings (a
    phone, a language) takes a page from ``pooled_page``; one that needs a context of its own (a second
    student at once) makes one."""
    yield shared_context
    _clean(shared_context)


def _clean(context) -> None:
    """Close every page of ``context`` but its kept page (``kept_page``) and forget its cookies, storage
    and permissions; its HTTP cache stays."""
    kept = _KEPT.get(context)
    for page in context.pages:
        if page is kept:
            continue
        try:
            page.evaluate(CLEAR_STORAGE_JS)
        except Exception:  # noqa: BLE001 — a page that crashed or is still navigating has nothing to clear
            pass
        page.close()
    context.clear_cookies()
    context.clear_permissions()


# --- the kept page ------------------------------------------------------------------------------------
# A tab's renderer keeps the scripts it has compiled across navigations: loading a view again in the same
# tab costs Chromium about 1.2 CPU-s, in a new tab of the same context 2.5 CPU-s, in a new context 3.2
# CPU-s (Explorer, measured with bench-like fresh loads). So each browser context keeps one tab that its
# tests take in turn. Between tests it forgets everything a test could leave behind: it is on
# about:blank, with no listeners, storage or cookies, the context's viewport and media, the pointer out
# of the window. What a navigation cannot undo (an init script, a route, an exposed function, a CDP
# session) makes the tab a throw-away one: it is closed after its test, as is the tab of a failed test.

_KEPT: dict = {}  # browser context -> its kept page
CLEAR_STORAGE_JS = "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }"
# Page methods whose effect outlives a navigation and cannot be undone
_LASTING = (
    "add_init_script",
    "route",
    "route_from_har",
    "expose_function",
    "expose_binding",
    "set_extra_http_headers",
)
# what Playwright's contexts emulate unless told otherwise (emulate_media's reset values)
_MEDIA_DEFAULTS = {
    "color_scheme": "light",
    "reduced_motion": "no-preference",
    "forced_colors": "none",
    "contrast": "no-preference",
    "media": "null",
}


def _watch(page, context_args: dict) -> None:
    """Wrap ``page``'s methods whose effects must be undone (listeners, media) or make it a throw-away."""
    page._rbfviz_lasting = False
    page._rbfviz_listeners = []
    page._rbfviz_media = set()
    page._rbfviz_args = context_args

    def lasting(method):
        def call(*args, **kwargs):
            page._rbfviz_lasting = True
            return method(*args, **kwargs)

        return call

    def listening(method):
        def call(event, handler):
            page._rbfviz_listeners.append((event, handler))
            return method(event, handler)

        return call

    def emulating(method):
        def call(**kwargs):
            page._rbfviz_media.update(kwargs)
            return method(**kwargs)

        return call

    for name in _LASTING:
        setattr(page, name, lasting(getattr(page, name)))
    page.on, page.once = listening(page.on), listening(page.once)
    page.emulate_media = emulating(page.emulate_media)


def _watch_context(context) -> None:
    """A CDP session can change a tab for good (emulation, throttling): its tab becomes a throw-away."""
    new_cdp_session = context.new_cdp_session

    def call(page, *args, **kwargs):
        page._rbfviz_lasting = True
        return new_cdp_session(page, *args, **kwargs)

    context.new_cdp_session = call


def kept_page(context, context_args: dict):
    """``context``'s kept page, made (and watched) if it has none; ``None`` while a test holds it."""
    page = _KEPT.get(context)
    if page is None or page.is_closed():
        if context not in _KEPT:
            _watch_context(context)
        page = context.new_page()
        Student.prepare(page)  # the send log's init script, before the page is watched
        _watch(page, context_args)
        page._rbfviz_taken = False
        _KEPT[context] = page
    if page._rbfviz_taken:
        return None
    page._rbfviz_taken = True
    return page


def give_back(page, failed: bool) -> None:
    """The test is done with its kept page: reset it for the next test, or close it (see above)."""
    page._rbfviz_taken = False
    if page.is_closed():
        return
    if failed or page._rbfviz_lasting or not _reset(page):
        page.close()


def _reset(page) -> bool:
    """Undo what a test did to the tab; False if the tab cannot be trusted any more."""
    try:
        for event, handler in page._rbfviz_listeners:
            page.remove_listener(event, handler)
        page._rbfviz_listeners.clear()
        page.mouse.move(-1, -1)  # out of the window: no element of the next page starts hovered
        page.evaluate(CLEAR_STORAGE_JS)
        page.goto("about:blank")
        args = page._rbfviz_args
        if page._rbfviz_media:
            page.emulate_media(**{name: args.get(name, _MEDIA_DEFAULTS[name]) for name in page._rbfviz_media})
            page._rbfviz_media.clear()
        viewport = args.get("viewport")
        if viewport and page.viewport_size != viewport:
            page.set_viewport_size(viewport)
        page.set_default_timeout(HANG_TIMEOUT_MS)
        page.set_default_navigation_timeout(HANG_TIMEOUT_MS)
    except Exception as exc:  # noqa: BLE001 — a crashed or hung tab is replaced, not kept
        print(f"the kept page could not be reset, so it is closed: {exc}")
        return False
    return True


@pytest.fixture(scope="session")
def _context_pool(browser):
    """Browser contexts by their settings, each made once per session (pytest-xdist worker)."""
    pool: dict[str, object] = {}
    yield pool
    for context in pool.values():
        context.close()


@pytest.fixture
def pooled_page(browser, _context_pool, request):
    """``pooled_page(**context_args)``: the kept page (``kept_page``) of a browser context with those
    settings (a phone's viewport and touch, a locale), shared by the tests that ask for the same
    settings, as ``context`` is: its HTTP cache stays, and at the test's end its other pages are closed
    and its cookies and storage cleared."""
    used: set[str] = set()
    taken = []

    def new_page(**context_args):
        key = json.dumps(context_args, sort_keys=True)
        if key not in _context_pool:
            _context_pool[key] = browser.new_context(**context_args)
        used.add(key)
        page = kept_page(_context_pool[key], context_args)
        if page is None:  # this test holds the kept page already: a second tab of its own
            return _context_pool[key].new_page()
        taken.append(page)
        return page

    yield new_page
    call = getattr(request.node, "rep_call", None)
    for page in taken:
        give_back(page, failed=call is None or call.failed)
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
def page(context, browser_context_args, request):
    """pytest-playwright's ``page``: the shared context's kept page (``kept_page``), or a new tab when a
    test asks for a second one."""
    page = kept_page(context, browser_context_args)
    if page is None:
        yield context.new_page()
        return
    yield page
    call = getattr(request.node, "rep_call", None)
    give_back(page, failed=call is None or call.failed)


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
