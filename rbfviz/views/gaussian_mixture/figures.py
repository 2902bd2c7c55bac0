"""The Gaussian-mixture view: the mixture scikit-learn learns next to the RBF network at a fixed σ.

``mixture_figure`` draws two planes on the same axes. Left: a spherical Gaussian mixture fitted by
EM (``rbfviz.mixture.fit_mixture``), the points coloured by its posterior, a circle of radius σ_j and
one of 2σ_j around each learned mean μ_j, each mean labelled with its π_j and σ_j in the legend.
Right: the RBF network at σ, the points coloured by the softmax responsibilities, circles of radius
σ and 2σ around every centre c_j (every weight 1/k). Component j and centre j started from the same
point, so they share a colour. In 2-D a circle of radius σ holds 1 − e^(−1/2) ≈ 39 % of a
component's mass and one of 2σ about 86 %.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.field import plane_extent
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.mixture import MixtureFit
from rbfviz.views.common.layout import figure, legend_only, two_planes_layout
from rbfviz.views.common.palette import cluster_colors, mix_colors, rgb_strings
from rbfviz.views.common.plane import CENTER_MARKER, markers_trace, resp_hovertemplate

ONE_SIGMA = dict(width=2.5, dash="solid")
TWO_SIGMA = dict(width=1.5, dash="dot")
CIRCLE_LEGEND_COLOR = "#555555"
# width / height of each panel's data range, so that an equal-aspect plane fills its half of the figure
PANEL_ASPECT = 1.15


def _circles(centers: np.ndarray, radii: np.ndarray, colors: list[str], xref: str, yref: str) -> list[dict]:
    """Layout shapes: a circle of radius r_j and one of 2·r_j around each centre, in its colour."""
    shapes = []
    for (cx, cy), radius, color in zip(centers, radii, colors):
        for factor, style in ((1.0, ONE_SIGMA), (2.0, TWO_SIGMA)):
            r = factor * float(radius)
            shapes.append(
                dict(
                    type="circle",
                    xref=xref,
                    yref=yref,
                    x0=float(cx) - r,
                    x1=float(cx) + r,
                    y0=float(cy) - r,
                    y1=float(cy) + r,
                    line=dict(color=color, **style),
                    layer="above",
                )
            )
    return shapes


def _points(X: np.ndarray, resp: np.ndarray, xa: str, ya: str, name: str, first: bool) -> dict:
    return markers_trace(
        X,
        xaxis=xa,
        yaxis=ya,
        name=name,
        showlegend=first,
        legendgroup="points",
        marker=dict(color=rgb_strings(mix_colors(resp)), size=6, opacity=0.8),
        customdata=np.round(resp, 4),
        hovertemplate=resp_hovertemplate(resp.shape[1]),
    )


def _centres(centers, text: list[str], xa: str, ya: str, name: str) -> dict:
    k = centers.shape[0]
    return markers_trace(
        centers,
        xaxis=xa,
        yaxis=ya,
        name=name,
        marker=dict(CENTER_MARKER, color=cluster_colors(k), size=16),
        text=text,
        hovertemplate="%{text}<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
    )


def _learned_means(means: np.ndarray, sigmas: np.ndarray, weights: np.ndarray, tr: Translator) -> list[dict]:
    """One trace per learned mean, so that each has a legend entry in its colour that labels it with
    its π_j and σ_j (labels on the plane would cover each other where components overlap)."""
    colors = cluster_colors(means.shape[0])
    return [
        dict(
            type="scatter",
            x=[float(mean[0])],
            y=[float(mean[1])],
            mode="markers",
            xaxis="x",
            yaxis="y",
            name=tr.format(
                "μ<sub>{j}</sub>: π<sub>{j}</sub> = {weight:.2f}, σ<sub>{j}</sub> = {radius:.2g}",
                j=j,
                weight=weight,
                radius=radius,
            ),
            marker=dict(CENTER_MARKER, color=colors[j], size=16),
            hovertemplate=(
                tr("component {j}: π = {weight:.3f}, σ = {radius:.3g}", j=j, weight=weight, radius=radius)
                + "<br>μ = (%{x:.3f}, %{y:.3f})<extra></extra>"
            ),
        )
        for j, (mean, radius, weight) in enumerate(zip(means, sigmas, weights))
    ]


def mixture_figure(
    X,
    fit: MixtureFit,
    centers,
    resp,
    sigma: float,
    title: str | None = None,
    height: int = 560,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """Two planes side by side on the same axes: the learned mixture (left) and the RBF network (right).

    X (n, 2): the points. fit: the fitted spherical mixture (means (k, 2), sigmas (k,), weights (k,),
    resp (n, k)). centers (k, 2): the RBF centres at σ; resp (n, k): their softmax responsibilities.
    sigma: the RBF width (data units). Component j and centre j share cluster colour j.
    Traces: left points, right points, RBF centres, two legend-only circle entries, then one trace per
    learned mean, whose legend entry reads "μ_j: π_j = …, σ_j = …".
    Shapes: per component (1σ_j, 2σ_j) on x/y, then per centre (σ, 2σ) on x2/y2.
    """
    X = np.asarray(X, dtype=np.float64)
    centers = np.asarray(centers, dtype=np.float64)
    resp = np.asarray(resp, dtype=np.float64)
    means, sigmas, weights = (np.asarray(a, dtype=np.float64) for a in (fit.means, fit.sigmas, fit.weights))
    k = means.shape[0]
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2), got {X.shape}.")
    if centers.shape != (k, 2) or resp.shape != (X.shape[0], k) or fit.resp.shape != (X.shape[0], k):
        raise ValueError(
            f"centers must be ({k}, 2) and both responsibilities ({X.shape[0]}, {k}); got {centers.shape}, "
            f"{resp.shape} and {fit.resp.shape}."
        )
    colors = cluster_colors(k)
    fixed = [
        tr("RBF centre {j}: σ = {sigma:.3g}, weight 1/k = {weight:.3f}", j=j, sigma=sigma, weight=1 / k)
        for j in range(k)
    ]
    points = tr("points (colour mixed by r)")
    data = [
        _points(X, np.asarray(fit.resp, dtype=np.float64), "x", "y", points, True),
        _points(X, resp, "x2", "y2", points, False),
        _centres(
            centers,
            fixed,
            "x2",
            "y2",
            tr("RBF centres c_j (each σ = {sigma:.2g}, 1/k = {weight:.2f})", sigma=sigma, weight=1 / k),
        ),
        legend_only(
            tr("circle of radius σ"), mode="lines", line=dict(color=CIRCLE_LEGEND_COLOR, **ONE_SIGMA)
        ),
        legend_only(tr("radius 2σ"), mode="lines", line=dict(color=CIRCLE_LEGEND_COLOR, **TWO_SIGMA)),
        *_learned_means(means, sigmas, weights, tr),
    ]
    shapes = _circles(means, sigmas, colors, "x", "y") + _circles(
        centers, np.full(k, sigma), colors, "x2", "y2"
    )
    layout = two_planes_layout(
        title,
        height,
        plane_extent(X, aspect=PANEL_ASPECT),
        # two short lines each: the titles stay apart on a phone; σ and 1/k are in the legend
        tr("Gaussian mixture<br>EM learns μ_j, σ_j, π_j"),
        tr("RBF network<br>σ and 1/k fixed"),
    )
    layout["separators"] = tr.separators
    layout["shapes"] = shapes
    return figure(data, layout)
