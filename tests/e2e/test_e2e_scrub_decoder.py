"""The browser's reading of a σ payload is the library's: for each scrubbing view, the figure Plotly
holds in Chromium at a level (rbfviz/views/common/web/scrub.js: inflate, decode blobs, apply the level's
pairs) equals rbfviz.views.common.scrub.figure_at at that level, for the payload the same settings give in
Python."""

import re
from functools import lru_cache

import numpy as np
import pytest
from app_page import page_path, page_payload
from plotly_shown import FIGURE_JS, assert_figure_is

from rbfviz.views.common.scrub import figure_at, read_payload

pytestmark = pytest.mark.e2e

QUERY = {"dataset": "moons", "n": "150", "k": "3", "seed": "0"}
VIEWS = {name: page_path(name) for name in ("Explorer", "Annealing", "Stability", "Equivalence")}


@lru_cache(maxsize=None)
def python_payload(page: str) -> dict:
    """The σ payload the page sends for QUERY, read in Python (AppTest): once per page per session."""
    return read_payload(page_payload(page, QUERY))


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
        shown = page.evaluate(FIGURE_JS, None)
        assert shown["level"] == level
        assert_figure_is(shown, figure_at(header, level))


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
