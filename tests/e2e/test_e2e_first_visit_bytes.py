"""A first visit of every page costs at most 3 MB on the wire, and a second visit in the same browser
almost nothing.

What is counted: every byte the server writes to the browser's connections during the visit
(harness/byte_counter.py relays them): the HTTP answers with their headers, compressed as sent
(ui/compression.py: gzip made by the process, or the image's precompressed files; the font subsets of
ui/font_subsets.py), and the websocket's frames, compressed by permessage-deflate
(.streamlit/config.toml), until the page has finished its run and nothing more arrives (the rest of a
view's σ levels included). The browser is a fresh context (empty cache, no cookie) at laptop size,
accepting gzip but not Brotli, as Chromium asks over plain HTTP from another machine (to localhost it
offers Brotli too); docs/contribute/benchmarks.md has the figures per page.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from menu import MENU
from PIL import Image

from harness.byte_counter import ByteCounter
from harness.student import HANG_TIMEOUT_MS

pytestmark = pytest.mark.e2e

FIRST_VISIT_BYTES = 3_000_000
# what Chromium accepts over plain HTTP (Brotli it offers only over HTTPS and to localhost)
PLAIN_HTTP = {"Accept-Encoding": "gzip, deflate"}
SECOND_VISIT_HTTP_BYTES = 50_000
QUIET_SECONDS = 2.0  # nothing sent for this long: the visit is over
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
FIGURE = "[data-testid='stMain'] .js-plotly-plot .main-svg"


def _visit(page, relay: ByteCounter, path: str) -> None:
    """Open ``path`` through ``relay`` and return once the run is done and the server has sent nothing
    for QUIET_SECONDS (bounded by the hang timeout)."""
    page.goto(f"{relay.url}/{path}", timeout=HANG_TIMEOUT_MS)
    page.wait_for_selector(IDLE, timeout=HANG_TIMEOUT_MS)
    deadline = time.monotonic() + HANG_TIMEOUT_MS / 1000
    last, since = relay.sent, time.monotonic()
    while time.monotonic() - since < QUIET_SECONDS:
        assert time.monotonic() < deadline, f"/{path} kept sending: {relay.sent:,} bytes so far"
        time.sleep(0.25)
        if relay.sent != last:
            last, since = relay.sent, time.monotonic()


@pytest.mark.parametrize("path", ["", *(name for name, _ in MENU)], ids=lambda p: p or "Home")
def test_a_first_visit_sends_at_most_3_mb(server, browser, path):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, extra_http_headers=PLAIN_HTTP)
    page = context.new_page()
    try:
        with ByteCounter("127.0.0.1", server.port) as relay:
            _visit(page, relay, path)
            sent, connections = relay.sent, relay.connections
            assert page.locator("[data-testid='stException']").count() == 0
    finally:
        context.close()
    assert connections >= 2  # the page and its websocket went through the relay
    assert sent <= FIRST_VISIT_BYTES, f"/{path}: a first visit sent {sent:,} bytes"


def test_a_second_visit_fetches_almost_nothing_over_http(server, browser):
    """Streamlit's files, compressed or cut, are cached "immutable": a second visit asks for the page
    and the health and configuration answers only. (Its websocket carries the page's elements again.)
    The first visit is over first (its run done, nothing sent for QUIET_SECONDS): the chunks a page asks
    for after its figure are in the cache only once they have arrived."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    try:
        with ByteCounter("127.0.0.1", server.port) as relay:
            _visit(page, relay, "Explorer")
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            http = {}
            cdp.on(
                "Network.loadingFinished",
                lambda e: http.__setitem__(e["requestId"], e["encodedDataLength"]),
            )
            page.goto(f"{relay.url}/Explorer", timeout=HANG_TIMEOUT_MS)
            page.wait_for_selector(FIGURE, timeout=HANG_TIMEOUT_MS)
            page.wait_for_timeout(500)
    finally:
        context.close()
    assert 0 < sum(http.values()) <= SECOND_VISIT_HTTP_BYTES, http


def _home_drawn(browser, url: str, whole_fonts: bool) -> tuple[np.ndarray, list[str]]:
    """The Home page (upright, italic and code text, icons, formulas) as drawn, and the font faces it
    loaded; with ``whole_fonts`` the browser gets Streamlit's own font files instead of the subsets."""
    from ui.font_subsets import STREAMLIT_STATIC  # here: importing Streamlit at collection logs warnings

    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    if whole_fonts:
        page.route(
            "**/static/media/*.woff2",
            lambda route: route.fulfill(
                status=200,
                content_type="font/woff2",
                body=(STREAMLIT_STATIC / "media" / route.request.url.rsplit("/", 1)[1]).read_bytes(),
            ),
        )
    try:
        page.goto(url, timeout=HANG_TIMEOUT_MS)
        page.wait_for_selector(IDLE, timeout=HANG_TIMEOUT_MS)
        page.evaluate("document.fonts.ready")
        page.wait_for_timeout(1000)
        faces = page.evaluate(
            "[...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family + ' ' + f.style)"
        )
        png = page.screenshot()
    finally:
        context.close()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int), sorted(faces)


def test_the_font_subsets_draw_the_page_as_streamlits_fonts_do(server, browser):
    """Glyph for glyph the same (tests/unit/test_font_subsets.py); on screen, a few ligatures' edges are
    anti-aliased a shade differently (docs/tools/fonts.py): at most 0.05 % of the pixels differ."""
    subsets, faces = _home_drawn(browser, server.url, whole_fonts=False)
    whole, whole_faces = _home_drawn(browser, server.url, whole_fonts=True)
    assert faces == whole_faces
    assert {"Material Symbols Rounded normal", "Source Sans normal", "Source Sans italic"} <= set(faces)
    differ = int((np.abs(subsets - whole).max(axis=2) > 0).sum())
    assert subsets.shape == whole.shape and differ <= 0.0005 * subsets.shape[0] * subsets.shape[1], differ
