"""Figures of the Equivalence view: one GD step next to one Lloyd step, the two training
trajectories from the same start, and L_σ − J against σ with its bound.

Colours and markers as everywhere: cluster j in ``cluster_colors(k)[j]``; RBF (gradient-descent)
centres filled circles in their cluster colour; Lloyd/K-Means centres black × (``KMEANS_MARKER``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.field import plane_extent
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.layout import base_layout, figure, plane_axes, two_planes_layout
from rbfviz.views.common.palette import KMEANS_COLOR, cluster_colors, mix_colors, rgb_strings, tex_color
from rbfviz.views.common.plane import (
    ARROW_COLOR,
    CENTER_MARKER,
    KMEANS_MARKER,
    START_MARKER,
    markers_trace,
    step_arrows,
)
from rbfviz.views.equivalence.arrays import GapCurve, OneStep, Trajectories

POINT_GREY = "rgba(120,120,120,0.35)"


def step_figure(
    X, resp, step: OneStep, title: str | None = None, height: int = 520, tr: Translator = ENGLISH
) -> go.Figure:
    """Two planes side by side, same scale: left the gradient step (η_j = 1/(2N_j)) from the start,
    right the Lloyd step from the same start. Points are coloured by their responsibilities at the
    start. Traces: per panel [points, start, new centres]; arrows are layout annotations."""
    X = np.asarray(X, dtype=np.float64)
    resp = np.asarray(resp, dtype=np.float64)
    k = step.start.shape[0]
    colors = cluster_colors(k)
    point_colors = rgb_strings(mix_colors(resp))
    extent = plane_extent(X)
    data, annotations = [], []
    panels = (
        (
            "x",
            "y",
            step.gd,
            tr("gradient step"),
            tr("after one gradient step"),
            dict(CENTER_MARKER, color=colors, size=16),
        ),
        ("x2", "y2", step.lloyd, tr("Lloyd step"), tr("after one Lloyd step"), KMEANS_MARKER),
    )
    for i, (xa, ya, new, label, after, marker) in enumerate(panels):
        data.append(
            markers_trace(
                X,
                xaxis=xa,
                yaxis=ya,
                name=tr("points (colour mixed by r at the start)"),
                showlegend=i == 0,
                legendgroup="points",
                marker=dict(color=point_colors, size=6, opacity=0.75),
                hoverinfo="skip",
            )
        )
        data.append(
            markers_trace(
                step.start,
                xaxis=xa,
                yaxis=ya,
                name=tr("start c⁰"),
                showlegend=i == 0,
                legendgroup="start",
                marker=START_MARKER,
                hovertemplate=tr("start") + " (%{x:.3f}, %{y:.3f})<extra></extra>",
            )
        )
        data.append(
            markers_trace(
                new,
                xaxis=xa,
                yaxis=ya,
                name=after,
                marker=marker,
                customdata=np.arange(k),
                hovertemplate=f"{label}, "
                + tr("centre")
                + " %{customdata}<br>(%{x:.4f}, %{y:.4f})<extra></extra>",
            )
        )
        annotations += step_arrows(step.start, new, [ARROW_COLOR] * k, xa, ya)
    layout = two_planes_layout(
        title, height, extent, tr("one gradient step on L_σ<br>η_j = 1/(2N_j)"), tr("one Lloyd step")
    )
    layout["separators"] = tr.separators
    layout["annotations"] = annotations + layout["annotations"]
    return figure(data, layout)


def trajectory_figure(
    X, traj: Trajectories, title: str | None = None, height: int = 560, tr: Translator = ENGLISH
) -> go.Figure:
    """Both training paths in the plane: gradient descent (cluster colours, solid) and Lloyd (black,
    dashed) from the same start (open circles). Traces: points, then per centre j a GD path and a
    Lloyd path, then the end points."""
    X = np.asarray(X, dtype=np.float64)
    k = traj.gd.shape[1]
    colors = cluster_colors(k)
    data = [
        markers_trace(
            X,
            name=tr("points"),
            marker=dict(color=POINT_GREY, size=5),
            hoverinfo="skip",
        )
    ]
    steps = np.arange(traj.gd.shape[0])
    for j in range(k):
        data.append(
            dict(
                type="scatter",
                x=traj.gd[:, j, 0],
                y=traj.gd[:, j, 1],
                mode="lines+markers",
                name=tr("gradient descent") if j == 0 else tr("GD centre {j}", j=j),
                legendgroup="gd",
                showlegend=j == 0,
                line=dict(color=colors[j], width=3.5),
                marker=dict(size=6, color=colors[j]),
                customdata=steps,
                hovertemplate=(
                    tr("GD centre {j}", j=j)
                    + ", "
                    + tr("step")
                    + " %{customdata}<br>(%{x:.4f}, %{y:.4f})<extra></extra>"
                ),
            )
        )
        data.append(
            dict(
                type="scatter",
                x=traj.lloyd[:, j, 0],
                y=traj.lloyd[:, j, 1],
                mode="lines+markers",
                name="Lloyd" if j == 0 else tr("Lloyd centre {j}", j=j),
                legendgroup="lloyd",
                showlegend=j == 0,
                line=dict(color=KMEANS_COLOR, width=2, dash="dash"),
                marker=dict(size=4, color=KMEANS_COLOR),
                customdata=steps,
                hovertemplate=(
                    tr("Lloyd centre {j}", j=j)
                    + ", "
                    + tr("step")
                    + " %{customdata}<br>(%{x:.4f}, %{y:.4f})<extra></extra>"
                ),
            )
        )
    data.append(
        markers_trace(
            traj.gd[0],
            name=tr("start"),
            marker=START_MARKER,
            hoverinfo="skip",
        )
    )
    data.append(
        markers_trace(
            traj.gd[-1],
            name=tr("GD end"),
            marker=dict(color=colors, **CENTER_MARKER),
            hoverinfo="skip",
        )
    )
    data.append(
        markers_trace(
            traj.lloyd[-1],
            name=tr("Lloyd end"),
            marker=KMEANS_MARKER,
            hoverinfo="skip",
        )
    )
    layout = base_layout(title, height, legend="below", tr=tr)
    layout.update(plane_axes(plane_extent(X)))
    return figure(data, layout)


def _positive_log(values: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Values for a log axis: positive finite ones kept, the rest None; plus a mask of exact zeros."""
    values = np.asarray(values, dtype=np.float64)
    shown = np.where(np.isfinite(values) & (values > floor), values, np.nan)
    zeros = np.isfinite(values) & (values <= floor)
    return shown, zeros


def difference_figure(
    traj: Trajectories, title: str | None = None, height: int = 300, tr: Translator = ENGLISH
) -> go.Figure:
    """max |c_GD − c_Lloyd| against the step number (log y). Exact zeros sit on the bottom edge,
    marked as such (a log axis has no 0)."""
    steps = np.arange(len(traj.difference))
    finite = traj.difference[np.isfinite(traj.difference) & (traj.difference > 0)]
    floor = float(finite.min()) / 10 if finite.size else 1e-16
    shown, zeros = _positive_log(traj.difference, 0.0)
    data = [
        dict(
            type="scatter",
            x=steps,
            y=shown,
            mode="lines+markers",
            name="max |c_GD − c_Lloyd|",
            line=dict(color="#0072B2", width=3),
            hovertemplate=tr("step") + " %{x}: %{y:.3g}<extra></extra>",
        )
    ]
    if zeros[1:].any():
        data.append(
            dict(
                type="scatter",
                x=steps[zeros],
                y=np.full(int(zeros.sum()), floor),
                mode="markers",
                name=tr("exactly 0"),
                marker=dict(symbol="triangle-down", size=10, color="#009E73"),
                hovertemplate=tr("step") + " %{x}: " + tr("exactly 0") + "<extra></extra>",
            )
        )
    layout = base_layout(title, height, x_title=tr("step t"), y_title=tr("max |Δ| (data units)"), tr=tr)
    layout["yaxis"]["type"] = "log"
    layout["yaxis"]["exponentformat"] = "power"
    return figure(data, layout)


GAP_COLOR = "#0072B2"  # Okabe-Ito blue: the measured L_σ − J, in the figure and its equation
BOUND_COLOR = "#D55E00"  # Okabe-Ito vermillion: its bound


def gap_equation() -> str:
    """0 ≤ L_σ − J ≤ bound (softmax, entmax-1.5), the gap and the bound in their curves' colours. The maps'
    names stay in the text colour: coloured words at this size would fall below 4.5:1 on one theme."""
    softmax = tex_color(r"N(k-1)\,\dfrac{2\sigma^2}{e}", BOUND_COLOR)
    entmax = tex_color(r"4N\sigma^2", BOUND_COLOR)
    return (
        r"0 \le "
        + tex_color(r"L_\sigma(C) - J(C)", GAP_COLOR)
        + rf" \le \begin{{cases}} {softmax} & \text{{softmax}}\\[4pt] "
        + rf"{entmax} & \text{{entmax-1.5}}\end{{cases}}"
    )


def gap_sigma_figure(
    curve: GapCurve,
    sigma: float | None = None,
    title: str | None = None,
    height: int = 420,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """L_σ − J (at fixed centres) and its uniform bound against σ, log-log. Exact zeros (entmax below
    its collapse σ) are marked on the bottom edge. A dotted vertical line marks the current σ."""
    positive = curve.gap[np.isfinite(curve.gap) & (curve.gap > 0)]
    low = min(
        positive.min() if positive.size else np.inf,
        curve.bound[curve.bound > 0].min() if (curve.bound > 0).any() else np.inf,
    )
    floor = float(low) / 10 if np.isfinite(low) else 1e-12
    shown, zeros = _positive_log(curve.gap, 0.0)
    data = [
        dict(
            type="scatter",
            x=curve.sigmas,
            y=curve.bound,
            mode="lines",
            name=tr("bound"),
            line=dict(color=BOUND_COLOR, width=2.5, dash="dash"),
            hovertemplate="σ = %{x:.3g}: " + tr("bound") + " %{y:.3g}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=curve.sigmas,
            y=shown,
            mode="lines+markers",
            name=tr("L_σ − J (measured)"),
            line=dict(color=GAP_COLOR, width=3),
            marker=dict(size=6),
            hovertemplate="σ = %{x:.3g}: L_σ − J = %{y:.3g}<extra></extra>",
        ),
    ]
    if zeros.any():
        data.append(
            dict(
                type="scatter",
                x=curve.sigmas[zeros],
                y=np.full(int(zeros.sum()), floor),
                mode="markers",
                name=tr("L_σ − J = 0 exactly"),
                marker=dict(symbol="triangle-down", size=10, color="#009E73"),
                hovertemplate="σ = %{x:.3g}: " + tr("exactly 0") + "<extra></extra>",
            )
        )
    # the legend wraps to up to four rows in the narrow column beside the text: below, clear of the title
    layout = base_layout(
        title,
        height,
        x_title=tr("σ (log scale)"),
        y_title=tr("L_σ − J (log scale)"),
        legend="below",
        tr=tr,
    )
    layout["xaxis"].update(type="log", exponentformat="power")
    layout["yaxis"].update(type="log", exponentformat="power")
    if sigma is not None:  # a trace, not a shape: data coordinates on log axes without surprises
        top = float(np.nanmax(np.concatenate([curve.bound, np.nan_to_num(shown, nan=floor)])))
        data.append(
            dict(
                type="scatter",
                x=[float(sigma), float(sigma)],
                y=[floor, top],
                mode="lines",
                name=tr("current σ = {sigma:.3g}", sigma=float(sigma)),
                line=dict(color="#444444", width=1.5, dash="dot"),
                hoverinfo="skip",
            )
        )
    return figure(data, layout)
