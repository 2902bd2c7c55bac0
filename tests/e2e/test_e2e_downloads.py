"""Every figure downloads as PNG and SVG from buttons under or beside it, with the keyboard: on a
figure drawn by ui.page.chart (st.plotly_chart) and on the σ scrubber's figure
(rbfviz/views/common/web/scrub.js). The files arrive, are what they claim (PNG signature and size, SVG parses
as XML with an <svg> root), and are
named after the view, the data set and σ."""

import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

QUERY = "dataset=moons&n=150&k=3&seed=0"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_root(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag.split("}")[-1] == "svg", root.tag
    return root


def download(page, button, tmp_path: Path) -> Path:
    """Press the button with the keyboard; the file the browser saves."""
    button.focus()
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    target = tmp_path / info.value.suggested_filename
    info.value.save_as(target)
    return target


def check(page, buttons, tmp_path: Path, name: str, shown_width: float) -> None:
    png = download(page, buttons.locator("button[data-format='png']"), tmp_path)
    assert png.name == f"{name}.png"
    width, height = png_size(png)
    assert width == pytest.approx(2 * shown_width, abs=4) and height > 200  # twice the pixels shown
    svg = download(page, buttons.locator("button[data-format='svg']"), tmp_path)
    assert svg.name == f"{name}.svg"
    root = svg_root(svg)
    assert float(root.get("width")) == pytest.approx(shown_width, abs=2)
    assert root.iter("{http://www.w3.org/2000/svg}text")  # the figure's text is in the file
    assert any(t.text for t in root.iter("{http://www.w3.org/2000/svg}text"))


def test_the_scrubbed_figure_downloads_as_png_and_svg(server, student, tmp_path):
    page = student.page
    student.open(server.url + "/Annealing?" + QUERY)
    page.wait_for_selector("div.scrub-plot[data-level]")
    sigma = student.wait_for_scrub()["sigma"]
    width = page.evaluate("() => document.querySelector('div.scrub-plot')._fullLayout.width")
    check(page, page.locator(".scrub-downloads"), tmp_path, f"rbfviz_annealing_moons_sigma-{sigma}", width)


def test_a_chart_figure_downloads_as_png_and_svg(server, student, tmp_path):
    page = student.page
    student.open(server.url + "/Annealing?" + QUERY)
    tools = page.locator(".rbfviz-figure-tools").first
    tools.wait_for()
    name = tools.get_attribute("data-name")
    assert name.startswith("rbfviz_annealing_") and "_moons_sigma-" in name
    holder = tools.get_attribute("data-holder")
    width = page.evaluate(
        "(h) => document.querySelector(`[class*='st-key-${h}'] .js-plotly-plot`)._fullLayout.width", holder
    )
    check(page, tools, tmp_path, name, width)
