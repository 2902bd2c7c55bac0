"""Presenter mode on a projector (?presenter=1): the sidebar starts collapsed, the main figure fills most
of the screen's height and width, and σ and the numbers beside it are large. Measured in Chromium at
1920×1080 and 1280×720 on the Explorer (the same component draws every σ view's main figure)."""

import pytest

pytestmark = pytest.mark.e2e

SIZES = [(1920, 1080), (1280, 720)]

MEASURE_JS = """() => {
  const box = (el) => (el ? el.getBoundingClientRect() : null);
  const size = (el) => (el ? parseFloat(getComputedStyle(el).fontSize) : 0);
  const plot = box(document.querySelector("div.scrub-plot .main-svg"));
  return {
    sidebar: box(document.querySelector("[data-testid='stSidebar']")),
    plotWidth: plot.width, plotHeight: plot.height,
    sigmaFont: size(document.querySelector("output.scrub-value")),
    metricFont: size(document.querySelector(".scrub-metric-value")),
    downloads: !document.querySelector(".scrub-downloads").hidden,
  };
}"""


@pytest.mark.parametrize("width, height", SIZES)
def test_presenter_mode_fills_the_screen_with_large_numbers(server, student, width, height):
    page = student.page
    page.set_viewport_size({"width": width, "height": height})
    student.open(server.url + "/Explorer?dataset=blobs&n=300&k=4&seed=0&presenter=1")
    page.wait_for_selector("div.scrub-plot[data-level] .main-svg")
    student.wait_for_layout()
    shown = page.evaluate(MEASURE_JS)
    sidebar = shown["sidebar"]
    assert sidebar is None or sidebar["width"] < 5 or sidebar["x"] + sidebar["width"] <= 0, sidebar
    assert shown["plotHeight"] >= 0.75 * height, shown
    assert shown["plotWidth"] >= 0.6 * width, shown
    assert shown["sigmaFont"] >= 40 and shown["metricFont"] >= 48, shown
    assert not shown["downloads"]  # a projector needs no download buttons
    # the whole figure and the σ control fit on the screen together (scrolled to the control)
    page.locator("input.scrub-range").scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('.scrub-control').scrollIntoView({block: 'start'})")
    student.wait_for_layout()
    bottom = page.evaluate(
        "() => document.querySelector('div.scrub-plot .main-svg').getBoundingClientRect().bottom"
    )
    assert bottom <= height + 1


def test_without_presenter_mode_the_sidebar_is_open(server, student):
    page = student.page
    page.set_viewport_size({"width": 1920, "height": 1080})
    student.open(server.url + "/Explorer?dataset=blobs&n=300&k=4&seed=0")
    page.wait_for_selector("div.scrub-plot[data-level]")
    assert page.locator("[data-testid='stSidebar']").bounding_box()["width"] > 200


@pytest.mark.parametrize("width, height", SIZES)
def test_a_chart_figure_fills_the_window_height_in_presenter_mode(server, student, width, height):
    """Step by step draws its plane with ui.page.chart(fill=True): in presenter mode it takes the window's
    height less the title and controls, and once scrolled to its top the whole figure is on screen."""
    page = student.page
    page.set_viewport_size({"width": width, "height": height})
    student.open(server.url + "/Step_by_step?dataset=blobs&n=300&k=4&seed=0&presenter=1")
    chart = page.locator("[class*='st-key-presenter_fill'] .js-plotly-plot").first
    chart.wait_for()
    student.wait_for_layout()
    chart.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    student.wait_for_layout()
    box = chart.bounding_box()
    assert box["height"] >= 0.6 * height, box
    assert box["y"] + box["height"] <= height + 1, box
