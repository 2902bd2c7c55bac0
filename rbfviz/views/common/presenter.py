"""Presenter mode for any figure: larger text, markers and lines, readable from the back of a room.

``presenter_figure(fig)`` returns a scaled copy of a finished figure, so no builder needs a
presenter argument: every font size (title, axes, ticks, legend, hover, annotations, colour bars,
animation buttons and sliders) is multiplied by ``FONT_SCALE``, marker sizes and line widths by
``MARK_SCALE``, margins by ``FONT_SCALE`` (room for the larger labels; controls below the plot and
legends below the plot move down by the same factor; legend columns widen) and the height by
``HEIGHT_SCALE`` (by ``FONT_SCALE`` for figures with several panels). Animation frames are scaled
the same way, so a played frame keeps the sizes.

Marker sizes and line widths the builder did not set fall back to Plotly's defaults (marker 6,
line 2), which are scaled too; fonts without a size inherit the (scaled) layout font. Arrays of
per-point sizes are scaled element-wise.
"""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go

FONT_SCALE = 1.5
MARK_SCALE = 1.4
HEIGHT_SCALE = 1.15
PLOTLY_FONT, PLOTLY_MARKER, PLOTLY_LINE = 12.0, 6.0, 2.0


def _decoded(value: dict) -> np.ndarray:
    """A numpy array from Plotly's typed-array form {"dtype", "bdata"[, "shape": "rows,cols"]}."""
    array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    shape = value.get("shape")
    return array.reshape([int(v) for v in str(shape).split(",")]) if shape is not None else array.copy()


def _times(value, factor: float):
    if isinstance(value, dict) and "bdata" in value:  # to_dict() writes numpy arrays this way
        value = _decoded(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return (np.asarray(value, dtype=np.float64) * factor).tolist()
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value) * factor
    return value


def _scale_fonts(node, font: float) -> None:
    """Every ``size`` set inside a ``*font`` dict, anywhere below node, times ``font`` (in place).
    Fonts without a size inherit the layout's font, which ``_scale_layout`` scales."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("font") and isinstance(value, dict) and "size" in value:
                value["size"] = _times(value["size"], font)
            _scale_fonts(value, font)
    elif isinstance(node, list):
        for item in node:
            _scale_fonts(item, font)


def _scale_trace(trace: dict, font: float, mark: float) -> None:
    _scale_fonts(trace, font)
    kind = trace.get("type", "scatter")
    mode = trace.get("mode", "")
    marker = trace.get("marker")
    if isinstance(marker, dict) or (kind.startswith("scatter") and "markers" in mode):
        marker = trace.setdefault("marker", {})
        marker["size"] = _times(marker.get("size", PLOTLY_MARKER), mark)
        if isinstance(marker.get("line"), dict) and "width" in marker["line"]:
            marker["line"]["width"] = _times(marker["line"]["width"], mark)
        if isinstance(marker.get("colorbar"), dict) and "thickness" in marker["colorbar"]:
            marker["colorbar"]["thickness"] = _times(marker["colorbar"]["thickness"], mark)
    if isinstance(trace.get("line"), dict) or (kind.startswith("scatter") and "lines" in mode):
        line = trace.setdefault("line", {})
        line["width"] = _times(line.get("width", PLOTLY_LINE), mark)


def _panels(layout: dict) -> int:
    """How many subplots the layout has (x or y axes beyond the first)."""
    return max(
        sum(1 for key in layout if key.startswith(prefix) and isinstance(layout[key], dict))
        for prefix in ("xaxis", "yaxis")
    )


def _scale_layout(layout: dict, font: float, mark: float, height: float) -> None:
    layout.setdefault("font", {}).setdefault("size", PLOTLY_FONT)
    _scale_fonts(layout, font)
    if "height" in layout:
        # several panels need the full factor: larger labels must not squeeze a panel or reach the next
        layout["height"] = int(round(layout["height"] * (font if _panels(layout) > 1 else height)))
    legend = layout.get("legend")
    if isinstance(legend, dict) and "entrywidth" in legend:
        # legend columns grow with their text (a fraction of the width, or pixels)
        factor = legend["entrywidth"] * font
        legend["entrywidth"] = min(factor, 1.0) if legend.get("entrywidthmode") == "fraction" else factor
    margin = layout.get("margin")
    if isinstance(margin, dict):
        for side in ("l", "r", "t", "b"):
            if side in margin:
                margin[side] = int(round(margin[side] * font))
    for note in layout.get("annotations", []) or []:
        for key in ("arrowwidth", "arrowsize"):
            if key in note:
                note[key] = _times(note[key], mark if key == "arrowwidth" else 1.0)
    # a legend or controls placed below the plot (animation buttons, frame slider) move down with the
    # larger axis labels, into the margin that grew by the same factor
    below = [layout["legend"]] if isinstance(layout.get("legend"), dict) else []
    for control in below + (layout.get("updatemenus") or []) + (layout.get("sliders") or []):
        if isinstance(control.get("y"), (int, float)) and control["y"] < 0:
            control["y"] = control["y"] * font
    for shape in layout.get("shapes", []) or []:
        if isinstance(shape.get("line"), dict) and "width" in shape["line"]:
            shape["line"]["width"] = _times(shape["line"]["width"], mark)


def presenter_figure(
    fig: go.Figure, font: float = FONT_SCALE, mark: float = MARK_SCALE, height: float = HEIGHT_SCALE
) -> go.Figure:
    """A copy of fig with fonts × font, markers and lines × mark, margins × font, height × height.

    The copy is built without Plotly's validation (like every builder's figure, see layout.figure).
    """
    spec = fig.to_dict()
    for trace in spec.get("data", []):
        _scale_trace(trace, font, mark)
    _scale_layout(spec.setdefault("layout", {}), font, mark, height)
    for frame in spec.get("frames", []) or []:
        for trace in frame.get("data", []) or []:
            _scale_trace(trace, font, mark)
        if isinstance(frame.get("layout"), dict):
            _scale_fonts(frame["layout"], font)
    return go.Figure(spec, _validate=False)
