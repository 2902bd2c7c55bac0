"""Picking starting centres on the plane: the picked points drawn over any plane figure.

* ``picks_traces(X, picks, k)`` – the picked points as numbered rings (over a dark halo): the first
                                   k (the start) in their cluster colours, extra picks in grey.
* ``picking_figure(X, picks, k, extent)`` – the plane while fewer than k points are picked: every
                                   point in grey (trace 0, the one to click), the picks on top.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.layout import base_layout, figure, plane_axes
from rbfviz.views.common.palette import MAX_CLUSTERS, cluster_colors
from rbfviz.views.common.plane import WEBGL_ABOVE

PICK_MARKER = dict(symbol="circle-open", size=26, line=dict(width=4))
EXTRA_COLOR = "#777777"
HALO_COLOR = "#111111"
POINT_COLOR = "rgba(90,90,90,0.75)"


def point_hovertemplate(tr: Translator = ENGLISH) -> str:
    """Hover text naming a point by its number (the number the picks use)."""
    return tr("point") + " #%{pointNumber}<br>x = (%{x:.3f}, %{y:.3f})<extra></extra>"


def picks_traces(X, picks, k: int, name: str | None = None, tr: Translator = ENGLISH) -> list[dict]:
    """Numbered rings on the picked points (the last trace); the first k in cluster colours
    j = 0..k-1, the rest grey; under them a black halo, so a ring shows on its own cluster's colour.
    name: the legend's (default "picked starting points", in ``tr``'s language)."""
    X = np.asarray(X, dtype=np.float64)
    picks = [int(i) for i in picks]
    colors = cluster_colors(min(max(int(k), 1), MAX_CLUSTERS))
    ring = [colors[j] if j < k else EXTRA_COLOR for j in range(len(picks))]
    x, y = (X[picks, 0], X[picks, 1]) if picks else ([], [])
    halo = dict(
        type="scatter",
        x=x,
        y=y,
        mode="markers",
        showlegend=False,
        hoverinfo="skip",
        marker=dict(
            symbol="circle-open",
            size=PICK_MARKER["size"],
            color=HALO_COLOR,
            line=dict(width=PICK_MARKER["line"]["width"] + 3, color=HALO_COLOR),
        ),
    )
    rings = dict(
        type="scatter",
        x=x,
        y=y,
        mode="markers+text",
        name=tr("picked starting points") if name is None else name,
        text=[str(j + 1) for j in range(len(picks))],
        textposition="top right",
        textfont=dict(size=17, color="#000000", weight="bold"),
        marker=dict(PICK_MARKER, color=ring, line=dict(PICK_MARKER["line"], color=ring)),
        customdata=picks,
        hovertemplate=tr("pick {number}: point {point}", number="%{text}", point="#%{customdata}")
        + "<extra></extra>",
    )
    return [halo, rings]


def picking_figure(
    X, picks, k: int, extent, title: str | None = None, height: int = 640, tr: Translator = ENGLISH
) -> go.Figure:
    """Every point in grey (trace 0: click, box or lasso to pick), then the picks as numbered rings; its
    words in ``tr``'s language."""
    X = np.asarray(X, dtype=np.float64)
    points = dict(
        type="scattergl" if len(X) > WEBGL_ABOVE else "scatter",
        x=X[:, 0],
        y=X[:, 1],
        mode="markers",
        name=tr("points (click to pick)"),
        marker=dict(color=POINT_COLOR, size=7 if len(X) <= 2000 else 5),
        hovertemplate=point_hovertemplate(tr),
        selected=dict(marker=dict(opacity=1.0)),
        unselected=dict(marker=dict(opacity=1.0)),
    )
    layout = base_layout(title, height, legend="below", tr=tr)
    layout.update(plane_axes(extent))
    return figure([points, *picks_traces(X, picks, k, tr=tr)], layout)
