"""Light and dark theme: ``themed_spec`` leaves backgrounds, text, grid and legend colours to the theme,
turns ink colours into the theme's text colour, and keeps a field image's subplot as drawn."""

import plotly.graph_objects as go
import pytest

from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.views.common.layout import (
    FIELD_LEGEND,
    THEME_INK,
    THEME_INK_RGB,
    base_layout,
    field_image,
    field_subplots,
    figure,
    streamlit_themed,
    themed_spec,
    validated,
)
from rbfviz.views.common.palette import INK_COLORS
from rbfviz.views.explorer.figures import plane_figure

INK = "#abcdef"


def line_figure() -> go.Figure:
    layout = base_layout("a title", x_title="σ", y_title="J")
    layout["shapes"] = [
        dict(type="line", x0=1, x1=1, y0=0, y1=1, yref="y domain", line=dict(color="#000000"))
    ]
    layout["annotations"] = [dict(x=1, y=1, text="σ_c", font=dict(color="#222222"), arrowcolor="#333333")]
    layout["sliders"] = [dict(currentvalue=dict(font=dict(color="#222222")), steps=[])]
    data = [
        dict(type="scatter", x=[1, 2], y=[3, 4], mode="lines", line=dict(color="#000000")),
        dict(type="scatter", x=[1, 2], y=[3, 4], mode="markers", marker=dict(color="#E69F00")),
        dict(
            type="scatter",
            x=[1, 2],
            y=[4, 5],
            mode="markers",
            marker=dict(color=["rgb(40, 40, 40)", "#0072B2"]),
        ),
    ]
    return figure(data, layout)


def test_theme_colours_are_left_to_the_theme():
    spec = themed_spec(line_figure().to_dict(), INK)
    layout = spec["layout"]
    for key in ("paper_bgcolor", "plot_bgcolor"):
        assert key not in layout
    assert "color" not in layout["font"]
    for axis in ("xaxis", "yaxis"):
        assert not {"gridcolor", "linecolor", "zerolinecolor"} & set(layout[axis])
    assert "bgcolor" not in layout["legend"]
    validated(go.Figure(spec))


def test_inks_become_the_text_colour_and_other_colours_stay():
    spec = themed_spec(line_figure().to_dict(), INK)
    assert spec["data"][0]["line"]["color"] == INK
    assert spec["data"][1]["marker"]["color"] == "#E69F00"
    assert list(spec["data"][2]["marker"]["color"]) == [INK, "#0072B2"]  # spaces and case do not matter
    layout = spec["layout"]
    assert layout["shapes"][0]["line"]["color"] == INK
    assert layout["annotations"][0]["font"]["color"] == INK and layout["annotations"][0]["arrowcolor"] == INK
    assert layout["sliders"][0]["currentvalue"]["font"]["color"] == INK


def test_a_field_image_keeps_its_marks_and_a_light_legend():
    X, _ = make_dataset("blobs", 60, seed=2)
    C = X[:3]
    fig = plane_figure(X, responsibilities(X, C, 0.8, "softmax"), C, C, None, title="plane")
    layout = fig.to_dict()["layout"]
    layout["images"] = [field_image("data:image/png;base64,", (-1, 1, -1, 1))]
    fig = go.Figure(dict(data=fig.to_dict()["data"], layout=layout), _validate=False)
    assert field_subplots(layout) == {("x", "y")}
    before = fig.to_dict()
    spec = themed_spec(fig.to_dict(), INK)
    assert spec["data"] == before["data"]  # every trace sits on the field: nothing recoloured
    assert spec["layout"]["legend"]["bgcolor"] == FIELD_LEGEND["bgcolor"]
    assert spec["layout"]["legend"]["font"]["color"] == FIELD_LEGEND["font"]["color"]
    assert "paper_bgcolor" not in spec["layout"]  # the paper around it still follows the theme


@pytest.mark.parametrize("ref, want", [("x", "x"), ("x1", "x"), ("x2 domain", "x2"), ("paper", None)])
def test_only_the_subplot_of_a_field_keeps_its_inks(ref, want):
    layout = dict(images=[field_image("data:,", (0, 1, 0, 1), xref="x2", yref="y2")])
    assert field_subplots(layout) == {("x2", "y2")}
    data = [
        dict(type="scatter", x=[0], y=[0], marker=dict(color="#000000")),
        dict(type="scatter", x=[0], y=[0], xaxis="x2", yaxis="y2", marker=dict(color="#000000")),
    ]
    spec = themed_spec(dict(data=data, layout=layout), INK)
    assert spec["data"][0]["marker"]["color"] == INK
    assert spec["data"][1]["marker"]["color"] == "#000000"


def test_streamlit_themed_copies_and_uses_the_theme_ink():
    fig = line_figure()
    before = fig.to_dict()
    shown = streamlit_themed(fig)
    assert fig.to_dict() == before  # the builder's figure is untouched (downloads keep light colours)
    assert shown["data"][0]["line"]["color"] == THEME_INK


def test_the_theme_ink_is_near_black_and_no_builder_colour():
    """Outside Streamlit (HTML export, Jupyter) the ink must still read as black on white."""
    r, g, b = (int(THEME_INK[i : i + 2], 16) for i in (1, 3, 5))
    assert max(r, g, b) <= 8 and THEME_INK_RGB == f"rgb({r}, {g}, {b})"
    assert THEME_INK.lower() not in INK_COLORS
