"""The documentation site served by the app: the Home page's link leads to it, in Chromium, and every file
type it needs arrives with its content type (Streamlit's static file serving, server.enableStaticServing).

Needs the built site (`mkdocs build`, static/docs/): skipped with the reason where it is missing, a failure
in CI (CI=true), whose docs step builds it before the tests."""

from __future__ import annotations

import re
import urllib.request
from urllib.parse import urljoin

import pytest

pytestmark = pytest.mark.e2e


def _get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=60) as answer:
        return answer.status, answer.headers.get("Content-Type", ""), answer.read()


def test_home_links_to_the_site_and_the_app_serves_it(server, student, built_site):
    student.open(server.url + "/")
    link = student.page.get_by_role("link", name="Open the documentation")
    href = link.get_attribute("href")
    assert href == "app/static/docs/index.html"
    url = urljoin(student.page.url, href)

    status, kind, body = _get(url)
    assert status == 200 and kind.startswith("text/html")
    assert body == (built_site / "index.html").read_bytes()

    # its stylesheets, scripts and images arrive with their types (nosniff: a wrong one breaks them)
    html = body.decode("utf-8")
    assets = {
        ".css": re.search(r'href="(assets/stylesheets/[^"]+\.css)"', html).group(1),
        ".js": re.search(r'src="(assets/javascripts/bundle[^"]+\.js)"', html).group(1),
        ".png": re.search(r'src="(images/[^"]+\.png)"', html).group(1),
    }
    expected = {".css": "text/css", ".js": "javascript", ".png": "image/png"}
    for suffix, asset in assets.items():
        status, kind, _ = _get(urljoin(url, asset))
        assert status == 200 and expected[suffix] in kind, (asset, kind)

    # and Chromium shows the site: its title and its navigation to the five sections
    student.page.goto(url)
    assert "rbfviz" in student.page.title()
    for section in ("Teach with it", "Deploy it", "The maths", "The library and CLI", "Contribute"):
        assert student.page.get_by_role("link", name=section).count() >= 1, section
    # the search runs in the page from the site's own index (no service, no internet)
    student.page.locator("label.md-search__icon, .md-search__input").first.click()
    # typed key by key: the theme searches on key events, which fill() does not send
    student.page.locator("input.md-search__input").press_sequentially("presenter mode")
    student.page.locator(".md-search-result__item").first.wait_for()
