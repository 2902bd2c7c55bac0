"""The reproduction figure: every map and dtype of one data set's collapse experiment, side by side.

``reproduce_figure(dataset, studies)`` takes the ``CollapseStudy`` objects of one data set (any mix
of kinds and dtypes sharing one K-Means reference) and draws two panels against σ (log, cooling →):

1. E(σ) = ||C_σ − C*||_F on a log axis, one line per map (colour) and dtype (dash); exact zeros as
   triangles at the axis floor; each run's fitted slope as a thin line over its fit window; vertical
   lines at σ* = √g_min/2, softmax's float64-exact σ and each map's predicted first critical σ.
2. The fraction of NaN responsibility rows at C* (only the naive map has any).

Used by ``python -m rbfviz reproduce``; the app's single-run figure is ``annealing.collapse_figure``.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.kinds import DTYPE_DASH, KIND_COLORS, KIND_LABELS
from rbfviz.views.common.layout import base_layout, figure, with_gaps
from rbfviz.views.common.sigma import (
    EXACT_COLOR,
    EXACT_PREDICTED,
    SOFTMAX_EXACT,
    SOFTMAX_EXACT_COLOR,
    log_axis_floor,
    power_law_line,
    sigma_axis,
    zero_markers,
)


def _vline(sigma: float, yref: str, name: str, color: str, dash: str, showlegend: bool) -> dict:
    return dict(
        type="line",
        xref="x",
        yref=yref,
        x0=float(sigma),
        x1=float(sigma),
        y0=0,
        y1=1,
        line=dict(color=color, dash=dash, width=1.5),
        name=name,
        showlegend=showlegend,
        layer="above",
    )


def reproduce_figure(dataset: str, studies, height: int = 820, tr: Translator = ENGLISH) -> go.Figure:
    """Two stacked panels (E(σ), NaN rows) for the studies of one data set; see the module docstring."""
    studies = list(studies)
    if not studies:
        raise ValueError("reproduce_figure needs at least one study.")
    sigmas_all = np.concatenate([np.asarray(s.sigmas, np.float64) for s in studies])
    errors = np.concatenate([np.asarray(s.error, np.float64) for s in studies])
    floor = log_axis_floor(errors)

    data = []
    # naive is softmax's formula, so where it is finite its curve lies exactly on softmax's: draw it
    # first, wide and pale, so softmax stays visible on top of it.
    for study in sorted(studies, key=lambda s: s.kind != "naive"):
        color, dash = KIND_COLORS.get(study.kind, "#000000"), DTYPE_DASH.get(study.dtype, "solid")
        label = f"{tr(KIND_LABELS.get(study.kind, study.kind))} {study.dtype}"
        sig = np.asarray(study.sigmas, np.float64)
        err = np.asarray(study.error, np.float64)
        wide = study.kind == "naive"
        data.append(
            dict(
                type="scatter",
                x=sig,
                y=with_gaps(np.where(err > 0, err, np.nan)),
                mode="lines+markers",
                name=f"E: {label}",
                legendgroup=label,
                line=dict(color=color, dash=dash, width=6 if wide else 2),
                opacity=0.55 if wide else 1.0,
                marker=dict(size=4, color=color),
                hovertemplate=f"{label}<br>σ = %{{x:.3g}}<br>E = %{{y:.3g}}<extra></extra>",
            )
        )
        zero = np.isfinite(err) & (err == 0)
        if zero.any():
            data.append(
                zero_markers(
                    sig,
                    err,
                    floor,
                    color,
                    tr("E = 0 exactly: {label}", label=label),
                    f"{label}<br>σ = %{{x:.3g}}<br>" + tr("E = 0 exactly") + "<extra></extra>",
                    legendgroup=label,
                    showlegend=False,
                )
            )
        fit = study.slope
        if math.isfinite(fit.slope):
            data.append(
                power_law_line(
                    fit,
                    12,
                    tr(
                        "fit {label}: slope {slope:.2f} on [{low:.2g}, {high:.2g}]",
                        label=label,
                        slope=fit.slope,
                        low=fit.sigma_min,
                        high=fit.sigma_max,
                    ),
                    legendgroup=label,
                    line=dict(color=color, dash=dash, width=4),
                    opacity=0.3,
                )
            )
        data.append(
            dict(
                type="scatter",
                x=sig,
                y=100.0 * np.asarray(study.nan_rows, np.float64) / study.n,
                mode="lines+markers",
                name=tr("NaN rows: {label}", label=label),
                legendgroup=label,
                showlegend=False,
                line=dict(color=color, dash=dash, width=2),
                marker=dict(size=4, color=color),
                xaxis="x2",
                yaxis="y2",
                hovertemplate=f"{label}<br>σ = %{{x:.3g}}<br>"
                + tr("NaN rows")
                + " = %{y:.3g} %<extra></extra>",
            )
        )

    first = studies[0]
    shapes = [
        _vline(first.sigma_exact_predicted, "y domain", tr(EXACT_PREDICTED), EXACT_COLOR, "dash", True),
        _vline(
            first.sigma_softmax_exact, "y domain", tr(SOFTMAX_EXACT), SOFTMAX_EXACT_COLOR, "dashdot", True
        ),
    ]
    seen = set()
    for study in studies:
        # naive's σ_c is softmax's (same map where it is finite): one line, labelled for both
        kind = "softmax" if study.kind == "naive" else study.kind
        if kind in seen or not math.isfinite(study.sigma_critical_predicted):
            continue
        seen.add(kind)
        name = (
            tr("σ_c predicted, softmax = naive")
            if kind == "softmax"
            else tr("σ_c predicted, {map}", map=tr(KIND_LABELS.get(kind, kind)))
        )
        shapes.append(
            _vline(
                study.sigma_critical_predicted,
                "y domain",
                name,
                KIND_COLORS.get(kind, "#000000"),
                "longdash",
                True,
            )
        )

    title = tr(
        "{dataset}: collapse of the soft fixed point onto K-Means (n = {n}, k = {k}, g_min = {g_min:.3g})",
        dataset=dataset,
        n=first.n,
        k=first.k,
        g_min=first.g_min,
    )
    layout = base_layout(title, height, legend="below", tr=tr)
    layout["xaxis"] = dict(sigma_axis(sigmas_all, None, tr=tr), domain=[0, 1], anchor="y", matches="x2")
    layout["yaxis"] = dict(
        layout["yaxis"],
        type="log",
        exponentformat="power",
        domain=[0.36, 1.0],
        title=dict(text=tr("E(σ) = ‖C_σ − C*‖_F (log; ▼ = exactly 0)"), font=dict(size=14)),
    )
    layout["xaxis2"] = dict(sigma_axis(sigmas_all, tr("σ (log scale; cooling →)"), tr=tr), anchor="y2")
    layout["yaxis2"] = dict(
        layout["yaxis"],
        type="linear",
        domain=[0.0, 0.26],
        rangemode="tozero",
        title=dict(text=tr("NaN rows at C* (%)"), font=dict(size=14)),
    )
    layout["shapes"] = shapes
    layout["legend"] = dict(layout["legend"], font=dict(size=11), y=-0.09)
    layout["margin"] = dict(layout["margin"], b=230)
    return figure(data, layout)
