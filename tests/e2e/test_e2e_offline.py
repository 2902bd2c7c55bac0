"""A classroom without internet: every page of the app and of the documentation it serves.

In Chromium, with every request to a host other than the app's (127.0.0.1) refused by a Playwright route:
every page of the app (opened one after the other from the sidebar), and one documentation page of each
kind (``DOCS_IN_THE_BROWSER``). Each asks for nothing outside, fails no request, gets no HTTP error,
logs no console error and no uncaught exception, and shows its content (a heading; its images decoded;
the tour notebook's formulas as MathML).

The documentation's pages differ in what a browser could fetch only through their resources (a script,
a style sheet, an image, a frame: read from the HTML) and their inline scripts. So every page is read:
each resource it names is on this server and exists in the built site; and one page of each set of
inline scripts (the theme's own on most pages; the home pages'; the tour notebook's) is opened in
Chromium, the one with the most images. The documentation's search also works from file://, where
browsers start no web worker (Material's offline plugin and the iframe-worker shim served with the
site, mkdocs.yml).

Needs the built site (`mkdocs build`, static/docs/): skipped with the reason where it is missing, a
failure in CI (CI=true), whose docs step builds it before the tests."""

from __future__ import annotations

import functools
import re
import time
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import pytest
from menu import walk_the_menu

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


# (tag, attribute) pairs whose URL a browser fetches as it shows the page (a link <a href> is not fetched)
FETCHED = {
    ("script", "src"),
    ("link", "href"),
    ("img", "src"),
    ("img", "srcset"),
    ("source", "src"),
    ("source", "srcset"),
    ("iframe", "src"),
    ("embed", "src"),
    ("object", "data"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("input", "src"),
}
FETCHED_LINKS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest", "apple-touch-icon"}
_BASE_PATH = re.compile(r'"(?:\.\./)*\.\.?"')  # "..", "../..": where the theme's scripts find the site root


class _PageReader(HTMLParser):
    """What a page makes a browser fetch (``fetched``: (tag, attribute, URL)), its inline scripts, its
    images."""

    def __init__(self):
        super().__init__()
        self.fetched: list[tuple[str, str, str]] = []
        self.scripts: list[str] = []
        self.images = 0
        self._script: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        self.images += tag == "img"
        if tag == "link" and not FETCHED_LINKS & set((values.get("rel") or "").lower().split()):
            return  # a canonical or alternate link names a page; the browser fetches nothing
        for attr, value in values.items():
            if (tag, attr) in FETCHED and value:
                urls = [part.split()[0] for part in value.split(",")] if attr == "srcset" else [value]
                self.fetched += [(tag, attr, url) for url in urls if url]
        if tag == "script" and not values.get("src"):
            self._script = []

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append("".join(self._script))
            self._script = None


@functools.cache
def _read(name: str) -> _PageReader:
    """The built page ``name``, read once per process."""
    reader = _PageReader()
    reader.feed((DOCS_SITE / name).read_text(encoding="utf-8"))
    return reader


def _script_kind(name: str) -> frozenset[str]:
    """The page's set of inline scripts, their relative base paths aside."""
    return frozenset(_BASE_PATH.sub('"BASE"', script) for script in _read(name).scripts)


def _docs_in_the_browser(pages: list[str]) -> list[str]:
    """One page per kind of inline scripts (``_script_kind``): the one with most images."""
    kinds: dict[frozenset, list[str]] = {}
    for name in pages:
        kinds.setdefault(_script_kind(name), []).append(name)
    return sorted(max(names, key=lambda name: (_read(name).images, name)) for names in kinds.values())


DOCS_PAGES = _site_pages()
DOCS_IN_THE_BROWSER = _docs_in_the_browser(DOCS_PAGES)


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


def test_every_app_page_works_without_internet(server, offline):
    """The home page opened, then every page of the menu in turn by its sidebar link, as a student goes:
    each page's own code, data and images are fetched as it opens (one page load for all of them)."""
    student = Student(offline.context.new_page())
    student.open(server.url)
    for name in walk_the_menu(student):
        if name in SCRUBBED:
            student.wait_for_scrub()
        student.wait_for_layout()
        where = name or "Home"
        assert student.heading(), f"{where}: no heading, the page shows nothing"
        student.assert_no_problems()
        assert offline.problems() == {}, where


@pytest.mark.parametrize("name", DOCS_PAGES or ["index.html"])
def test_every_docs_page_fetches_only_files_of_the_site(built_site, name):
    page = built_site / name
    outside, missing = [], []
    for tag, attr, url in _read(name).fetched:
        parts = urlsplit(url)
        if parts.scheme or parts.netloc:  # http://…, //…, data:…
            if parts.scheme != "data":
                outside.append(f"<{tag} {attr}={url!r}>")
        elif parts.path and not (page.parent / unquote(parts.path)).resolve().is_file():
            missing.append(f"<{tag} {attr}={url!r}>")
    assert outside == [], f"{name} makes the browser fetch from another host"
    assert missing == [], f"{name} names files the built site lacks"


def test_the_pages_opened_in_the_browser_cover_every_kind(built_site):
    """Every page's inline scripts are one of the sets opened in the browser; the home pages and the tour
    notebook in both languages are among them."""
    opened = {_script_kind(name) for name in DOCS_IN_THE_BROWSER}
    for name in DOCS_PAGES:
        assert _script_kind(name) in opened, name
    assert {"index.html", "library/tour.html", "pt-BR/index.html", "pt-BR/library/tour.html"} <= set(
        DOCS_IN_THE_BROWSER
    )


@pytest.mark.parametrize("name", DOCS_IN_THE_BROWSER or ["index.html"])
def test_docs_pages_work_without_internet(server, offline, built_site, name):
    page = offline.context.new_page()
    page.goto(f"{server.url}/app/static/docs/{name}", wait_until="load")
    offline.wait_for_quiet_network(page)
    assert page.locator("article h1").first.inner_text().strip(), "no heading: the page shows nothing"
    assert page.evaluate(_BROKEN_IMAGES_JS) == []
    if name.endswith("library/tour.html"):  # its TeX, drawn by the browser as MathML (no MathJax)
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
