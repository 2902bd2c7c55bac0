"""Figures of the Step-by-step view: the plane after the last step, and L_σ and J over the steps.

Markers as everywhere: points coloured by their responsibilities (``plane.points_trace``), RBF centres
filled in their cluster colour (``plane.centers_trace``), the centres before the step as open circles
with an arrow from old to new (``equivalence.START_MARKER`` and its arrows), and the Lloyd step from the
same centres as black × (``plane.KMEANS_MARKER``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.field import PLANE_ASPECT, plane_extent
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.layout import base_layout, figure, plane_axes
from rbfviz.views.common.palette import tex_color
from rbfviz.views.common.plane import (
    ARROW_COLOR,
    START_MARKER,
    centers_trace,
    kmeans_trace,
    markers_trace,
    points_trace,
    step_arrows,
)
from rbfviz.views.step_by_step.arrays import STEP_NAMES, Replay

LOSS_COLOR = "#0072B2"  # L_σ: Okabe-Ito blue
DISTORTION_COLOR = "#D55E00"  # J: Okabe-Ito vermillion
# the losses' equations, each in its curve's colour (the page shows them beside the history)
LOSS_EQUATION = (
    tex_color(r"L_\sigma(C)", LOSS_COLOR) + r" = \sum_i \sum_j r_{ij}(C)\,\lVert x_i - c_j\rVert^2"
)
DISTORTION_EQUATION = tex_color("J(C)", DISTORTION_COLOR) + r" = \sum_i \min_j \lVert x_i - c_j\rVert^2"
SHOWN_COLOR = "#888888"  # the iteration shown: mid grey, visible on light and dark backgrounds


def step_plane_figure(
    X,
    replay: Replay,
    lloyd_from_pair: np.ndarray | None = None,
    title: str | None = None,
    axes: tuple[str, str] | None = None,
    height: int = 600,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """The plane after the last step of ``replay``: points X (n, 2) coloured by its responsibilities,
    the current centres, and (once a step moved them) the previous centres with arrows old → new.

    lloyd_from_pair (k, 2): where one Lloyd step from the centres before the last E+M pair lands,
    drawn as ×, so the soft pair and the hard step can be compared in the plane.
    Trace order: points, [previous centres], current centres, [Lloyd ×]; arrows are annotations. Its
    words are in ``tr``'s language.
    """
    X = np.asarray(X, dtype=np.float64)
    current = replay.current
    previous = replay.previous
    k = current.shape[0]
    if X.ndim != 2 or X.shape[1] != 2 or replay.resp.shape != (X.shape[0], k):
        raise ValueError(
            f"X must be (n, 2) and match the replay's responsibilities {replay.resp.shape}, got {X.shape}."
        )
    data = [points_trace(X, replay.resp, tr=tr)]
    moved = replay.count > 0 and not np.array_equal(previous, current, equal_nan=True)
    if moved:
        data.append(
            markers_trace(
                previous,
                name=tr("centres before the step"),
                marker=START_MARKER,
                customdata=np.arange(k),
                hovertemplate=tr("centre {number} before the step", number="%{customdata}")
                + "<br>(%{x:.4f}, %{y:.4f})<extra></extra>",
            )
        )
    now = centers_trace(current, name=tr("centres now"), tr=tr)
    now["marker"]["size"] = 17  # smaller than the Explorer's, so the arrows stay visible up to the centre
    data.append(now)
    if lloyd_from_pair is not None:
        data.append(
            kmeans_trace(
                np.asarray(lloyd_from_pair, np.float64), name=tr("Lloyd step from the same centres"), tr=tr
            )
        )
    layout = base_layout(title, height, legend="below", tr=tr)
    layout.update(plane_axes(plane_extent(X, replay.centers.reshape(-1, X.shape[1]), aspect=PLANE_ASPECT)))
    if axes:
        layout["xaxis"]["title"] = dict(text=axes[0], font=dict(size=14))
        layout["yaxis"]["title"] = dict(text=axes[1], font=dict(size=14))
    if moved:
        layout["annotations"] = step_arrows(previous, current, [ARROW_COLOR] * k, "x", "y")
    return figure(data, layout)


def history_figure(
    replay: Replay,
    title: str | None = None,
    height: int = 330,
    shown: int | None = None,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """L_σ and J after every step (t = 0 is the start), the step's letter on the x axis; a grey vertical
    line at step ``shown`` (the iteration the plane shows) if given. Its words are in ``tr``'s language."""
    t = np.arange(replay.count + 1)
    start = tr("start")
    labels = [start] + [f"{i} {letter}" for i, letter in enumerate(replay.steps, start=1)]
    names = [start] + [tr(STEP_NAMES[letter]) for letter in replay.steps]
    data = [
        dict(
            type="scatter",
            x=t,
            y=values,
            mode="lines+markers",
            name=name,
            line=dict(color=color, width=2.5, dash=dash),
            marker=dict(size=7, color=color),
            customdata=names,
            hovertemplate=tr("after {name} (step {number})", name="%{customdata}", number="%{x}")
            + f"<br>{short} = %{{y:.6g}}<extra></extra>",
        )
        for values, name, short, color, dash in (
            (replay.loss, tr("L_σ  (soft loss at these centres)"), "L_σ", LOSS_COLOR, "solid"),
            (replay.distortion, tr("J  (K-Means inertia at these centres)"), "J", DISTORTION_COLOR, "dot"),
        )
    ]
    layout = base_layout(
        title, height, x_title=tr("step"), y_title=tr("loss (data units²)"), legend="below", tr=tr
    )
    # the legend 60 px under the plot, clear of the x axis' ticks and title (the default fraction of
    # this short plot put it on the title)
    plot_px = height - layout["margin"]["t"] - layout["margin"]["b"]
    layout["legend"]["y"] = -60.0 / max(plot_px, 60)
    # at most ~25 labelled ticks, so a long sequence stays readable
    stride = max(1, int(np.ceil(len(t) / 25)))
    layout["xaxis"].update(tickmode="array", tickvals=t[::stride].tolist(), ticktext=labels[::stride])
    if shown is not None:
        layout["shapes"] = [
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=shown,
                x1=shown,
                y0=0,
                y1=1,
                line=dict(color=SHOWN_COLOR, width=2, dash="dash"),
            )
        ]
    return figure(data, layout)
