"""Open the app in an AppTest, as every test in tests/app does.

    at = open_page("pages/1_Explorer.py", {"dataset": "moons"})   # the page, run, without an exception
    at = open_page(PAGE, query, check=False)                     # the test looks at exceptions itself
    at = app({"n": "6"}); at.run()                               # the home page, or switch pages yourself

AppTest runs the scripts without a browser; its timeout (tests/hang.py) only catches a hang (a cold
``import torch``, a heavy page on a busy machine). The pages are ui.page.PAGES: tests that cover every
page take them from there (``PAGE_PATHS``), so a new page is tested without editing a list.
"""

from __future__ import annotations

from hang import HANG_TIMEOUT_S
from streamlit.testing.v1 import AppTest

from harness.settings import APP as APP_PATH
from ui.page import PAGES

APP = str(APP_PATH)
PAGE_PATHS = [path for path, _, _ in PAGES]  # every page of the app's menu, in menu order


def app(query: dict | None = None) -> AppTest:
    """A new AppTest of app.py (the home page) with ``query`` in its address, not run yet."""
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
    if query:
        at.query_params.update(query)
    return at


def open_page(page: str, query: dict | None = None, *, check: bool = True) -> AppTest:
    """``page`` (a path such as "pages/1_Explorer.py") opened with ``query`` in its address and run; with
    ``check``, the run raised no exception."""
    at = app(query)
    at.switch_page(page).run()
    if check:
        assert not at.exception, at.exception
    return at


def ok(at: AppTest) -> None:
    """The last run raised no exception and showed no error box."""
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
