"""The plane while a student edits it by hand: places or drags centres, draws or erases points.

The browser's plane editor (rbfviz/views/common/web/plane_edit.js, ui/plane_edit.py) draws this figure
and reads its traces by index: trace 0 the points, trace 1 the centres.

* ``editing_extent(X, centres)`` – the plane's extent: the data's and the centres' with room around
                                  them, or ``CANVAS`` (an empty or tiny data set still gets room to draw on).
* ``editing_figure(X, centres, extent, title)`` – points in grey, centres numbered in their colours.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.field import PLANE_ASPECT, plane_extent
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.layout import base_layout, figure, plane_axes
from rbfviz.views.common.palette import cluster_colors
from rbfviz.views.common.plane import CENTER_MARKER

# The plane to draw on while there are no data to size it by, in data units (the built-in data sets span a
# few units), shaped like every other plane (PLANE_ASPECT).
CANVAS = (-5.0, 5.0, -4.0, 4.0)
POINT_COLOR = "rgba(90,90,90,0.8)"
POINTS_TRACE, CENTRES_TRACE = 0, 1


def editing_extent(X, centres=None) -> tuple:
    """(x_min, x_max, y_min, y_max): the data's and the centres' extent with room around them
    (``plane_extent``, a fifth of the span on each side), or CANVAS while there are fewer than 2 points
    or they all sit on one line (nothing to size a plane by). X (n, 2), n >= 0; centres (m, 2) or None."""
    X = np.asarray(X, dtype=np.float64).reshape(-1, 2)
    extra = [] if centres is None else [np.asarray(centres, dtype=np.float64).reshape(-1, 2)]
    both = np.vstack([X, *extra])
    both = both[np.isfinite(both).all(axis=1)]
    if len(X) < 2 or len(both) < 2 or (np.ptp(both, axis=0) <= 0).any():
        return CANVAS
    return plane_extent(both, margin=0.2, aspect=PLANE_ASPECT)


def editing_figure(
    X, centres, extent, title: str | None = None, height: int = 600, tr: Translator = ENGLISH
) -> go.Figure:
    """Points X (n, 2) in grey (trace 0) and centres (m, 2) as numbered discs in the cluster colours
    (trace 1), on a plane of ``extent``, their names in ``tr``'s language. Plotly's own drag (zoom, pan,
    select) is off: a drag moves a centre."""
    X = np.asarray(X, dtype=np.float64).reshape(-1, 2)
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    m = len(centres)
    points = dict(
        type="scatter",
        x=X[:, 0],
        y=X[:, 1],
        mode="markers",
        name=tr("points (n = {n})", n=len(X)),
        marker=dict(color=POINT_COLOR, size=8),
        hovertemplate=tr("point #{number}", number="%{pointNumber}")
        + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
    )
    marks = dict(
        type="scatter",
        x=centres[:, 0],
        y=centres[:, 1],
        mode="markers+text",
        name=tr("centres (drag to move)"),
        text=[str(j) for j in range(m)],
        textfont=dict(size=12, color="#000000", weight="bold"),
        marker=dict(CENTER_MARKER, color=cluster_colors(m) if m else []),
        hovertemplate=tr("centre {number}", number="%{text}") + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
    )
    layout = base_layout(title, height, legend="below", tr=tr)
    layout.update(plane_axes(extent))
    layout["dragmode"] = False
    return figure([points, marks], layout)
