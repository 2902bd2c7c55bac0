"""The Explorer's probe in Chromium: the responsibilities the browser computes for the location under the
pointer (rbfviz/views/common/web/probe.js) are rbfviz.responsibilities' at the same point, σ and map, to
1e-9, at several σ down to the smallest of the slider, for every map of the Map menu; they follow σ with no
server (the offline page, from file:// with the network blocked, runs the same scrub.js). At phone size
a tap sets the probe. In the app, a mouse resting on the plane shows the probe beside the figure, and it
follows the σ slider's keys.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_e2e_export import offline_tab, wait_level

from rbfviz.maps import responsibilities
from rbfviz.views.common.scrub import read_payload
from rbfviz.views.export.build import Setting
from rbfviz.views.export.page import view_page

pytestmark = pytest.mark.e2e

SETTING = dict(dataset="moons", n=150, k=3, seed=0, init="kmeans++")
MAPS = [
    dict(kind="softmax"),
    dict(kind="entmax15"),
    dict(kind="entmax", alpha=1.3),
    dict(kind="entmax", alpha=2.0),
    dict(kind="naive"),
]

PROBE_JS = """() => {
  const panel = document.querySelector(".scrub-probe");
  const gd = document.querySelector("div.scrub-plot");
  return { hidden: panel.hidden, x: Number(panel.dataset.x), y: Number(panel.dataset.y),
           sigma: Number(panel.dataset.sigma),
           resp: panel.dataset.resp ? JSON.parse(panel.dataset.resp) : null,
           level: Number(gd.dataset.level), text: panel.innerText,
           simplex: !!panel.querySelector("svg.scrub-probe-simplex"),
           bars: Array.from(panel.querySelectorAll(".scrub-probe-bar")).map((b) => b.style.background) };
}"""


def plane_pixel(page, fx: float, fy: float) -> tuple[float, float]:
    """Client coordinates of the point at fractions (fx, fy) of the plane's axes (from the left, the top)."""
    return page.evaluate(
        """([fx, fy]) => { const gd = document.querySelector("div.scrub-plot");
          const box = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
          return [box.left + xa._offset + fx * xa._length, box.top + ya._offset + fy * ya._length]; }""",
        [fx, fy],
    )


def assert_probe_is_the_library(shown: dict, header: dict, kind: str) -> np.ndarray:
    """The browser's r at its probe point equals rbfviz.responsibilities there (float64), to 1e-9."""
    level = shown["level"]
    assert shown["sigma"] == header["sigmas"][level]
    centers = np.array(header["probe"]["centers"][level])  # a writable copy of the payload's bytes
    # the location as every row of X: the library wants at least k points, and each row is mapped alone
    X = np.tile([shown["x"], shown["y"]], (len(centers), 1))
    want = responsibilities(X, centers, shown["sigma"], kind=kind)[0]
    got = np.array([np.nan if v is None else v for v in shown["resp"]], dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, equal_nan=True)
    # exact zeros are exact in the browser too (entmax's sparsity is what the bars show)
    assert np.array_equal(got == 0, want == 0)
    return got


def show_level(page, level: int, header: dict) -> dict:
    """Move the σ slider to ``level`` (as a drag would: an input event) and read the probe there."""
    last = len(header["sigmas"]) - 1
    page.evaluate(
        """(value) => { const range = document.querySelector("input.scrub-range");
          range.value = String(value); range.dispatchEvent(new Event("input", { bubbles: true })); }""",
        last - level,
    )
    wait_level(page, level)
    return page.evaluate(PROBE_JS)


@pytest.mark.parametrize("spec", MAPS, ids=lambda spec: spec["kind"] + str(spec.get("alpha", "")))
def test_probe_bars_are_the_library_at_every_sigma(browser, tmp_path, spec):
    setting = Setting("explorer", **SETTING, **spec)
    page_html = view_page(setting)
    path = tmp_path / "explorer.html"
    path.write_text(page_html, encoding="utf-8")
    from test_e2e_export import embedded_payload

    header = read_payload(embedded_payload(page_html))
    assert header["probe"]["kind"] == setting.kind_spec
    context, page, requests = offline_tab(browser, path)
    try:
        page.wait_for_function("() => document.querySelector('div.scrub-plot')?._fullLayout")
        assert "Rest the pointer" in page.evaluate(PROBE_JS)["text"]
        # between the clusters: a location no data point sits on
        x, y = plane_pixel(page, 0.45, 0.4)
        page.mouse.move(x, y)
        page.wait_for_function("() => document.querySelector('.scrub-probe').dataset.resp")
        shown = page.evaluate(PROBE_JS)
        assert shown["simplex"] and len(shown["bars"]) == 3
        point = (shown["x"], shown["y"])
        # the pointer leaves the plane for the slider: the probe stays where it was and follows σ
        last = len(header["sigmas"]) - 1
        seen = []
        for level in (0, last // 3, 2 * last // 3, last - 2, last):  # largest σ .. the smallest
            shown = show_level(page, level, header)
            assert (shown["x"], shown["y"]) == point
            seen.append(assert_probe_is_the_library(shown, header, setting.kind_spec))
        # from even at the largest σ towards one-hot at the smallest (or exactly one-hot: entmax)
        assert seen[0].max() < seen[-1].max() or np.isnan(seen[-1]).any()
        if setting.kind_spec != "softmax" and setting.kind_spec != "naive":
            assert (seen[-1] == 0).sum() == 2  # exactly one-hot at the smallest σ
        assert [r for r in requests if not r.startswith("file:")] == []
        assert not page.errors, page.errors
    finally:
        context.close()


def test_a_tap_sets_the_probe_on_a_phone(browser, tmp_path):
    setting = Setting("explorer", **SETTING, kind="entmax15")
    page_html = view_page(setting)
    path = tmp_path / "explorer.html"
    path.write_text(page_html, encoding="utf-8")
    from test_e2e_export import embedded_payload

    header = read_payload(embedded_payload(page_html))
    context, page, _ = offline_tab(browser, path, viewport={"width": 390, "height": 844}, touch=True)
    try:
        page.wait_for_function("() => document.querySelector('div.scrub-plot')?._fullLayout")
        x, y = plane_pixel(page, 0.6, 0.55)
        page.touchscreen.tap(x, y)
        page.wait_for_function("() => document.querySelector('.scrub-probe').dataset.resp")
        shown = page.evaluate(PROBE_JS)
        assert_probe_is_the_library(shown, header, "entmax15")
        # the probe is on screen next to the figure, inside the phone's width
        box = page.locator(".scrub-probe").bounding_box()
        assert box["width"] > 0 and box["x"] + box["width"] <= 390
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        shown = show_level(page, len(header["sigmas"]) - 1, header)
        assert_probe_is_the_library(shown, header, "entmax15")
        assert json.loads(json.dumps(shown["resp"])).count(0) == 2
    finally:
        context.close()


def test_in_the_app_the_probe_follows_sigma(server, student):
    """On the Explorer itself: a mouse resting on the plane shows the probe beside the figure; keys on the
    σ slider move it level by level; its numbers are the library's at the centres drawn (trace 1) and the
    σ on screen, before and after σ settles."""
    student.open(f"{server.url}/Explorer?dataset=moons&n=150&k=3&seed=0&kind=entmax&alpha=1.5")
    start = student.wait_for_scrub()
    student.page.locator("div.scrub-plot").scroll_into_view_if_needed()
    x, y = plane_pixel(student.page, 0.5, 0.45)
    student.page.mouse.move(x, y)
    student.page.wait_for_function("() => document.querySelector('.scrub-probe').dataset.resp")
    before = check_app_probe(student)
    student.press_scrub("ArrowLeft", times=3, gap_ms=60)
    student.page.wait_for_function(
        "(level) => Number(document.querySelector('div.scrub-plot').dataset.level) === level",
        arg=start["level"] + 3,
    )
    after = check_app_probe(student)
    assert after["sigma"] < before["sigma"] and (after["x"], after["y"]) == (before["x"], before["y"])
    student.wait_for_settle(student.scrub_sigma())
    check_app_probe(student)
    student.assert_no_problems()


def check_app_probe(student) -> dict:
    """The app's probe against the library, at the centres Plotly draws now (trace 1)."""
    with_centers = "const c = gd.data[1]; return { cx: Array.from(c.x), cy: Array.from(c.y),"
    shown = student.page.evaluate(PROBE_JS.replace("return {", with_centers))
    centers = np.column_stack([shown["cx"], shown["cy"]])
    X = np.tile([shown["x"], shown["y"]], (len(centers), 1))
    want = responsibilities(X, centers, shown["sigma"], kind="entmax15")[0]
    np.testing.assert_allclose(shown["resp"], want, rtol=0, atol=1e-9)
    sigma_text = student.page.locator("div.scrub-plot").get_attribute("data-sigma")
    assert f"{shown['sigma']:.3g}" == sigma_text  # the σ on screen
    return shown
