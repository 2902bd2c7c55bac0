"""A classroom without internet: every page of the app and every page of the documentation it serves,
opened in Chromium with every request to a host other than the app's (127.0.0.1) refused by a Playwright
route. Each page asks for nothing outside, fails no request, gets no HTTP error, logs no console error
and no uncaught exception, and shows its content (a heading; its images decoded; the tour notebook's
formulas as MathML). The documentation's search also works from file://, where browsers start no web
worker (Material's offline plugin and the iframe-worker shim served with the site, mkdocs.yml).

Needs the built site (`mkdocs build`, static/docs/): skipped with the reason where it is missing, a
failure in CI (CI=true), whose docs step builds it before the tests."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import pytest

from harness.settings import DOCS_SITE
from harness.student import HANG_TIMEOUT_MS, Student
from ui.page import PAGES

pytestmark = pytest.mark.e2e

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
QUIET_S = 0.15  # no request in flight for this long: the page has asked for all it asks for
SCRUBBED = {"Explorer", "Annealing", "Stability", "Equivalence"}
APP_PAGES = ["", *(path.split("_", 1)[1].removesuffix(".py") for path, _, _ in PAGES)]
# Streamlit's front end, opened at /<Page>, first asks for /<Page>/_stcore/health and host-config (the
# app might be served under that path), gets 404 and then uses /_stcore/: its way of finding the
# server's base path, not a broken page. Only exactly those two answers are forgiven.
BASE_PATH_PROBE = re.compile(r"^404 http://[^/]+/[A-Za-z_]+/_stcore/(health|host-config)$")
BASE_PATH_PROBE_LOG = re.compile(
    r"^Failed to load resource: .* 404 .*'url': 'http://[^/]+/[A-Za-z_]+/_stcore/(health|host-config)'"
)
# every <img> decoded: a broken image has no natural size
_BROKEN_IMAGES_JS = """() => [...document.images].filter((i) => !i.complete || i.naturalWidth === 0)
  .map((i) => i.getAttribute('src'))"""


def _site_pages() -> list[str]:
    if not (DOCS_SITE / "index.html").is_file():
        return []
    return sorted(str(p.relative_to(DOCS_SITE)) for p in DOCS_SITE.rglob("*.html") if p.name != "404.html")


class Offline:
    """A browser context with no internet: requests to another host are refused and recorded; failed
    requests, HTTP errors, console errors and uncaught exceptions are recorded too. The module's tests
    share it (its HTTP cache keeps the theme's and Streamlit's assets); ``reset`` starts a test's
    records afresh and ``clean`` closes its pages."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1366, "height": 768})
        self.context.set_default_timeout(HANG_TIMEOUT_MS)
        self.reset()
        self.in_flight: set = set()
        self.last_change = time.monotonic()
        self.context.route("**/*", self._route)
        self.context.on("request", lambda r: self._flight(self.in_flight.add, r))
        self.context.on("requestfinished", lambda r: self._flight(self.in_flight.discard, r))
        self.context.on("requestfailed", self._failed)
        self.context.on(
            "response", lambda r: r.status >= 400 and self.http_errors.append(f"{r.status} {r.url}")
        )
        self.context.on(
            "console", lambda m: m.type == "error" and self.console_errors.append(f"{m.text} ({m.location})")
        )
        self.context.on("weberror", lambda e: self.console_errors.append(f"uncaught: {e.error}"))

    def reset(self) -> None:
        self.outside: list[str] = []
        self.failed: list[str] = []
        self.http_errors: list[str] = []
        self.console_errors: list[str] = []

    def _flight(self, change, request) -> None:
        change(request)
        self.last_change = time.monotonic()

    def _route(self, route) -> None:
        url = urlsplit(route.request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in LOCAL_HOSTS:
            self.outside.append(route.request.url)
            route.abort("internetdisconnected")
        else:
            route.continue_()

    def _failed(self, request) -> None:
        self._flight(self.in_flight.discard, request)
        if request.url not in self.outside:
            self.failed.append(f"{request.method} {request.url}: {request.failure}")

    def wait_for_quiet_network(self, page) -> None:
        """Wait until no request has been in flight for QUIET_S: the requests a page's scripts make
        after its load event (fonts, the search index) have been asked, answered or refused.
        Playwright's "networkidle" waits the same way with a fixed 500 ms."""
        deadline = time.monotonic() + HANG_TIMEOUT_MS / 1000
        while self.in_flight or time.monotonic() - self.last_change < QUIET_S:
            assert time.monotonic() < deadline, f"requests still in flight: {[r.url for r in self.in_flight]}"
            page.wait_for_timeout(25)  # lets Playwright deliver the context's request events

    def problems(self) -> dict[str, list[str]]:
        found = {
            "asked outside": self.outside,
            "failed requests": self.failed,
            "HTTP errors": [e for e in self.http_errors if not BASE_PATH_PROBE.match(e)],
            "console errors": [e for e in self.console_errors if not BASE_PATH_PROBE_LOG.match(e)],
        }
        return {kind: items for kind, items in found.items() if items}

    def clean(self) -> None:
        """Close the test's pages and forget its cookies (the HTTP cache stays)."""
        for page in self.context.pages:
            page.close()
        self.context.clear_cookies()
        self.in_flight.clear()


@pytest.fixture(scope="module")
def offline_context(browser):
    context = Offline(browser)
    yield context
    context.context.close()


@pytest.fixture
def offline(offline_context):
    offline_context.reset()
    yield offline_context
    offline_context.clean()


@pytest.mark.parametrize("name", APP_PAGES, ids=lambda name: name or "Home")
def test_every_app_page_works_without_internet(server, offline, name):
    student = Student(offline.context.new_page())
    student.open(f"{server.url}/{name}")
    if name in SCRUBBED:
        student.wait_for_scrub()
    student.wait_for_layout()
    assert student.heading(), "no heading: the page shows nothing"
    student.assert_no_problems()
    assert offline.problems() == {}


@pytest.mark.parametrize("name", _site_pages() or ["index.html"])
def test_every_docs_page_works_without_internet(server, offline, built_site, name):
    page = offline.context.new_page()
    page.goto(f"{server.url}/app/static/docs/{name}", wait_until="load")
    offline.wait_for_quiet_network(page)
    assert page.locator("article h1").first.inner_text().strip(), "no heading: the page shows nothing"
    assert page.evaluate(_BROKEN_IMAGES_JS) == []
    if name == "library/tour.html":  # its TeX, drawn by the browser as MathML (no MathJax)
        assert page.locator("article math").count() >= 2
        assert "\\sigma" not in page.locator("article").inner_text()
    assert offline.problems() == {}


def _search(page, words: str) -> list[str]:
    page.locator("label.md-search__icon, .md-search__input").first.click()
    # typed key by key: the theme searches on key events, which fill() does not send
    page.locator("input.md-search__input").press_sequentially(words)
    page.locator(".md-search-result__item").first.wait_for()
    return page.locator(".md-search-result__item").all_inner_texts()


def test_search_works_from_the_disk_without_internet(offline, built_site):
    page = offline.context.new_page()
    page.goto((built_site / "index.html").as_uri(), wait_until="load")
    results = _search(page, "presenter mode")
    assert any("presenter" in r.lower() for r in results), results
    # a result leads to its page, also on the disk
    page.locator(".md-search-result__item a").first.click()
    page.wait_for_load_state("load")
    assert page.url.startswith("file://") and page.locator("article h1").count() == 1
    assert offline.problems() == {}
