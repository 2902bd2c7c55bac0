"""Figures follow Streamlit's light or dark theme, also when the viewer switches it in the app's menu
while the page is open: the backgrounds, axis text, legend and ink marks (K-Means centroids, σ lines)
of a figure drawn by ui.page.chart (Streamlit's chart theme and ui.page.CHART_CSS) and of the σ
scrubber's figure (ui/scrub.js), read from the drawn SVG, are light on light and dark on dark, and
stay readable (contrast ratio ≥ 4.5 against the background)."""

import re

import pytest

pytestmark = pytest.mark.e2e

QUERY = "dataset=moons&n=150&k=3&seed=0"
CHART = "[data-testid='stPlotlyChart'] .js-plotly-plot"
SCRUB = "div.scrub-plot"

# The colours Plotly drew: the paper (the SVG's background), the plot area, a tick label, the legend text.
COLOURS_JS = """(sel) => {
  const gd = document.querySelector(sel);
  if (!gd || !gd.querySelector(".main-svg")) return null;
  const style = (el, prop) => (el ? getComputedStyle(el)[prop] : null);
  return {
    paper: style(gd.querySelector(".main-svg"), "backgroundColor"),
    plot: style(gd.querySelector(".bglayer .bg"), "fill"),
    tick: style(gd.querySelector(".xtick text"), "fill"),
    legend: style(gd.querySelector(".legendtext"), "fill"),
  };
}"""
# An ink mark (a K-Means centroid, a σ line) as drawn: on a chart() figure the mark Plotly gave the ink
# colour (rbfviz.views.common.layout.THEME_INK); on the scrubber's figure the K-Means centroids' trace.
INK_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const mark = gd.querySelector("[style*='fill: rgb(1, 2, 3)'], [style*='stroke: rgb(1, 2, 3)']");
  if (mark) {
    const css = getComputedStyle(mark);
    return mark.getAttribute("style").includes("fill: rgb(1, 2, 3)") ? css.fill : css.stroke;
  }
  const trace = (gd._fullData || []).find((t) => /K-Means/.test(t.name || ""));
  return trace ? trace.marker.color : null;
}"""


def rgb(text: str) -> tuple[float, ...]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", text)[:3])


def luminance(text: str) -> float:
    """WCAG relative luminance of an "rgb(r, g, b)" colour."""

    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb(text))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def wait_for_colours(page, selector: str, dark: bool) -> dict:
    """The figure's colours once its paper is dark (or light)."""
    page.wait_for_function(
        """([sel, dark]) => {
           const gd = document.querySelector(sel), svg = gd && gd.querySelector('.main-svg');
           if (!svg) return false;
           const m = getComputedStyle(svg).backgroundColor.match(/[\\d.]+/g).map(Number);
           const y = 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2];
           return dark ? y < 80 : y > 200; }""",
        arg=[selector, dark],
    )
    return page.evaluate(COLOURS_JS, selector)


def check(colours: dict, dark: bool, what: str) -> None:
    paper = colours["paper"]
    assert (luminance(paper) < 0.05) if dark else (luminance(paper) > 0.85), (what, colours)
    assert contrast(colours["tick"], paper) >= 4.5, (what, colours)
    if colours["plot"]:
        assert contrast(colours["tick"], colours["plot"]) >= 4.5, (what, colours)


def test_figures_switch_with_the_theme_and_stay_readable(server, student):
    page = student.page
    page.emulate_media(color_scheme="light")  # Streamlit's default theme follows the system's
    student.open(server.url + "/Annealing?" + QUERY)
    page.wait_for_selector(f"{SCRUB}[data-level]")
    page.locator(CHART).first.locator(".main-svg").first.wait_for()
    for selector, what in ((CHART, "chart()"), (SCRUB, "scrubbed")):
        check(wait_for_colours(page, selector, dark=False), False, what)
    assert page.evaluate("() => document.querySelector('div.scrub-plot').dataset.theme") == "light"

    for selector, what in ((CHART, "chart()"), (SCRUB, "scrubbed")):
        ink = page.evaluate(INK_JS, selector)
        assert luminance(ink) < 0.05, (what, ink)  # black on white

    # the theme changes while the page is open, from the app's menu: no reload, no rerun
    page.locator("[data-testid='stMainMenu']").click()
    page.locator("[data-testid='stMainMenuItem-theme-Dark']").click()
    page.keyboard.press("Escape")
    for selector, what in ((CHART, "chart()"), (SCRUB, "scrubbed")):
        colours = wait_for_colours(page, selector, dark=True)
        check(colours, True, what)
        assert luminance(colours["legend"]) > 0.5, (what, colours)  # light legend text on dark
        ink = page.evaluate(INK_JS, selector)
        assert contrast(ink, colours["paper"]) >= 4.5, (what, ink, colours)
    assert page.evaluate("() => document.querySelector('div.scrub-plot').dataset.theme") == "dark"
    # the scrubber's own controls: the σ value and the numbers beside the plot in the theme's text colour
    value = page.evaluate("() => getComputedStyle(document.querySelector('output.scrub-value')).color")
    background = page.evaluate(
        "() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor"
    )
    assert contrast(value, background) >= 7, (value, background)


def test_a_field_figure_keeps_its_light_picture_and_a_light_legend_on_dark(server, student):
    """The Explorer's plane: the field image stays light (the marks on it keep their colours), so its
    legend keeps a light box with dark text; the paper and axis text follow the dark theme."""
    page = student.page
    page.emulate_media(color_scheme="dark")
    student.open(server.url + "/Explorer?" + QUERY)
    colours = wait_for_colours(page, SCRUB, dark=True)
    check(colours, True, "plane")
    legend = page.evaluate(
        "() => getComputedStyle(document.querySelector('div.scrub-plot .legend .bg')).fill"
    )
    assert luminance(legend) > 0.8 and contrast(colours["legend"], legend) >= 4.5, (legend, colours)
