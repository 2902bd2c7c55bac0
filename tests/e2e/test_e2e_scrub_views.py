"""Every scrubbed view (Explorer, Annealing, Stability, Equivalence) in Chromium, by keyboard:

* what is on screen at each level is the payload's level (rbfviz.views.common.scrub.figure_at):
  rbfviz/views/common/web/scrub.js draws a level change straight into Plotly's SVG, so the test reads the SVG
  itself: every marker trace has one drawn point per data point, each at the pixel of its (x, y); every
  straight line runs through the pixels of its points; each field <image> shows the level's image; the title
  and the annotations read the level's text. Every level is visited in turn, then two jumps (Home, End);
* focus survives the settle: five presses with a settle (and its rerun) after each move σ five grid
  steps, and the σ slider is still the focused element, the same input, after every one. The view's
  setting is new to the server (its own seed), so the first run draws a progress bar before the
  scrubber and the settle rerun mounts the component anew, as for the first student of a setting.
  Both walks share one page load of that setting per view: the focus first, then every level;
* no leaks: ten views visited in turn through the menu leave the same event listeners on window
  and the same number of live MutationObservers each time a view is back;
* Equivalence's arrows, whose heads rbfviz/views/common/web/scrub.js moves in place: each is the arrow Plotly
  itself draws for the level's annotations (line, dash array, head), and a press needs no Plotly.relayout.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
from app_page import page_path, page_payload

from rbfviz.views.common.scrub import figure_at, read_payload

pytestmark = pytest.mark.e2e

VIEWS = {name: page_path(name) for name in ("Explorer", "Annealing", "Stability", "Equivalence")}
QUERY = {"dataset": "blobs", "n": "300", "k": "3", "seed": "5"}
PIXEL = 0.51  # Plotly writes pixel positions to 2 decimals

# The drawn SVG of the scrubbed figure, per trace: marker positions, line vertices (pixels within the
# subplot), the pixels the data should be at (Plotly's own axis mapping); the images, title, annotations.
DRAWN_JS = """() => {
  const gd = document.querySelector("div.scrub-plot"), L = gd._fullLayout;
  const num = (s) => (s || "").match(/-?[\\d.]+(?:e-?\\d+)?/g).map(Number);
  const traces = gd._fullData.map((full, index) => {
    const group = Array.from(gd.querySelectorAll(".scatterlayer g.trace"))
      .find((el) => el.__data__ && el.__data__[0] && el.__data__[0].trace.index === index);
    const xa = L[full.xaxis.replace("x", "xaxis")], ya = L[full.yaxis.replace("y", "yaxis")];
    const n = full._length || 0, want = [];
    for (let j = 0; j < n; j++) want.push([xa.c2p(full.x[j]), ya.c2p(full.y[j])]);
    const points = group ? Array.from(group.querySelectorAll("g.points > path.point"))
      .map((p) => num(p.getAttribute("transform"))) : [];
    const line = group && group.querySelector("path.js-line");
    const vertices = [];
    if (line) {
      const v = num(line.getAttribute("d"));
      for (let i = 0; i + 1 < v.length; i += 2) vertices.push([v[i], v[i + 1]]);
    }
    const nodes = group ? Array.from(group.querySelectorAll("g.points > path.point")) : [];
    const fills = nodes.map((p) => p.style.fill);
    return { name: full.name, mode: full.mode, visible: full.visible, want, points, vertices, hasLine: !!line,
             fills };
  });
  const images = Array.from(gd.querySelectorAll("image")).map((el) => [el.__data__ && el.__data__._index,
    el.getAttribute("href") || el.getAttributeNS("http://www.w3.org/1999/xlink", "href")]);
  const annotations = Array.from(gd.querySelectorAll("g.annotation")).map((g) =>
    [Number(g.dataset.index), (g.querySelector("text.annotation-text") || {}).textContent || ""]);
  const title = gd.querySelector("text.gtitle");
  return { level: Number(gd.dataset.level), traces, images, annotations,
           title: title ? title.textContent : null };
}"""


def python_payload(page: str, query: dict) -> dict:
    return read_payload(page_payload(page, query))


def plain(text) -> str:
    """A Plotly text as drawn: tags gone, <br> and entities as Plotly writes them are not used here."""
    return re.sub(r"<[^>]+>", "", text or "")


def rgb(colour: str) -> str:
    """A CSS colour as the browser reports a fill: "#e69f00" -> "rgb(230,159,0)"."""
    colour = colour.replace(" ", "")
    match = re.fullmatch(r"#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})", colour)
    return f"rgb({','.join(str(int(h, 16)) for h in match.groups())})" if match else colour


def check_drawn(page, header: dict) -> int:
    drawn = page.evaluate(DRAWN_JS)
    level = drawn["level"]
    want = figure_at(header, level)
    assert len(drawn["traces"]) == len(want["data"])
    for shown, trace in zip(drawn["traces"], want["data"]):
        if shown["visible"] is not True:
            continue
        n = len(trace.get("x", []) if trace.get("x") is not None else [])
        assert len(shown["want"]) == n, (level, shown["name"], len(shown["want"]), n)
        finite = all(x is not None and y is not None for x, y in shown["want"])
        if "markers" in (shown["mode"] or "") and finite:
            assert len(shown["points"]) == n, (level, shown["name"], len(shown["points"]), n)
            for (px, py), (wx, wy) in zip(shown["points"], shown["want"]):
                assert abs(px - wx) <= PIXEL and abs(py - wy) <= PIXEL, (
                    level,
                    shown["name"],
                    (px, py),
                    (wx, wy),
                )
            colours = trace.get("marker", {}).get("color")
            if isinstance(colours, list) and shown["fills"]:
                assert [rgb(f) for f in shown["fills"]] == [rgb(c) for c in colours], (level, shown["name"])
        if "lines" in (shown["mode"] or "") and finite and n >= 2 and shown["hasLine"]:
            # Plotly may drop collinear points from a line it draws itself; every vertex is a data point
            # and the line starts and ends at the first and last one
            vertices = shown["vertices"]
            for vx, vy in vertices:
                assert any(abs(vx - wx) <= PIXEL and abs(vy - wy) <= PIXEL for wx, wy in shown["want"]), (
                    level,
                    shown["name"],
                )
            for end, point in ((vertices[0], shown["want"][0]), (vertices[-1], shown["want"][-1])):
                assert abs(end[0] - point[0]) <= PIXEL and abs(end[1] - point[1]) <= PIXEL, (
                    level,
                    shown["name"],
                )
    sources = [image["source"] for image in want["layout"].get("images", [])]
    assert sorted(drawn["images"]) == sorted([i, s] for i, s in enumerate(sources)), level
    for index, text in drawn["annotations"]:
        assert text == plain(want["layout"]["annotations"][index].get("text")), (level, index, text)
    title = want["layout"].get("title")
    title = title.get("text") if isinstance(title, dict) else None
    if title:
        assert drawn["title"] == plain(title), (level, drawn["title"], title)
    return level


# The σ the scrubber draws once it differs from the given one (a press has moved it).
MOVED_JS = (
    "(s) => { const p = document.querySelector('div.scrub-plot'); "
    "return !!p && p.dataset.sigma !== s && p.dataset.sigma; }"
)
FOCUS_JS = """() => { const r = document.querySelector("input.scrub-range");
  return { focused: document.activeElement === r, same: r === window.__scrubRange, value: Number(r.value),
           level: Number(document.querySelector("div.scrub-plot").dataset.level) }; }"""


# Counts every insertion of the scrubber's DOM into the page: a remount (or a parked DOM moved into a
# new element) adds one.
SCRUB_INSERTS_INIT = """(() => { window.__scrubInserts = 0;
  new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
    if (n.nodeType === 1 && (n.matches(".scrub") || n.querySelector(".scrub"))) window.__scrubInserts++; })
  .observe(document, { childList: true, subtree: true }); })()"""


@contextmanager
def part(name: str):
    """Prefix a failed assertion inside with ``name``: a test that checks two things says which failed."""
    try:
        yield
    except AssertionError as exc:
        raise AssertionError(f"{name}: {exc}") from exc


def focus_survives_every_settle(student) -> None:
    """Five presses, each followed by its settle and rerun: after each the σ slider is still the focused
    element, the same input, one level further; no settle mounted the scrubber anew."""
    page = student.page
    inserts = page.evaluate("window.__scrubInserts")
    page.evaluate("() => { window.__scrubRange = document.querySelector('input.scrub-range'); }")
    page.locator("input.scrub-range").focus()
    start = page.evaluate(FOCUS_JS)
    for press in range(1, 6):
        sigma = student.scrub_sigma()
        page.keyboard.press("ArrowLeft")
        moved = page.wait_for_function(MOVED_JS, arg=sigma).json_value()
        student.wait_for_settle(moved)  # the settle's rerun finished and the page is quiet
        page.wait_for_selector("div.scrub-plot[data-level]")  # a remount leaves a moment without one
        now = page.evaluate(FOCUS_JS)
        assert now["focused"], f"after settle {press} the σ slider lost the keyboard focus"
        assert now["same"], f"after settle {press} the σ slider is another element"
        assert now["level"] == start["level"] + press and now["value"] == start["value"] - press, (start, now)
    # the first run computed under progress bars; had they moved the scrubber, a settle would remount it
    assert page.evaluate("window.__scrubInserts") == inserts, "a settle rerun mounted the scrubber anew"


def every_level_drawn_is_the_payloads_level(page, header: dict) -> None:
    """From the largest σ (End), every level in turn by ArrowLeft, then the jumps End and Home: each
    drawn level is the payload's (check_drawn)."""
    last = len(header["sigmas"]) - 1
    page.locator("input.scrub-range").focus()
    page.keyboard.press("End")  # the largest σ: level 0
    page.wait_for_function("() => document.querySelector('div.scrub-plot')?.dataset.level === '0'")
    assert check_drawn(page, header) == 0
    seen = {0}
    for level in range(1, last + 1):  # every level in turn, smaller σ each press
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"() => document.querySelector('div.scrub-plot')?.dataset.level === '{level}'")
        seen.add(check_drawn(page, header))
    assert seen == set(range(last + 1)), sorted(seen)
    for key, level in (("End", 0), ("Home", last)):  # jumps across the whole range
        page.keyboard.press(key)
        page.wait_for_function(f"() => document.querySelector('div.scrub-plot')?.dataset.level === '{level}'")
        assert check_drawn(page, header) == level


@pytest.mark.parametrize("view", list(VIEWS))
def test_focus_survives_every_settle_and_every_level_drawn_is_the_payloads_level(server, student, view):
    """One page load of a setting new to the server per view, walked twice: the focus across five
    settles, then every level drawn (the level first drawn included). A failure names its part."""
    query = {**QUERY, "seed": str(11 + list(VIEWS).index(view))}  # a setting nobody has opened
    header = python_payload(VIEWS[view], query)  # in this process: the server has not seen it yet
    page = student.page
    page.add_init_script(SCRUB_INSERTS_INIT)
    student.open(server.url + f"/{view}?" + "&".join(f"{k}={v}" for k, v in query.items()))
    page.wait_for_selector("div.scrub-plot[data-level]")
    with part("the level first drawn"):
        check_drawn(page, header)
    with part("focus survives every settle"):
        focus_survives_every_settle(student)
    with part("every level drawn is the payload's level"):
        every_level_drawn_is_the_payloads_level(page, header)
    student.assert_no_problems()


LISTENERS_JS = "window"
OBSERVERS_INIT = """(() => {
  const live = window.__liveObservers = new Set();
  const observe = MutationObserver.prototype.observe, disconnect = MutationObserver.prototype.disconnect;
  MutationObserver.prototype.observe = function (...a) { live.add(this); return observe.apply(this, a); };
  MutationObserver.prototype.disconnect = function () { live.delete(this); return disconnect.call(this); };
})()"""


def window_listeners(cdp) -> dict[str, int]:
    window = cdp.send("Runtime.evaluate", {"expression": LISTENERS_JS})["result"]["objectId"]
    counts: dict[str, int] = {}
    for listener in cdp.send("DOMDebugger.getEventListeners", {"objectId": window})["listeners"]:
        counts[listener["type"]] = counts.get(listener["type"], 0) + 1
    cdp.send("Runtime.releaseObject", {"objectId": window})
    return counts


def test_ten_views_in_turn_leave_no_listeners_behind(server, student):
    page = student.page
    page.add_init_script(OBSERVERS_INIT)
    student.open(f"{server.url}/Explorer?" + "&".join(f"{k}={v}" for k, v in QUERY.items()))
    page.wait_for_selector("div.scrub-plot[data-level]")
    cdp = page.context.new_cdp_session(page)
    order = ["Annealing", "Stability", "Equivalence", "Explorer"] * 3
    seen: dict[str, list] = {}
    for view in order[:10]:
        student.go_to(view)
        sigma = student.scrub_sigma()  # the scrubber has drawn its level
        # the scrubber's level can be moved: it is this view's live scrubber; then its settle's rerun
        page.locator("input.scrub-range").focus()
        page.keyboard.press("ArrowLeft")
        student.wait_for_settle(student.page.wait_for_function(MOVED_JS, arg=sigma).json_value())
        counts = window_listeners(cdp)
        observers = page.evaluate("() => window.__liveObservers.size")
        scrubbers = page.evaluate("() => document.querySelectorAll('div.scrub').length")
        assert scrubbers == 1, f"{scrubbers} scrubbers on the page after opening {view}"
        seen.setdefault(view, []).append((counts, observers))
    for view, visits in seen.items():
        first = visits[0]
        for later in visits[1:]:
            assert later == first, f"{view}: listeners on window / live observers grew: {first} → {later}"
    student.assert_no_problems()


# Each arrow annotation as drawn: its line's ends, its dash array and its head's transform numbers.
ARROWS_JS = """() => {
  const gd = document.querySelector("div.scrub-plot");
  const num = (s) => (s || "").match(/-?[\\d.]+(?:e-?\\d+)?/g).map(Number);
  return Array.from(gd.querySelectorAll("g.annotation")).flatMap((g) => {
    const paths = g.querySelectorAll("g.annotation-arrow-g > path");
    if (!paths.length) return [];
    return [{ index: Number(g.dataset.index), line: num(paths[0].getAttribute("d")),
              dash: num(paths[0].style.strokeDasharray), opacity: paths[0].style.opacity,
              head: paths.length > 1 ? num(paths[1].getAttribute("transform")) : null }];
  });
}"""
# Plotly draws every annotation again from the figure's state (its opacity only redraws that annotation).
PLOTLY_ARROWS_JS = """() => {
  const gd = document.querySelector("div.scrub-plot"), edit = {};
  gd.layout.annotations.forEach((a, i) => { edit[`annotations[${i}].opacity`] = a.opacity ?? 1; });
  window.__testRelayouts = (window.__testRelayouts || 0) + 1;
  window.Plotly.relayout(gd, edit);
}"""
COUNT_RELAYOUTS_JS = """() => { const original = window.Plotly.relayout; window.__relayouts = 0;
  window.Plotly.relayout = function (...args) { window.__relayouts += 1; return original.apply(this, args); };
}"""


@pytest.mark.parametrize("query", [{**QUERY, "seed": "8"}, {}], ids=["n300-k3", "defaults"])
def test_arrows_moved_in_place_are_plotlys_arrows(server, student, query):
    """Equivalence: the gradient arrows' heads move with σ. Drawn in place, each arrow (line, dash array,
    head, or none for an arrow too short for its head, as one is at the defaults) is the arrow Plotly
    itself draws for that level's annotations (compared every third level, so in place also redraws its
    own drawing), the figure's annotations are the level's, and a press needs no Plotly.relayout."""
    header = python_payload(VIEWS["Equivalence"], query)
    page = student.page
    student.open(server.url + "/Equivalence?" + "&".join(f"{k}={v}" for k, v in query.items()))
    page.wait_for_selector("div.scrub-plot[data-level]")
    page.locator("input.scrub-range").focus()
    page.keyboard.press("End")
    page.wait_for_function("() => document.querySelector('div.scrub-plot')?.dataset.level === '0'")
    page.evaluate(COUNT_RELAYOUTS_JS)
    last = len(header["sigmas"]) - 1
    compared = in_place = 0
    for level in range(1, last + 1):
        before = page.evaluate("() => window.__relayouts - (window.__testRelayouts || 0)")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"() => document.querySelector('div.scrub-plot')?.dataset.level === '{level}'")
        in_place += page.evaluate("() => window.__relayouts - (window.__testRelayouts || 0)") == before
        want = figure_at(header, level)["layout"]["annotations"]
        have = page.evaluate("() => document.querySelector('div.scrub-plot').layout.annotations")
        for a, b in zip(have, want):
            assert (a.get("x"), a.get("y"), a.get("text")) == (b.get("x"), b.get("y"), b.get("text")), level
        if level % 3:
            continue
        drawn = sorted(page.evaluate(ARROWS_JS), key=lambda a: a["index"])
        page.evaluate(PLOTLY_ARROWS_JS)
        plotly = sorted(page.evaluate(ARROWS_JS), key=lambda a: a["index"])
        assert [a["index"] for a in drawn] == [a["index"] for a in plotly], level
        for mine, theirs in zip(drawn, plotly):
            assert mine["opacity"] == theirs["opacity"], (level, mine, theirs)
            for key in ("line", "dash", "head"):
                assert (mine[key] is None) == (theirs[key] is None), (level, key, mine, theirs)
                if mine[key] is not None:
                    assert len(mine[key]) == len(theirs[key]), (level, key, mine[key], theirs[key])
                    assert all(abs(p - q) <= 0.01 for p, q in zip(mine[key], theirs[key])), (
                        level,
                        key,
                        mine[key],
                        theirs[key],
                    )
        compared += 1
    assert compared >= last // 3
    assert in_place >= last - 2, f"only {in_place} of {last} presses drew without Plotly.relayout"
    student.assert_no_problems()
