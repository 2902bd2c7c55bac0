"""Figures of the "How many clusters?" view: three answers, one figure each (rbfviz.choose_k).

* ``staircase_figure(answer)``       – distinct centres against σ (log, cooling →), a step line; the
                                       widest plateau among counts 2 … k_max − 1 shaded and labelled.
* ``elbow_figure(ks, inertia, k)``   – J(k) with the chord between its ends and the elbow marked.
* ``silhouette_figure(ks, scores, k)`` – mean silhouette against k, the best k marked.

Every figure can also mark a data set's natural k (a dotted vertical line), when it has one. Their words
are in the language of their ``tr`` argument.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.views.common.layout import base_layout, figure
from rbfviz.views.common.sigma import sigma_axis, sigma_window

LINE_COLOR = "#0072B2"
ANSWER_COLOR = "#D55E00"
ANSWER_FILL = "rgba(213, 94, 0, 0.16)"
CHORD_COLOR = "#777777"
NATURAL_COLOR = "#009E73"
ANSWER_MARKER = dict(symbol="star", size=20, color=ANSWER_COLOR, line=dict(color="#222222", width=1))
HEIGHT = 440
# Names of the marks, shared with the tests (shown as tr(name)).
ANSWER = N_("answer")
NATURAL = N_("natural k of the data set")


def _layout(height: int, y_title: str, tr: Translator) -> dict:
    """The house layout with the legend under the x axis title (three figures side by side are narrow:
    a legend above would wrap into the plot)."""
    layout = base_layout(None, height, y_title=y_title, legend="below", tr=tr)
    layout["legend"]["y"] = -0.24
    layout["margin"] = dict(layout["margin"], b=150, r=10)
    return layout


def _natural_line(natural_k, axis: str = "x", tr: Translator = ENGLISH) -> dict:
    """A dotted vertical (axis "x") or horizontal (axis "y") line at the natural k."""
    line = dict(
        type="line",
        line=dict(color=NATURAL_COLOR, dash="dot", width=2),
        name=tr(NATURAL),
        layer="below",
    )
    if axis == "x":
        line.update(xref="x", yref="paper", x0=natural_k, x1=natural_k, y0=0.0, y1=1.0)
    else:
        line.update(xref="paper", yref="y", x0=0.0, x1=1.0, y0=natural_k, y1=natural_k)
    return line


def _natural_legend(natural_k, tr: Translator) -> list[dict]:
    return [
        dict(
            type="scatter",
            x=[None],
            y=[None],
            mode="lines",
            name=tr("natural k = {k}", k=natural_k),
            line=dict(color=NATURAL_COLOR, dash="dot", width=2),
            hoverinfo="skip",
        )
    ]


def _k_axis(ks, tr: Translator) -> dict:
    ks = np.asarray(ks)
    return dict(
        title=dict(text=tr("k (clusters)"), font=dict(size=14)),
        tickmode="array",
        tickvals=[int(k) for k in ks],
        tickfont=dict(size=12),
        range=[float(ks[0]) - 0.5, float(ks[-1]) + 0.5],
        gridcolor="#e6e6e6",
        linecolor="#888888",
        showline=True,
        mirror=True,
        zeroline=False,
    )


def staircase_figure(
    answer, natural_k: int | None = None, height: int = HEIGHT, tr: Translator = ENGLISH
) -> go.Figure:
    """Distinct centres against σ (log scale, σ decreasing to the right) as a staircase.

    answer: rbfviz.choose_k.AnnealingAnswer. The widest plateau among counts 2 … k_max − 1 is shaded
    (from its σ_high to its σ_low) and its count starred; counts 1 and k_max are drawn grey (they do
    not compete). natural_k: a dotted horizontal line at that count.
    """
    sigmas = np.asarray(answer.sigmas, dtype=np.float64)
    counts = np.asarray(answer.counts)
    data = [
        dict(
            type="scatter",
            x=sigmas,
            y=counts,
            mode="lines+markers",
            line=dict(color=LINE_COLOR, width=2.5, shape="hvh"),  # steps at the geometric midpoints
            marker=dict(
                color=[LINE_COLOR if 2 <= c <= answer.k_max - 1 else "#999999" for c in counts],
                size=6,
            ),
            name=tr("distinct centres"),
            hovertemplate="σ = %{x:.3g}<br>"
            + tr("{count} distinct centres", count="%{y}")
            + "<extra></extra>",
        )
    ]
    shapes = []
    plateau = answer.plateau
    if plateau.count is not None:
        shapes.append(sigma_window(plateau.sigma_high, plateau.sigma_low, ANSWER_FILL, tr(ANSWER)))
        middle = math.sqrt(plateau.sigma_high * plateau.sigma_low)
        data.append(
            dict(
                type="scatter",
                x=[middle],
                y=[plateau.count],
                mode="markers",
                marker=ANSWER_MARKER,
                name=tr("widest plateau: {count} centres", count=plateau.count),
                hovertemplate=tr(
                    "{count} distinct centres from σ = {high:.3g} to {low:.3g}<br>width {width:.2f} in ln σ",
                    count=plateau.count,
                    high=plateau.sigma_high,
                    low=plateau.sigma_low,
                    width=plateau.width,
                )
                + "<extra></extra>",
            )
        )
    if natural_k is not None:
        shapes.append(_natural_line(natural_k, axis="y", tr=tr))
        data += _natural_legend(natural_k, tr)
    layout = _layout(height, tr("distinct centres"), tr)
    layout["xaxis"] = sigma_axis(sigmas, tr=tr)
    layout["yaxis"]["range"] = [0.5, answer.k_max + 0.5]
    layout["yaxis"]["tickvals"] = list(range(1, answer.k_max + 1))
    layout["shapes"] = shapes
    return figure(data, layout)


def _curve_over_k(ks, values, name: str, value_label: str, value_format: str) -> dict:
    """One curve of a score against k, with its hover text."""
    return dict(
        type="scatter",
        x=ks,
        y=values,
        mode="lines+markers",
        line=dict(color=LINE_COLOR, width=2.5),
        marker=dict(color=LINE_COLOR, size=8),
        name=name,
        hovertemplate=f"k = %{{x}}<br>{value_label} = %{{y:{value_format}}}<extra></extra>",
    )


def _k_figure(
    data, ks, values, answer_k, answer_name, value_label, value_format, y_title, natural_k, height, tr
):
    """A score-over-k figure: the curves in ``data``, the answer starred, the natural k as a dotted line.
    answer_name, value_label, y_title: already in ``tr``'s language."""
    if answer_k is not None:
        value = values[int(np.flatnonzero(ks == answer_k)[0])]
        data.append(
            dict(
                type="scatter",
                x=[answer_k],
                y=[value],
                mode="markers",
                marker=ANSWER_MARKER,
                name=f"{answer_name}: k = {answer_k}",
                hovertemplate=(
                    f"{answer_name} k = {answer_k}<br>{value_label} = "
                    + tr.number(value, value_format)
                    + "<extra></extra>"
                ),
            )
        )
    layout = _layout(height, y_title, tr)
    layout["xaxis"] = _k_axis(ks, tr)
    if natural_k is not None:
        layout["shapes"] = [_natural_line(natural_k, tr=tr)]
        data += _natural_legend(natural_k, tr)
    return figure(data, layout)


def elbow_figure(
    ks,
    inertia,
    elbow_k: int | None,
    natural_k: int | None = None,
    height: int = HEIGHT,
    tr: Translator = ENGLISH,
):
    """J(k) (squared data units) against k, the chord between its ends (dashed) and the elbow starred."""
    ks = np.asarray(ks)
    inertia = np.asarray(inertia, dtype=np.float64)
    data = [
        _curve_over_k(ks, inertia, tr("J(k), K-Means inertia"), "J", ".4g"),
        dict(
            type="scatter",
            x=[ks[0], ks[-1]],
            y=[inertia[0], inertia[-1]],
            mode="lines",
            line=dict(color=CHORD_COLOR, width=1.5, dash="dash"),
            name=tr("chord between the ends"),
            hoverinfo="skip",
        ),
    ]
    return _k_figure(
        data, ks, inertia, elbow_k, tr("elbow"), "J", ".4g", tr("J(k), sum of squares"), natural_k, height, tr
    )


def silhouette_figure(
    ks,
    scores,
    best_k: int | None,
    natural_k: int | None = None,
    height: int = HEIGHT,
    tr: Translator = ENGLISH,
):
    """Mean silhouette against k (NaN scores left out), the best k starred."""
    ks = np.asarray(ks)
    scores = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(scores)
    silhouette = tr("silhouette")
    data = [_curve_over_k(ks[finite], scores[finite], tr("mean silhouette"), silhouette, ".3f")]
    return _k_figure(
        data,
        ks,
        scores,
        best_k,
        tr("best"),
        silhouette,
        ".3f",
        tr("mean silhouette (−1 … 1)"),
        natural_k,
        height,
        tr,
    )
