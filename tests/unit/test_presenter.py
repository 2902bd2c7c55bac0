"""Presenter mode: every font, marker and line of a figure gets larger, frames too; nothing else changes."""

import json

import numpy as np
import pytest

from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.views.common.layout import validated
from rbfviz.views.common.presenter import FONT_SCALE, HEIGHT_SCALE, MARK_SCALE, presenter_figure
from rbfviz.views.explorer.figures import plane_figure
from ui import session_keys
from ui.page import page_path


@pytest.fixture(scope="module")
def plane():
    X, _ = make_dataset("blobs", 80, seed=1)
    C = X[:3]
    return plane_figure(X, responsibilities(X, C, 0.8, "softmax"), C, C, None, title="a title")


def font_sizes(node, path=""):
    """Every (path, size) of a font dict in a figure spec."""
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("font") and isinstance(value, dict) and "size" in value:
                out.append((f"{path}.{key}", value["size"]))
            out += font_sizes(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            out += font_sizes(item, f"{path}[{i}]")
    return out


def test_every_font_marker_and_line_scales(plane):
    big = presenter_figure(plane)
    validated(big)
    before, after = dict(font_sizes(plane.to_dict())), dict(font_sizes(big.to_dict()))
    assert before.keys() == after.keys() and len(before) >= 5
    for key in before:
        assert after[key] == pytest.approx(before[key] * FONT_SCALE), key
    assert big.layout.height == round(plane.layout.height * HEIGHT_SCALE)
    small_spec, big_spec = plane.to_dict(), big.to_dict()
    for small, large in zip(small_spec["data"], big_spec["data"]):
        if "size" in small.get("marker", {}):
            assert large["marker"]["size"] == pytest.approx(small["marker"]["size"] * MARK_SCALE)
        assert large["x"] == small["x"]  # the data are untouched


def test_the_original_is_untouched(plane):
    spec = json.dumps(plane.to_plotly_json(), default=str)
    presenter_figure(plane)
    assert json.dumps(plane.to_plotly_json(), default=str) == spec


def test_per_point_size_arrays_scale():
    import plotly.graph_objects as go

    fig = go.Figure(
        go.Scatter(x=[0, 1, 2], y=[0, 1, 2], mode="markers", marker=dict(size=np.array([4.0, 8.0, 12.0])))
    )
    assert np.allclose(presenter_figure(fig).data[0].marker.size, np.array([4.0, 8.0, 12.0]) * MARK_SCALE)


def test_frames_and_default_sizes_scale():
    import plotly.graph_objects as go

    fig = go.Figure(
        data=[go.Scatter(x=[0, 1], y=[0, 1], mode="lines+markers")],
        frames=[go.Frame(data=[go.Scatter(x=[1, 0], y=[0, 1], mode="markers", marker=dict(size=10))])],
    )
    big = presenter_figure(fig)
    assert big.data[0].marker.size == pytest.approx(6 * MARK_SCALE)  # Plotly's default, scaled
    assert big.data[0].line.width == pytest.approx(2 * MARK_SCALE)
    assert big.frames[0].data[0].marker.size == pytest.approx(10 * MARK_SCALE)
    assert big.layout.font.size == pytest.approx(12 * FONT_SCALE)


# --- the app: figure download buttons and themed charts (AppTest) ---------------------------------

ANNEALING = page_path("Annealing")  # the page list names the file


def annealing_app(**query):
    from app_page import open_page

    return open_page(ANNEALING, {"dataset": "moons", "n": "120", "k": "3", **query})


def figure_tools(at) -> list[str]:
    """The HTML of every figure's PNG/SVG buttons on the page (not the page's stylesheet, an html element
    too, which styles them)."""
    return [
        el.proto.body
        for el in at.get("html")
        if "rbfviz-figure-tools" in el.proto.body and not el.proto.body.startswith("<style>")
    ]


@pytest.mark.usefixtures("fresh_streamlit_caches")
def test_every_chart_figure_gets_png_and_svg_buttons_named_after_it():
    import re

    at = annealing_app()
    charts = at.get("plotly_chart")
    tools = figure_tools(at)
    assert len(charts) >= 2 and len(tools) == len(charts)
    sigma = at.session_state[session_keys.CONTROLS].sigma
    for body in tools:
        name = re.search(r'data-name="([^"]+)"', body).group(1)
        assert re.fullmatch(rf"rbfviz_annealing_[a-z0-9.-]+_moons_sigma-{sigma:.3g}", name), name
        assert 'data-format="png"' in body and 'data-format="svg"' in body
        assert "<button" in body and "aria-label=" in body  # real buttons with accessible names


@pytest.mark.usefixtures("fresh_streamlit_caches")
def test_charts_are_sent_in_the_theme_and_presenter_mode_hides_the_buttons():
    import json

    from rbfviz.views.common.layout import THEME_INK

    at = annealing_app(presenter="1")
    assert figure_tools(at) == []  # a projector needs no downloads
    for chart in at.get("plotly_chart"):
        layout = json.loads(chart.proto.spec)["layout"]
        assert "paper_bgcolor" not in layout and "plot_bgcolor" not in layout  # the theme's
        assert chart.proto.theme == "streamlit"
    text = "".join(chart.proto.spec for chart in at.get("plotly_chart"))
    assert THEME_INK in text and '"#000000"' not in text  # black marks drawn in the theme's ink
