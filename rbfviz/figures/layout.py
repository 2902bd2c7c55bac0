"""Shared Plotly layout: readable fonts, equal-aspect planes, legends, and fields as PNG images.

* ``style(fig, title=None, height=...)`` – fonts, margins, white template, legend above the plot.
* ``equal_aspect(fig, extent)``          – x and y in the same units, fixed to ``extent``.
* ``png_data_uri(rgb)``                  – (H, W, 3) uint8 -> "data:image/png;base64,..." (no
                                           Pillow needed; zlib only). Row 0 is the image's TOP.
* ``add_field_image(fig, uri, extent)``  – put such an image under the data, its top-left corner
                                           at (x_min, y_max) and bottom-right at (x_max, y_min).
* ``legend_entry(fig, name, **marker)``  – a legend-only entry for marks drawn inside an image.

An image is used instead of a Heatmap because a 400² field then costs a few tens of kB instead of
~0.5 MB of floats per rerun (see the performance notes).
"""
from __future__ import annotations

import base64
import struct
import zlib

import numpy as np
import plotly.graph_objects as go

FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=15, color="#222222")
AXIS_FONT_SIZE = 14


def style(fig: go.Figure, title: str | None = None, height: int = 560) -> go.Figure:
    """Apply the house style in place and return the figure."""
    fig.update_layout(
        template="plotly_white",
        font=FONT,
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=17)) if title else None,
        height=height,
        margin=dict(l=60, r=20, t=70 if title else 40, b=55),
        legend=dict(orientation="h", yanchor="bottom", y=1.01, xanchor="left", x=0.0,
                    font=dict(size=13), bgcolor="rgba(255,255,255,0.8)"),
        hoverlabel=dict(font=dict(size=13)),
        uirevision="constant",
    )
    fig.update_xaxes(title_font=dict(size=AXIS_FONT_SIZE), tickfont=dict(size=12), zeroline=False)
    fig.update_yaxes(title_font=dict(size=AXIS_FONT_SIZE), tickfont=dict(size=12), zeroline=False)
    return fig


def equal_aspect(fig: go.Figure, extent, row=None, col=None) -> go.Figure:
    """Fix the axes to extent = (x_min, x_max, y_min, y_max) with one data unit equal on both axes."""
    x_min, x_max, y_min, y_max = (float(v) for v in extent)
    fig.update_xaxes(range=[x_min, x_max], constrain="domain", showgrid=False, row=row, col=col)
    fig.update_yaxes(range=[y_min, y_max], scaleanchor="x" if row is None else None,
                     scaleratio=1, constrain="domain", showgrid=False, row=row, col=col)
    return fig


def png_bytes(rgb) -> bytes:
    """Encode an (H, W, 3) uint8 array as a PNG (8-bit RGB, no filtering). Row 0 is the top row."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.shape[0] < 1 or rgb.shape[1] < 1:
        raise ValueError(f"rgb must have shape (H, W, 3), got {rgb.shape}.")
    height, width = rgb.shape[:2]
    # Each scanline starts with filter byte 0 ("None").
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rgb.reshape(height, width * 3)], axis=1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))


def png_data_uri(rgb) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes(rgb)).decode("ascii")


def add_field_image(fig: go.Figure, uri: str, extent, row=None, col=None) -> go.Figure:
    """Stretch an image over extent = (x_min, x_max, y_min, y_max), below every trace."""
    x_min, x_max, y_min, y_max = (float(v) for v in extent)
    fig.add_layout_image(source=uri, xref="x", yref="y", x=x_min, y=y_max, sizex=x_max - x_min,
                         sizey=y_max - y_min, xanchor="left", yanchor="top", sizing="stretch",
                         layer="below", row=row, col=col)
    return fig


def legend_entry(fig: go.Figure, name: str, mode: str = "markers", **style_kwargs) -> go.Figure:
    """A trace with no data, only a legend entry (for marks that are drawn inside an image)."""
    fig.add_trace(go.Scatter(x=[None], y=[None], mode=mode, name=name, hoverinfo="skip", **style_kwargs))
    return fig
