"""Presenter mode: every font, marker and line of a figure gets larger, frames too; nothing else changes."""

import json

import numpy as np
import pytest

from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.views.figures.layout import validated
from rbfviz.views.figures.plane import plane_figure
from rbfviz.views.figures.presenter import FONT_SCALE, HEIGHT_SCALE, MARK_SCALE, presenter_figure


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
