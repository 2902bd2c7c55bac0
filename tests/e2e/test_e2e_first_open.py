"""A view's first open in a fresh browser: its page asks for Plotly's bundle itself (ui/preload.py),
the browser fetches it once (the preload and the import are one download) and draws the figure with
it; Lessons, which draws no figure, does not download Plotly."""

import pytest

from harness.student import HANG_TIMEOUT_MS

pytestmark = pytest.mark.e2e


def _first_open(browser, url: str):
    """A fresh context (empty cache) opening ``url``: (context, page, names of the .js files requested)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    requested = []
    page.on(
        "request", lambda r: requested.append(r.url.rsplit("/", 1)[-1]) if r.url.endswith(".js") else None
    )
    page.goto(url, timeout=HANG_TIMEOUT_MS)
    return context, page, requested


def test_a_view_asks_for_plotly_in_its_page_fetches_it_once_and_draws(server, browser):
    from ui.preload import PLOTLY, chunk_of  # here: importing Streamlit at collection logs warnings

    plotly = chunk_of(PLOTLY)
    context, page, requested = _first_open(browser, f"{server.url}/Explorer")
    try:
        html = page.request.get(f"{server.url}/Explorer").text()
        assert f'<link rel="preload" as="script" crossorigin href="./static/js/{plotly}">' in html
        assert f'import("./static/js/{plotly}")' in html
        page.wait_for_selector("[data-testid='stMain'] .js-plotly-plot .main-svg", timeout=HANG_TIMEOUT_MS)
        page.wait_for_timeout(500)
        assert requested.count(plotly) == 1, requested
        assert page.evaluate("typeof window.Plotly.react") == "function"
    finally:
        context.close()


def test_lessons_does_not_download_plotly(server, browser):
    from ui.preload import PLOTLY, chunk_of

    context, page, requested = _first_open(browser, f"{server.url}/Lessons")
    try:
        page.wait_for_selector("h1", timeout=HANG_TIMEOUT_MS)
        page.wait_for_timeout(1500)
        assert "PageLink" in " ".join(requested)  # its page did load the sidebar's code
        assert chunk_of(PLOTLY) not in requested, requested
    finally:
        context.close()
