"""Plotly's bundle on a first open (ui.scrub.preload_plotly): a view's first element starts loading it
(the import is the preloader's, not the figure's), and the page loads it once; Home, whose first
screen has no figure, does not load it at all. The element that starts it takes no room on the page.
What it saves in time is measured by bench/bench_first_open.py."""

import pytest

from harness.student import HANG_TIMEOUT_MS, Student

pytestmark = pytest.mark.e2e

# Streamlit's Plotly bundle as the page fetched it: [start, end] of each request (ms, page clock)
_PLOTLY_REQUESTS_JS = """() => performance.getEntriesByType("resource")
  .filter((r) => /\\/PlotlyChart\\.[^/]*\\.js$/.test(r.name)).map((r) => [r.startTime, r.responseEnd])"""


def _fresh(browser, name: str) -> Student:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    student = Student(context.new_page(), None, name)
    student.page.set_default_timeout(HANG_TIMEOUT_MS)
    return student


def test_a_view_loads_plotly_early_and_once(server, browser):
    student = _fresh(browser, "preload_explorer")
    try:
        student.open(f"{server.url}/Explorer")
        student.wait_for_scrub()
        requests = student.page.evaluate(_PLOTLY_REQUESTS_JS)
        assert len(requests) == 1, requests
        assert student.page.evaluate("() => window.__rbfvizPlotlyPreload instanceof Promise")
        hidden = student.page.locator(".st-key-plotly_preload")
        assert hidden.count() == 1 and not hidden.is_visible()
        student.assert_no_problems()
    finally:
        student.page.context.close()


def test_home_does_not_load_plotly(server, browser):
    student = _fresh(browser, "preload_home")
    try:
        student.open(f"{server.url}/")
        assert student.page.evaluate(_PLOTLY_REQUESTS_JS) == []
        assert student.page.locator(".st-key-plotly_preload").count() == 0
        student.assert_no_problems()
    finally:
        student.page.context.close()
