"""Traces and markers of the data plane that several views draw: markers at 2-D points
(``markers_trace``), the points coloured by r, the RBF centres, the K-Means centroids, arrows from a
centre to where a step moves it, and which points are drawn when there are many.

RBF centres are marked with ``CENTER_MARKER`` and K-Means centroids with ``KMEANS_MARKER`` in every view, so a
symbol means the same thing everywhere."""

from __future__ import annotations

import numpy as np

from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.views.common.palette import (
    KMEANS_COLOR,
    cluster_colors,
    mix_colors,
    rgb_strings,
)

# RBF centres are drawn larger than the K-Means ×, so a centre sitting on its centroid still shows
# its cluster colour around the ×.
CENTER_MARKER = dict(symbol="circle", size=24, line=dict(color="#000000", width=2))


KMEANS_MARKER = dict(symbol="x-thin", size=12, color=KMEANS_COLOR, line=dict(color=KMEANS_COLOR, width=3))


WEBGL_ABOVE = 1500  # points; Scattergl above this, plain SVG below (crisper, no WebGL context)


def resp_hovertemplate(k: int) -> str:
    """Hover text showing a point's position and its r vector (customdata = resp)."""
    entries = ", ".join(f"%{{customdata[{j}]:.3f}}" for j in range(k))
    return "x = (%{x:.3f}, %{y:.3f})<br>r = [" + entries + "]<extra></extra>"


# The traces' default legend names, shown as tr(...)
POINTS_NAME = N_("points (colour mixed by r)")
CENTERS_NAME = N_("RBF centres c_j")
KMEANS_NAME = N_("K-Means centroids")


def points_trace(X, resp, name: str | None = None, tr: Translator = ENGLISH) -> dict:
    """Points coloured by their responsibilities, hover = r vector. NaN rows grey. name: the legend's (in
    the reader's language), default POINTS_NAME in ``tr``'s."""
    n, k = resp.shape
    return dict(
        type="scattergl" if n > WEBGL_ABOVE else "scatter",
        x=X[:, 0],
        y=X[:, 1],
        mode="markers",
        name=tr(POINTS_NAME) if name is None else name,
        marker=dict(
            color=rgb_strings(mix_colors(resp)),
            size=7 if n <= 2000 else 5,
            line=dict(color="rgba(0,0,0,0.55)", width=0.6),
        ),
        customdata=np.round(resp, 4),
        hovertemplate=resp_hovertemplate(k),
    )


def markers_trace(points, **trace) -> dict:
    """A scatter trace of markers at the rows of points (m, 2), data units: x the first column, y the
    second. ``trace`` gives the rest (name, marker, hover, axes), in the order Plotly receives it."""
    return dict(type="scatter", x=points[:, 0], y=points[:, 1], mode="markers", **trace)


def centers_trace(centers, name: str | None = None, tr: Translator = ENGLISH) -> dict:
    """The RBF centres (k, 2) as numbered markers; name default CENTERS_NAME in ``tr``'s language."""
    k = centers.shape[0]
    return markers_trace(
        centers,
        name=tr(CENTERS_NAME) if name is None else name,
        marker=dict(color=cluster_colors(k), **CENTER_MARKER),
        customdata=np.arange(k),
        hovertemplate=tr("RBF centre {number}", number="%{customdata}")
        + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
    )


def kmeans_trace(kmeans_centers, name: str | None = None, tr: Translator = ENGLISH) -> dict:
    """The K-Means centroids (k, 2); name default KMEANS_NAME in ``tr``'s language."""
    k = kmeans_centers.shape[0]
    return markers_trace(
        kmeans_centers,
        name=tr(KMEANS_NAME) if name is None else name,
        marker=KMEANS_MARKER,
        customdata=np.arange(k),
        hovertemplate=tr("K-Means centroid {number}", number="%{customdata}")
        + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
    )


# Above this many points the plane draws a seeded subsample (every number still counts all points).
MAX_DRAWN_POINTS = 5000


def drawn_points(n: int, seed: int = 0, limit: int = MAX_DRAWN_POINTS) -> np.ndarray | None:
    """Sorted indices of the points to draw: None (all) for n <= limit, else a seeded subsample."""
    if n <= limit:
        return None
    return np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))


START_MARKER = dict(symbol="circle-open", size=13, color="#333333", line=dict(width=2.5))


ARROW_COLOR = "#222222"  # dark on every cluster colour; the markers at the arrow heads carry the colour


def step_arrows(
    start: np.ndarray, end: np.ndarray, colors, xref: str, yref: str, dash: bool = False
) -> list[dict]:
    """Layout annotations: one arrow per centre from start[j] to end[j] (data coordinates)."""
    out = []
    for (x0, y0), (x1, y1), color, drawn in zip(start, end, colors, step_arrow_drawn(start, end)):
        if not drawn:
            continue
        out.append(
            dict(
                x=float(x1),
                y=float(y1),
                ax=float(x0),
                ay=float(y0),
                xref=xref,
                yref=yref,
                axref=xref,
                ayref=yref,
                showarrow=True,
                arrowhead=3,
                arrowsize=1.3,
                arrowwidth=3 if not dash else 2,
                arrowcolor=color,
                text="",
            )
        )
    return out


def step_arrow_drawn(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """(k,) bool: centre j gets an arrow from start[j] to end[j] (k, 2): both finite and not equal."""
    start, end = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    return np.isfinite(start).all(axis=1) & np.isfinite(end).all(axis=1) & (start != end).any(axis=1)
