"""Shared Plotly layout: readable fonts, equal-aspect planes, legends, and fields as PNG images.

Builders assemble plain dicts and wrap them with ``figure(data, layout)``, which skips Plotly's
property validation: validating a 500-point figure with per-point colours and a template costs
~40–50 ms per rerun, more than the rest of an Explorer rerun together. The builders' unit tests
validate every figure instead (``validated(fig)`` re-creates it with validation on).

* ``figure(data, layout)``           – go.Figure from trace dicts and a layout dict, unvalidated.
* ``validated(fig)``                 – the same figure through Plotly's validators (tests).
* ``base_layout(title, height, legend="above"|"below")`` – fonts, margins, white background, legend.
* ``framed_axis()``                  – an axis with a light grid and a frame (σ axes, small panels).
* ``plane_axes(extent)``             – x and y in the same units, fixed to extent (a dict to merge).
* ``png_data_uri(rgb)``              – (H, W, 3) uint8 -> "data:image/png;base64,..." (zlib-ng's deflate,
                                       no imaging library).
                                       Row 0 is the image's TOP. ``png_bytes`` (RGB) and
                                       ``png_indexed_bytes`` (palette) give the PNG itself,
                                       ``data_uri`` its URI; ``png_scanlines`` and
                                       ``png_scanline_bytes`` encode an image built in place in
                                       the PNG's rows (no copy).
* ``field_image(uri, extent)``       – a layout image under the data: its top-left corner at
                                       (x_min, y_max), bottom-right at (x_max, y_min).
* ``legend_only(name, ...)``         – a legend entry for marks drawn inside an image.
* ``with_gaps(values)``              – a line's y values as floats, NaN/inf as None (a gap in the line).
* ``streamlit_themed(fig)``          – the spec for st.plotly_chart's Streamlit theme: backgrounds,
                                       text, grid and legend follow the light or dark theme in the
                                       browser, ink colours become the theme's text colour.

A field is an image instead of a Heatmap because a 400² picture then costs tens of kB instead of
~0.5 MB of floats per rerun (see the performance notes).
"""

from __future__ import annotations

import base64
import math
import re
import struct
import zlib

import numpy as np
import plotly.graph_objects as go
from zlib_ng import zlib_ng

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.palette import INK_COLORS

FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=15, color="#222222")
GRID_COLOR = "#e6e6e6"
# The ink of figures shown by st.plotly_chart: looks black, and the page's stylesheet (ui.page.CHART_CSS)
# draws every SVG fill or stroke of exactly this colour in the text colour of the theme shown, also
# right after a theme switch (Streamlit's own colour placeholders are resolved once, when a chart is
# first drawn, so they would keep the old theme's colour until the figure changes).
THEME_INK = "#010203"
THEME_INK_RGB = "rgb(1, 2, 3)"
# A field image is light in both themes, and the legend shows the marks drawn on it: its legend
# keeps a light box with dark text. rbfviz/views/common/web/scrub.js uses the same values.
FIELD_LEGEND = dict(bgcolor="rgba(255,255,255,0.9)", font=dict(color=FONT["color"]))
# zlib-ng's deflate level for a PNG's pixels: field images are most of a σ payload's bytes and much of the
# time to build it. At level 5 zlib-ng takes about a third of the standard zlib's time at level 6 for PNGs
# about a sixth larger; lower levels save little more time for many more bytes.
PNG_LEVEL = 5
_AXIS_KEY = re.compile(r"^[xy]axis\d*$")
# Colours that come from the theme when a figure is shown in Streamlit (base_layout sets them for
# figures shown elsewhere: HTML downloads, Jupyter).
_THEMED_AXIS = ("gridcolor", "linecolor", "zerolinecolor")


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A go.Figure from trace dicts and a layout dict, without Plotly's (slow) validation."""
    return go.Figure(data=data, layout=layout, _validate=False)


def validated(fig: go.Figure) -> go.Figure:
    """Re-create fig with Plotly's validation on: raises ValueError on any invalid property."""
    return go.Figure(fig.to_dict())


def _axis(title: str | None = None, **extra) -> dict:
    axis = dict(
        title=dict(text=title, font=dict(size=14)) if title else None,
        tickfont=dict(size=12),
        zeroline=False,
        gridcolor=GRID_COLOR,
        linecolor="#888888",
        showline=True,
        mirror=True,
    )
    axis.update(extra)
    return axis


def framed_axis(tick_size: int = 11) -> dict:
    """An axis with a light grid and a frame around the plot: the σ axes, and each small panel of a
    multi-panel figure (11-pt ticks)."""
    return dict(
        tickfont=dict(size=tick_size),
        gridcolor=GRID_COLOR,
        linecolor="#888888",
        showline=True,
        mirror=True,
        zeroline=False,
    )


def base_layout(
    title: str | None = None,
    height: int = 560,
    x_title: str | None = None,
    y_title: str | None = None,
    legend: str = "above",
    tr: Translator = ENGLISH,
) -> dict:
    """The house layout: fonts, margins, white background, a horizontal legend, and the numbers in
    ``tr``'s language (its decimal and thousands separators; the words are the caller's, already in it).

    legend="above" puts it between the title and the plot; "below" under the x axis (better when
    the legend wraps to two rows and would collide with the title), and under the x axis' title
    when there is one.
    """
    if legend not in ("above", "below"):
        raise ValueError(f"legend must be 'above' or 'below', got {legend!r}.")
    if legend == "above":
        margin = dict(l=60, r=20, t=90 if title else 50, b=55)
        legend_pos = dict(yanchor="bottom", y=1.01)
    elif x_title is None:
        margin = dict(l=60, r=20, t=50 if title else 20, b=120)
        legend_pos = dict(yanchor="top", y=-0.14)
    else:
        margin = dict(l=60, r=20, t=50 if title else 20, b=150)
        legend_pos = dict(yanchor="top", y=-0.24)
    return dict(
        font=FONT,
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=17)) if title else None,
        height=height,
        margin=margin,
        paper_bgcolor="white",
        plot_bgcolor="white",
        legend=dict(
            orientation="h",
            xanchor="left",
            x=0.0,
            font=dict(size=13),
            bgcolor="rgba(255,255,255,0.85)",
            **legend_pos,
        ),
        hoverlabel=dict(font=dict(size=13)),
        uirevision="constant",  # keep the user's zoom across reruns
        separators=tr.separators,
        xaxis=_axis(x_title),
        yaxis=_axis(y_title),
    )


def plane_axes(extent, x_title: str = "x₁", y_title: str = "x₂") -> dict:
    """xaxis/yaxis fixed to extent = (x_min, x_max, y_min, y_max), one data unit equal on both axes."""
    x_min, x_max, y_min, y_max = (float(v) for v in extent)
    return dict(
        xaxis=_axis(x_title, range=[x_min, x_max], constrain="domain", showgrid=False),
        yaxis=_axis(
            y_title, range=[y_min, y_max], scaleanchor="x", scaleratio=1, constrain="domain", showgrid=False
        ),
    )


def two_planes_layout(title: str | None, height: int, extent, left: str, right: str) -> dict:
    """The layout of two planes side by side over the same ``extent`` (axes x/y on the left, x2/y2 on the
    right), each with its bold panel title (``left``, ``right``) above it, and the legend below."""
    layout = base_layout(title, height, legend="below")
    axes = plane_axes(extent)
    layout["xaxis"] = dict(axes["xaxis"], domain=[0.0, 0.48])
    layout["yaxis"] = axes["yaxis"]
    layout["xaxis2"] = dict(axes["xaxis"], domain=[0.52, 1.0], anchor="y2")
    layout["yaxis2"] = dict(axes["yaxis"], scaleanchor="x2", anchor="x2", title=None)
    layout["annotations"] = [
        dict(
            xref=xa,
            yref="paper",
            x=0.5,
            y=1.0,
            yanchor="bottom",
            yshift=6,
            showarrow=False,
            text=f"<b>{text}</b>",
            font=dict(size=14),
        )
        for xa, text in (("x domain", left), ("x2 domain", right))
    ]
    layout["margin"]["t"] = 95 if title else 50  # room for the two panel titles
    return layout


def png_scanline_bytes(scanlines: np.ndarray, palette: np.ndarray | None = None) -> bytes:
    """A PNG of 8-bit samples from its scanlines as they are compressed: ``scanlines`` (H, 1 + W·samples)
    uint8, C-contiguous, each row its filter byte 0 ("None") then its samples, compressed by zlib-ng at
    ``PNG_LEVEL``. With ``palette`` (p, 3) uint8 RGB, p <= 256: a palette PNG (a sample per pixel, an
    index below p); without: an RGB PNG (three samples per pixel). Callers that build an image into such
    rows (``png_scanlines``) save the copy ``png_bytes`` and ``png_indexed_bytes`` make."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    height, row_bytes = scanlines.shape
    samples = 3 if palette is None else 1
    header = struct.pack(
        ">IIBBBBB", (row_bytes - 1) // samples, height, 8, 2 if palette is None else 3, 0, 0, 0
    )
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + (chunk(b"PLTE", palette.tobytes()) if palette is not None else b"")
        + chunk(b"IDAT", zlib_ng.compress(scanlines, PNG_LEVEL))
        + chunk(b"IEND", b"")
    )


def png_scanlines(shape: tuple) -> np.ndarray:
    """Zeroed PNG scanlines for images of ``shape`` = (..., H, W·samples): (..., H, 1 + W·samples) uint8, the
    filter byte 0 first in each row. Write an image into ``[..., 1:]``; hand each image's rows to
    ``png_scanline_bytes``."""
    return np.zeros((*shape[:-1], 1 + shape[-1]), dtype=np.uint8)


def png_bytes(rgb) -> bytes:
    """Encode an (H, W, 3) uint8 array as a PNG (8-bit RGB, no filtering). Row 0 is the top row."""
    rgb = np.asarray(rgb, dtype=np.uint8)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.shape[0] < 1 or rgb.shape[1] < 1:
        raise ValueError(f"rgb must have shape (H, W, 3), got {rgb.shape}.")
    height, width = rgb.shape[:2]
    scanlines = png_scanlines((height, width * 3))
    scanlines[:, 1:] = rgb.reshape(height, width * 3)
    return png_scanline_bytes(scanlines)


def png_indexed_bytes(indices, palette) -> bytes:
    """Encode an (H, W) uint8 array of palette entries and its palette (p, 3) uint8 RGB, p <= 256, as an
    8-bit palette PNG (no filtering). Decoded, pixel (i, j) is palette[indices[i, j]]. Row 0 is the top."""
    indices = np.asarray(indices, dtype=np.uint8)
    palette = np.ascontiguousarray(palette, dtype=np.uint8)
    if indices.ndim != 2 or indices.shape[0] < 1 or indices.shape[1] < 1:
        raise ValueError(f"indices must have shape (H, W), got {indices.shape}.")
    if palette.ndim != 2 or palette.shape[1] != 3 or not 1 <= palette.shape[0] <= 256:
        raise ValueError(f"palette must have shape (p, 3) with 1 <= p <= 256, got {palette.shape}.")
    if indices.max() >= palette.shape[0]:
        raise ValueError(f"indices must be below the palette's {palette.shape[0]} entries.")
    scanlines = png_scanlines(indices.shape)
    scanlines[:, 1:] = indices
    return png_scanline_bytes(scanlines, palette)


def data_uri(png: bytes) -> str:
    """A PNG's bytes as a "data:image/png;base64,..." URI."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def png_data_uri(rgb) -> str:
    return data_uri(png_bytes(rgb))


def field_image(uri: str, extent, xref: str = "x", yref: str = "y") -> dict:
    """A layout image stretched over extent = (x_min, x_max, y_min, y_max), below every trace."""
    x_min, x_max, y_min, y_max = (float(v) for v in extent)
    return dict(
        source=uri,
        xref=xref,
        yref=yref,
        x=x_min,
        y=y_max,
        sizex=x_max - x_min,
        sizey=y_max - y_min,
        xanchor="left",
        yanchor="top",
        sizing="stretch",
        layer="below",
    )


def legend_only(name: str, mode: str = "markers", **style) -> dict:
    """A trace with no data, only a legend entry (for marks that are drawn inside an image)."""
    return dict(type="scatter", x=[None], y=[None], mode=mode, name=name, hoverinfo="skip", **style)


# --- light and dark theme -------------------------------------------------------------------------


def with_gaps(values) -> list:
    """values (n,) as a list of floats, NaN and ±inf as None: Plotly leaves a gap in a line there."""
    return [float(v) if math.isfinite(v) else None for v in np.asarray(values, dtype=np.float64)]


def _axis_name(ref) -> str | None:
    """ "x", "x2" for an axis reference ("x", "x1", "x2 domain", "xaxis2"); None for "paper"."""
    if not isinstance(ref, str):
        return None
    match = re.match(r"^([xy])(?:axis)?(\d*)", ref)
    if not match:
        return None
    number = match.group(2)
    return match.group(1) + ("" if number in ("", "1") else number)


def field_subplots(layout: dict) -> set[tuple[str, str]]:
    """(x axis, y axis) of every subplot whose background is a field image (a layout image below
    the data, placed in data coordinates)."""
    out = set()
    for image in layout.get("images") or []:
        if image.get("layer") == "below":
            x, y = _axis_name(image.get("xref", "x")), _axis_name(image.get("yref", "y"))
            if x and y:
                out.add((x, y))
    return out


def _inked(node, ink: str):
    """node with every ink colour (palette.INK_COLORS) replaced by ``ink``, in place where possible."""
    if isinstance(node, str):
        return ink if node.strip().lower().replace(" ", "") in INK_COLORS else node
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, (str, dict, list)):
                node[key] = _inked(value, ink)
        return node
    if isinstance(node, list):
        return [_inked(item, ink) if isinstance(item, (str, dict, list)) else item for item in node]
    return node


def themed_spec(spec: dict, ink: str = THEME_INK) -> dict:
    """Make a figure dict (``fig.to_dict()``) follow the theme it is shown in, in place; returns it.

    * the paper and plot backgrounds, the text colour, the axes' grid and line colours, the legend's
      background and the hover label's colours are removed, so the theme's values apply;
    * every ink colour (``palette.INK_COLORS``) in traces, shapes, annotations, sliders and menus
      becomes ``ink`` (default ``THEME_INK``, which the page draws in the theme's text colour), and
      so does the text of an annotation that has no colour of its own;
    * except in subplots whose background is a field image: that picture is light in both themes,
      so the marks on it keep their colours, and the legend (which shows them) keeps a light box.
    """
    layout = spec.setdefault("layout", {})
    fields = field_subplots(layout)
    for key in ("paper_bgcolor", "plot_bgcolor"):
        layout.pop(key, None)
    if isinstance(layout.get("font"), dict):
        layout["font"].pop("color", None)
    for key, axis in layout.items():
        if _AXIS_KEY.match(key) and isinstance(axis, dict):
            for name in _THEMED_AXIS:
                axis.pop(name, None)
    legend = layout.get("legend")
    if isinstance(legend, dict):
        legend.pop("bgcolor", None)
        if fields:
            legend["bgcolor"] = FIELD_LEGEND["bgcolor"]
            legend.setdefault("font", {})["color"] = FIELD_LEGEND["font"]["color"]
    if isinstance(layout.get("hoverlabel"), dict):
        layout["hoverlabel"].pop("bgcolor", None)
        if isinstance(layout["hoverlabel"].get("font"), dict):
            layout["hoverlabel"]["font"].pop("color", None)
    axes = []
    for index, trace in enumerate(spec.get("data") or []):
        on_field = (_axis_name(trace.get("xaxis", "x")), _axis_name(trace.get("yaxis", "y"))) in fields
        axes.append(on_field)
        if not on_field:
            _inked(trace, ink)
    for key in ("shapes", "annotations"):
        for item in layout.get(key) or []:
            if (_axis_name(item.get("xref", "x")), _axis_name(item.get("yref", "y"))) not in fields:
                _inked(item, ink)
                if key == "annotations" and "color" not in (item.get("font") or {}):
                    # a note without a colour of its own (a panel's title) in the theme's text colour,
                    # not the chart theme's grey (3.7:1 on white, under WCAG AA's 4.5:1)
                    item["font"] = {**(item.get("font") or {}), "color": ink}
    for key in ("sliders", "updatemenus"):
        _inked(layout.get(key) or [], ink)
    for frame in spec.get("frames") or []:
        data = frame.get("data") or []
        targets = frame.get("traces") or range(len(data))
        for target, trace in zip(targets, data):
            if not (target < len(axes) and axes[target]):
                _inked(trace, ink)
    return spec


def streamlit_themed(fig: go.Figure) -> dict:
    """fig's spec (``fig.to_dict()``, a copy: fig is left as it is) for st.plotly_chart(theme="streamlit"):
    see ``themed_spec``."""
    return themed_spec(fig.to_dict())
