"""A new setting: the figure at the σ on screen comes first, the other σ levels follow by themselves.

The server sends the scrubber twice in the first run of a new setting (ui.scrub_parts.scrub_payload): the
levels within ``NEAR`` grid steps of the σ on screen, then every level. On an idle server the second
comes a fraction of a second after the first; a class keeps it longer in coming (the rests are built one
at a time). To look at the first part for as long as a class would, without a hold for a fixed time
(too short on a busy machine), the test holds the rest twice, each until it lets go:

* on the server (``server.hold_rest``, ui.hold_rest.ENV): the rest is not built until the
  browser has drawn the first part, so the complete payload never replaces a first part not yet drawn;
* in the page: the decoding of every payload after the first waits for ``RELEASE_JS`` (the decode of
  the σ payload is the only URL-less Response the page reads).

Checked in the browser:

* the figure appears with the levels of the first part only: the slider spans them, a line beside it
  (the slider's description) names them and says the others are coming;
* an arrow key works at once inside them (drawn in the browser), and its settle commits the grid σ;
* then the rest arrives by itself: the slider spans the whole σ grid, the line goes away, the σ on
  screen and the keyboard focus stay; the keyboard then reaches levels outside the first part, and a
  settle commits the grid σ drawn (address and downloads follow), as on a warm setting.

Screenshots of the first part, 1280×800 and 1920×1080: artifacts/screenshots/ (RBFVIZ_E2E_SCREENSHOTS=all).
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from harness.student import SCRUB_RANGE
from ui import compute
from ui.scrub_parts import NEAR
from ui.state import parse_query

pytestmark = pytest.mark.e2e

OWN = dict(dataset="blobs", n="500", noise="1.5", seed="4242", k="4", init="kmeanspp", kind="softmax")
STATUS = "p.scrub-status"
HOLD_LATER_PAYLOADS = """(() => {
  window.__payloads = 0;
  const released = new Promise((resolve) => { window.__releasePayloads = resolve; });
  const arrayBuffer = Response.prototype.arrayBuffer;
  Response.prototype.arrayBuffer = async function () {
    const out = await arrayBuffer.call(this);
    if (this.url === "" && ++window.__payloads > 1) await released;
    return out;
  };
})()"""
RELEASE_JS = "() => window.__releasePayloads()"


def grid(query: dict) -> list[float]:
    ctrl, notices = parse_query(query)
    assert notices == []
    return [float(s) for s in compute.scale(ctrl).grid]


def text(sigma: float) -> str:
    return f"{sigma:.3g}"


def test_a_new_setting_shows_its_figure_first_then_scrubs_every_level(server, student):
    sigmas = grid(OWN)
    student.page.add_init_script(HOLD_LATER_PAYLOADS)
    student.page.set_viewport_size({"width": 1280, "height": 800})
    server.hold_rest.touch()
    try:
        student.page.goto(f"{server.url}/Explorer?{urlencode(OWN)}")
        student.page.locator(STATUS).wait_for(state="visible")  # the first part: slow on a busy machine
        first = student.wait_for_scrub(complete=False)
    finally:
        server.hold_rest.unlink(missing_ok=True)  # the server builds the rest and sends it
    # the first run has finished with the rest sent, its decoding held in the page: the settle below is a
    # rerun of its own, never one that interrupts the first run while it builds the rest
    student.page.wait_for_function("() => window.__payloads >= 2")
    student.wait_for_run()
    near = first["level"]
    window = list(range(max(0, near - NEAR), min(len(sigmas), near + NEAR + 1)))
    assert first["max"] == len(window) - 1 and first["part"], first
    assert first["sigma"] == text(sigmas[near]) == text(float(student.query()["sigma"]))
    status = student.page.locator(STATUS).inner_text()
    assert f"({len(window)} of {len(sigmas)} levels)" in status, status
    assert text(sigmas[window[-1]]) in status and text(sigmas[window[0]]) in status, status
    described = student.page.locator(SCRUB_RANGE).get_attribute("aria-describedby")
    assert described and student.page.locator(f"#{described}").inner_text() == status
    student.keepsake("first-part-1280x800")
    student.page.set_viewport_size({"width": 1920, "height": 1080})
    student.keepsake("first-part-1920x1080")
    student.page.set_viewport_size({"width": 1280, "height": 800})

    # the first arrow press works inside the first part (a smaller σ, drawn at once)
    student.press_scrub("ArrowLeft")
    moved = student.wait_for_scrub(text(sigmas[near + 1]), complete=False)
    assert moved["level"] == near + 1 and moved["max"] == len(window) - 1 and moved["part"], moved
    student.wait_for_settle(text(sigmas[near + 1]))  # committed as a grid σ, while still the first part
    assert student.scrub()["max"] == len(window) - 1, "the rest came before the test looked"

    # the rest comes by itself once the page decodes it: the whole grid, the same σ, the focus kept
    student.page.evaluate(RELEASE_JS)
    student.page.wait_for_function(
        "(n) => Number(document.querySelector('input.scrub-range').max) === n", arg=len(sigmas) - 1
    )
    student.page.locator(STATUS).wait_for(state="hidden")
    whole = student.wait_for_scrub()
    assert whole["max"] == len(sigmas) - 1 and whole["level"] == near + 1 and not whole["part"], whole
    assert whole["sigma"] == text(sigmas[near + 1])
    assert student.page.evaluate("() => document.activeElement?.classList.contains('scrub-range')")
    assert student.page.locator(SCRUB_RANGE).get_attribute("aria-describedby") is None

    # the keyboard now reaches levels the first part did not hold
    target = min(len(sigmas) - 1, near + NEAR + 3)
    student.page.keyboard.press("ArrowLeft")
    for _ in range(target - near - 2):
        student.page.wait_for_timeout(120)
        student.page.keyboard.press("ArrowLeft")
    far = student.wait_for_scrub(text(sigmas[target]))
    assert far["level"] == target and target not in window, far
    student.wait_for_settle(text(sigmas[target]))
    student.page.get_by_text(f"Downloads at σ = {sigmas[target]:.3g}").first.wait_for()
    student.assert_no_problems()
