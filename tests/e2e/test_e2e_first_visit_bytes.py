"""A first visit of every page costs at most 3 MB on the wire, and a second visit in the same browser
almost nothing.

What is counted: every byte the server writes to the browser's connections during the visit
(harness/byte_counter.py relays them): the HTTP answers with their headers, compressed as sent
(ui/compression.py: gzip made by the process, or the image's precompressed files; the font subsets of
ui/font_subsets.py), and the websocket's frames, compressed by permessage-deflate
(.streamlit/config.toml), until the page has finished its run and nothing more arrives (the rest of a
view's σ levels included). The browser is a fresh context (empty cache, no cookie) at laptop size;
docs/contribute/benchmarks.md has the figures per page.
"""

from __future__ import annotations

import time

import pytest
from menu import MENU

from harness.byte_counter import ByteCounter
from harness.student import HANG_TIMEOUT_MS

pytestmark = pytest.mark.e2e

FIRST_VISIT_BYTES = 3_000_000
SECOND_VISIT_HTTP_BYTES = 50_000
QUIET_SECONDS = 2.0  # nothing sent for this long: the visit is over
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


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
    context = browser.new_context(viewport={"width": 1366, "height": 768})
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
    and the health and configuration answers only. (Its websocket carries the page's elements again.)"""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    try:
        page.goto(f"{server.url}/Explorer", timeout=HANG_TIMEOUT_MS)
        page.wait_for_selector("[data-testid='stMain'] .js-plotly-plot .main-svg", timeout=HANG_TIMEOUT_MS)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        http = {}
        cdp.on("Network.loadingFinished", lambda e: http.__setitem__(e["requestId"], e["encodedDataLength"]))
        page.goto(f"{server.url}/Explorer", timeout=HANG_TIMEOUT_MS)
        page.wait_for_selector("[data-testid='stMain'] .js-plotly-plot .main-svg", timeout=HANG_TIMEOUT_MS)
        page.wait_for_timeout(500)
    finally:
        context.close()
    assert 0 < sum(http.values()) <= SECOND_VISIT_HTTP_BYTES, http
