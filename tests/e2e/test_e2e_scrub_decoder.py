"""The browser's reading of a σ payload is the library's: for each scrubbing view, the figure Plotly
holds in Chromium at a level (ui/scrub.js: inflate, decode blobs, apply the level's pairs) equals
rbfviz.views.common.scrub.figure_at at that level, for the payload the same settings give in Python."""

import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from harness.student import HANG_TIMEOUT_MS
from rbfviz.views.common.scrub import figure_at, read_payload

pytestmark = pytest.mark.e2e

APP = str(Path(__file__).resolve().parents[2] / "app.py")
QUERY = {"dataset": "moons", "n": "150", "k": "3", "seed": "0"}
VIEWS = {
    "Explorer": "pages/1_Explorer.py",
    "Annealing": "pages/3_Annealing.py",
    "Stability": "pages/5_Stability.py",
    "Equivalence": "pages/6_Equivalence.py",
}

# Plotly's own copy of the figure (gd.data / gd.layout) as plain JSON: typed arrays become lists.
GRAPH_JS = """() => {
  const gd = document.querySelector("div.scrub-plot");
  const plain = (v) => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain)
    : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
  return { level: Number(gd.dataset.level), data: plain(gd.data),
           images: (gd.layout.images || []).map((i) => i.source),
           title: gd.layout.title && gd.layout.title.text };
}"""


@lru_cache(maxsize=None)
def python_payload(page: str) -> dict:
    """The σ payload the page sends for QUERY, read in Python (AppTest): once per page per session."""
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_MS / 1000)
    at.query_params.update(QUERY)
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return read_payload(at.get("bidi_component")[0].proto.bytes)


def same_trace(browser: dict, python: dict) -> None:
    for key in ("x", "y", "customdata"):
        if key in python:
            want = np.asarray(python[key], dtype=np.float64)
            got = np.asarray(browser[key], dtype=np.float64)
            np.testing.assert_array_equal(got, want, err_msg=key)
    colour = python.get("marker", {}).get("color")
    if isinstance(colour, list):
        assert browser["marker"]["color"] == colour


def scrub_left(student, presses: int) -> int:
    """Press ArrowLeft ``presses`` times on the focused σ slider; wait until the scrubber has drawn the
    level they lead to and, when σ moved, until its commit's rerun has finished. Returns the level."""
    start = student.wait_for_scrub()
    target = min(start["level"] + presses, start["max"])
    for _ in range(presses):
        student.page.keyboard.press("ArrowLeft")
    shown = student.page.wait_for_function(
        "(n) => { const gd = document.querySelector('div.scrub-plot');"
        " return gd && gd._fullLayout && Number(gd.dataset.level) === n ? gd.dataset.sigma : null; }",
        arg=target,
    ).json_value()
    if target != start["level"]:
        student.wait_for_settle(shown)
    return target


@pytest.mark.parametrize("view", list(VIEWS))
def test_the_browser_draws_the_payloads_figure_at_every_level_it_visits(server, student, view):
    header = python_payload(VIEWS[view])
    page = student.page
    student.open(server.url + f"/{view}?" + "&".join(f"{k}={v}" for k, v in QUERY.items()))
    page.wait_for_selector("div.scrub-plot[data-level]")
    page.locator("input.scrub-range").focus()
    for presses in (0, 3, 3):
        level = scrub_left(student, presses)
        shown = page.evaluate(GRAPH_JS)
        assert shown["level"] == level
        want = figure_at(header, shown["level"])
        assert len(shown["data"]) == len(want["data"])
        for browser_trace, python_trace in zip(shown["data"], want["data"]):
            same_trace(browser_trace, python_trace)
        assert shown["images"] == [image["source"] for image in want["layout"].get("images", [])]
        title = want["layout"].get("title")
        assert shown["title"] == (title.get("text") if isinstance(title, dict) else None)


# A point of trace 0 under the mouse: its screen position, its drawn fill, and the hover label.
POINT_JS = """(i) => {
  const gd = document.querySelector("div.scrub-plot"), L = gd._fullLayout, box = gd.getBoundingClientRect();
  const x = gd.data[0].x[i], y = gd.data[0].y[i];
  const node = gd.querySelectorAll(".scatterlayer .trace")[0].querySelectorAll("path.point")[i];
  return { px: box.left + L._size.l + L.xaxis.l2p(x), py: box.top + L._size.t + L.yaxis.l2p(y),
           fill: node.style.fill, level: Number(gd.dataset.level) };
}"""


def test_the_hover_and_the_drawn_colours_follow_the_scrubbed_level(server, student):
    """After σ moves, a point's fill on screen and its hover label are those of the new level."""
    header = python_payload(VIEWS["Explorer"])
    page = student.page
    student.open(server.url + "/Explorer?" + "&".join(f"{k}={v}" for k, v in QUERY.items()))
    page.wait_for_selector("div.scrub-plot[data-level]")
    start = int(page.locator("div.scrub-plot").get_attribute("data-level"))
    page.locator("input.scrub-range").focus()
    level = scrub_left(student, 6)
    assert level != start
    # the points whose r changed most: a stale hover or colour would show there
    change = np.abs(
        np.asarray(figure_at(header, level)["data"][0]["customdata"], float)
        - np.asarray(figure_at(header, start)["data"][0]["customdata"], float)
    ).sum(axis=1)
    assert change.max() > 0.05
    for index in np.argsort(change)[-3:].tolist():
        point = page.evaluate(POINT_JS, index)
        want = figure_at(header, point["level"])["data"][0]
        assert point["fill"].replace(" ", "") == want["marker"]["color"][index]
        page.mouse.move(point["px"], point["py"])
        page.wait_for_selector(".hoverlayer .hovertext")
        label = page.locator(".hoverlayer .hovertext").first.text_content()
        hovered = int(re.search(r"point #(\d+)", label).group(1))  # the nearest point: maybe a neighbour
        shown = ", ".join(f"{float(r):.3f}" for r in want["customdata"][hovered])
        assert f"r = [{shown}]" in label, (label, shown)
        page.mouse.move(5, 5)
        page.wait_for_selector(".hoverlayer .hovertext", state="detached")
