"""The Annealing view's figures: the animated plane, the bifurcation diagram and the collapse error.

All three take an ``rbfviz.views.annealing.arrays.AnnealingView`` (arrays of one collapse study) and mark
the current σ of the shared control. σ axes are logarithmic and run from large σ on the left to
small σ on the right: the direction of cooling.

* ``trajectory_figure(view, X, sigma)``  – the plane: faint full trajectories of the centres, points
  coloured by their responsibilities, K-Means centroids (×), and Plotly frames, one per σ level,
  that move the centres and their trails and recolour the points; Play/Pause buttons and a σ slider
  run the animation in the browser with no server rerun. The static traces are sent once, not per
  frame. It opens at the current σ.
* ``bifurcation_figure(view, sigma)``    – centre positions along the principal axis u₁ against σ,
  with the predicted and measured first critical σ and a marker at every split's predicted σ.
* ``collapse_figure(view, sigma)``       – E(σ) = ||C_σ − C*||_F on log-log axes with the fitted
  slope and the σ window of the fit, entmax's exact-collapse σ* = √g_min/2 (predicted and
  measured) and softmax's float64-exact σ √(g_min/73.4).

Vertical σ lines are layout shapes with legend entries (``sigma_line``); tests find them by name. Every
figure's words are in the language of its ``tr`` argument (English by default).
"""

from __future__ import annotations

import base64
import math

import numpy as np
import plotly.graph_objects as go

from rbfviz.field import PLANE_ASPECT, plane_extent
from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.views.common.layout import base_layout, figure, plane_axes, with_gaps
from rbfviz.views.common.palette import cluster_colors, tex_color
from rbfviz.views.common.palette import hex_strings as hex_colors
from rbfviz.views.common.plane import CENTER_MARKER, KMEANS_MARKER, markers_trace
from rbfviz.views.common.sigma import (
    CURRENT,
    CURRENT_COLOR,
    EXACT_COLOR,
    EXACT_PREDICTED,
    SOFTMAX_EXACT,
    SOFTMAX_EXACT_COLOR,
    figure_with_frames,
    log_axis_floor,
    play_buttons,
    power_law_line,
    sigma_axis,
    sigma_line,
    sigma_window,
    zero_markers,
)

CRITICAL_COLOR = "#004488"
FIT_COLOR = "#222222"
WINDOW_FILL = "rgba(0, 68, 136, 0.07)"

# The animated plane recolours at most this many points per frame (a fixed random subset beyond
# it; every point is still drawn, faint grey): 80 levels × 600 colours ≈ 0.5 MB.
MAX_ANIMATED_POINTS = 600
FRAME_MS = 140
# width / height of the plane's data extent, so the equal-aspect plot fills its column.

# Names of the σ lines and markers (tests look them up), shown as tr(name).
CRITICAL_PREDICTED = N_("σ_c predicted (first split)")
CRITICAL_MEASURED = N_("first split measured")
EXACT_MEASURED = N_("E = 0 from here (measured)")
# Legend names of the per-split markers on the bifurcation diagram (tests look them up).
SPLIT_PREDICTED = N_("predicted σ of each split")
SPLIT_LINEARISED = N_("entmax: √r-weighted prediction")
SPLIT_MEASURED = N_("split seen (first level)")
# Horizontal legends above the plot. No fixed entry width: Plotly wraps the entries into as many rows
# as the figure's width needs (a fraction of the width each drew long entries on top of each other on
# a phone), and the top margin grows with them.
GRID_LEGEND = dict(
    orientation="h",
    yanchor="bottom",
    y=1.02,
    xanchor="left",
    x=0.0,
    font=dict(size=12),
    bgcolor="rgba(255,255,255,0.85)",
)


def _coords(values) -> dict:
    """Plane coordinates as a Plotly typed array: float32, base64-packed (4 bytes each; NaN = gap).

    float32 keeps ~7 digits, far below a pixel. Packed here rather than by Plotly: its serialiser
    spends ~0.4 ms per numpy array (~150 ms for the ~400 arrays of an animation).
    """
    return {"dtype": "f4", "bdata": base64.b64encode(coord_values(values).tobytes()).decode("ascii")}


def coord_values(values) -> np.ndarray:
    """The float32 values (m,) ``_coords`` packs (what the browser unpacks)."""
    return np.ascontiguousarray(values, dtype=np.float32).ravel()


# --- the animated plane -------------------------------------------------------------------------


def animated_subset(n: int, limit: int = MAX_ANIMATED_POINTS, seed: int = 0) -> np.ndarray:
    """Indices of the points recoloured in the animation: all of them up to ``limit``, else a fixed
    random subset of ``limit`` (sorted)."""
    if n <= limit:
        return np.arange(n)
    return np.sort(np.random.RandomState(seed).choice(n, size=limit, replace=False))


def trajectory_figure(
    view,
    X,
    sigma: float,
    title: str | None = None,
    height: int = 700,
    frame_ms: int = FRAME_MS,
    static: bool = False,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """The annealing in the plane, animated client-side, opening at the level nearest to σ.

    static=True: the same figure at that level only, without frames, Play buttons or slider (for
    the app's σ scrubber, which holds one such figure per level).

    Traces, in order: 0 all points (faint grey, static); 1 animated points (coloured by r at the
    level); 2..k+1 full trajectories (faint, static); k+2..2k+1 trails up to the level; 2k+2 RBF
    centres at the level; 2k+3 K-Means centroids C* (static). Frame s (name = str(s)) updates only
    traces 1, k+2..2k+2.
    """
    X = np.asarray(X, dtype=np.float64)
    centers = np.asarray(view.centers, dtype=np.float64)
    S, k = centers.shape[0], centers.shape[1]
    if X.ndim != 2 or X.shape[1] != 2 or view.colors.shape[:2] != (S, X.shape[0]):
        raise ValueError(
            f"X must be the (n, 2) points of the view; got {X.shape} for colours {view.colors.shape}."
        )
    current = view.level(sigma)
    colors = cluster_colors(k)
    shown = animated_subset(X.shape[0])

    def point_colors(s):
        return hex_colors(view.colors[s, shown])

    def points(s):
        return dict(
            type="scatter",
            x=_coords(X[shown, 0]),
            y=_coords(X[shown, 1]),
            mode="markers",
            name=tr("points (colour mixed by r)"),
            marker=dict(color=point_colors(s), size=6, opacity=0.7),
            hoverinfo="skip",
        )

    def trail(s, j):
        return dict(
            type="scatter",
            x=_coords(centers[: s + 1, j, 0]),
            y=_coords(centers[: s + 1, j, 1]),
            mode="lines",
            line=dict(color=colors[j], width=3.5),
            showlegend=False,
            hoverinfo="skip",
            name=tr("trail of centre {j}", j=j),
        )

    def centres(s):
        return dict(
            type="scatter",
            x=_coords(centers[s, :, 0]),
            y=_coords(centers[s, :, 1]),
            mode="markers",
            name=tr("RBF centres c_j at σ"),
            marker=dict(color=colors, **CENTER_MARKER),
            customdata=np.arange(k),
            hovertemplate=tr("centre {number}", number="%{customdata}")
            + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
        )

    background = dict(
        type="scatter",
        x=_coords(X[:, 0]),
        y=_coords(X[:, 1]),
        mode="markers",
        name=tr("data"),
        showlegend=False,
        marker=dict(color="#c8c8c8", size=4),
        hoverinfo="skip",
    )
    paths = [
        dict(
            type="scatter",
            x=_coords(centers[:, j, 0]),
            y=_coords(centers[:, j, 1]),
            mode="lines",
            line=dict(color=colors[j], width=1.5, dash="dot"),
            opacity=0.6,
            hoverinfo="skip",
            name=tr("whole path as σ falls") if j == 0 else tr("path {j}", j=j),
            showlegend=j == 0,
            legendgroup="paths",
        )
        for j in range(k)
    ]
    kmeans = markers_trace(
        view.kmeans_centers,
        name=tr("K-Means centroids C*"),
        marker=KMEANS_MARKER,
        customdata=np.arange(k),
        hovertemplate=tr("K-Means centroid {number}", number="%{customdata}")
        + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
    )
    data = [
        background,
        points(current),
        *paths,
        *[trail(current, j) for j in range(k)],
        centres(current),
        kmeans,
    ]
    layout = base_layout(title, height, tr=tr)
    extent = plane_extent(X, np.vstack([centers.reshape(-1, 2), view.kmeans_centers]), aspect=PLANE_ASPECT)
    layout.update(plane_axes(extent))
    layout["legend"] = dict(GRID_LEGEND)
    if static:
        layout["margin"] = dict(l=55, r=10, t=110 if title else 70, b=60)
        layout["height"] = height - 90
        return figure(data, layout)

    animated = [1, *range(k + 2, 2 * k + 2), 2 * k + 2]
    frames = [
        dict(
            name=str(s),
            traces=animated,
            data=[
                dict(type="scatter", marker=dict(color=point_colors(s), size=6, opacity=0.7)),
                *[
                    dict(type="scatter", x=_coords(centers[: s + 1, j, 0]), y=_coords(centers[: s + 1, j, 1]))
                    for j in range(k)
                ],
                dict(type="scatter", x=_coords(centers[s, :, 0]), y=_coords(centers[s, :, 1])),
            ],
        )
        for s in range(S)
    ]
    still = dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))
    layout["margin"] = dict(l=55, r=10, t=110 if title else 70, b=150)
    layout["updatemenus"] = play_buttons(
        frame_ms, redraw=False, play_label=tr("▶ Play from the top"), y=-0.11, tr=tr
    )
    layout["sliders"] = [
        dict(
            active=current,
            x=0.0,
            len=1.0,
            y=-0.17,
            yanchor="top",
            pad=dict(t=10, b=0),
            currentvalue=dict(
                prefix="σ = ", visible=True, xanchor="right", font=dict(size=14, color="#222222")
            ),
            font=dict(
                size=1, color="rgba(0,0,0,0)"
            ),  # 40–80 step labels would overlap; the current value shows σ
            ticklen=3,
            minorticklen=0,
            steps=[
                dict(method="animate", label=tr.number(view.sigmas[s]), args=[[str(s)], still])
                for s in range(S)
            ],
        )
    ]
    return figure_with_frames(data, layout, frames)


# --- bifurcation diagram ------------------------------------------------------------------------


def bifurcation_figure(
    view, sigma: float, title: str | None = None, height: int = 460, tr: Translator = ENGLISH
) -> go.Figure:
    """Centre coordinates along the principal axis u₁ (data units, from the data mean) against σ.

    One line per centre j in cluster colour j; K-Means centroids (×) at the smallest σ; vertical
    lines: predicted first critical σ (softmax √λ_max, entmax15 (√k·λ_max)^½), the measured split
    (first grid σ where a centre leaves the mean; lags by up to one step), and the current σ.

    Every split of ``view.splits`` gets a diamond at its predicted σ on the branch that splits (the
    stack's coordinate along u₁ at the last level before it), a hollow circle where the split was
    first seen, and for entmax15, when it differs, a hollow diamond at the √r-weighted prediction.
    A stack that splits across u₁ keeps one line here: its markers still show where it split.
    """
    sigmas = np.asarray(view.sigmas, dtype=np.float64)
    along = np.asarray(view.along, dtype=np.float64)
    k = along.shape[1]
    colors = cluster_colors(k)
    data = [
        dict(
            type="scatter",
            x=sigmas,
            y=with_gaps(along[:, j]),
            mode="lines+markers",
            name=tr("centre {number}", number=j),
            line=dict(color=colors[j], width=2.5),
            marker=dict(color=colors[j], size=5),
            hovertemplate=tr("centre {number}", number=j)
            + "<br>σ = %{x:.3g}<br>"
            + tr("u₁·(c − mean)")
            + " = %{y:.3f}<extra></extra>",
        )
        for j in range(k)
    ]
    data.append(
        dict(
            type="scatter",
            x=[float(sigmas[-1])] * k,
            y=with_gaps(view.kmeans_along),
            mode="markers",
            name=tr("K-Means centroids C*"),
            marker=dict(KMEANS_MARKER, size=14),
            hovertemplate=tr("K-Means centroid")
            + "<br>"
            + tr("u₁·(c − mean)")
            + " = %{y:.3f}<extra></extra>",
        )
    )
    data.extend(split_markers(view, tr))
    layout = base_layout(title, height, y_title=tr("position along principal axis u₁"), tr=tr)
    layout["xaxis"] = sigma_axis(sigmas, tr=tr)
    shapes = [sigma_line(view.sigma_critical_predicted, tr(CRITICAL_PREDICTED), CRITICAL_COLOR, "dash")]
    if view.sigma_critical_measured is not None:
        shapes.append(sigma_line(view.sigma_critical_measured, tr(CRITICAL_MEASURED), CRITICAL_COLOR, "dot"))
    shapes.append(sigma_line(sigma, tr(CURRENT), CURRENT_COLOR, "solid", 1.5))
    layout["shapes"] = shapes
    layout["legend"] = dict(GRID_LEGEND)
    layout["margin"] = dict(layout["margin"], t=130 if title else 110)
    return figure(data, layout)


def split_markers(view, tr: Translator = ENGLISH) -> list[dict]:
    """The bifurcation diagram's split markers (see ``bifurcation_figure``); none without splits."""
    records = [r for r in getattr(view, "splits", ()) if math.isfinite(r.sigma_predicted)]
    if not records:
        return []
    along = [view.split_along(r) for r in records]
    hover = [
        tr(
            "split {number}: a stack of {m} centres<br>σ predicted {predicted:.3g}<br>seen between "
            "σ = {measured:.3g} and {above:.3g}<br>error {error:+.1f} %",
            number=r.number,
            m=r.m,
            predicted=r.sigma_predicted,
            measured=r.sigma_measured,
            above=r.sigma_above,
            error=100 * r.relative_error,
        )
        for r in records
    ]
    traces = [
        dict(
            type="scatter",
            x=[r.sigma_predicted for r in records],
            y=along,
            mode="markers",
            name=tr(SPLIT_PREDICTED),
            marker=dict(
                symbol="diamond", size=13, color=CRITICAL_COLOR, line=dict(color="#ffffff", width=1.5)
            ),
            text=hover,
            hovertemplate="%{text}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=[r.sigma_measured for r in records],
            y=along,
            mode="markers",
            name=tr(SPLIT_MEASURED),
            marker=dict(symbol="circle-open", size=17, color=CRITICAL_COLOR, line=dict(width=2)),
            text=hover,
            hovertemplate="%{text}<extra></extra>",
        ),
    ]
    differs = [r for r in records if abs(r.sigma_linearised / r.sigma_predicted - 1) > 1e-3]
    if view.kind == "entmax15" and differs:
        traces.append(
            dict(
                type="scatter",
                x=[r.sigma_linearised for r in differs],
                y=[view.split_along(r) for r in differs],
                mode="markers",
                name=tr(SPLIT_LINEARISED),
                marker=dict(symbol="diamond-open", size=13, color=EXACT_COLOR, line=dict(width=2)),
                text=[
                    tr("split {number}: √r-weighted σ {sigma:.3g}", number=r.number, sigma=r.sigma_linearised)
                    for r in differs
                ],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    return traces


# --- collapse error -----------------------------------------------------------------------------


def error_axis_floor(view) -> float:
    """Where exact zeros of E are drawn on the log axis: a decade below the smallest positive E."""
    return log_axis_floor(
        np.concatenate([np.asarray(view.error, np.float64), np.asarray(view.error_path, np.float64)])
    )


def collapse_figure(
    view, sigma: float, title: str | None = None, height: int = 540, tr: Translator = ENGLISH
) -> go.Figure:
    """E(σ) on log-log axes (σ decreasing to the right), with the fit and the collapse thresholds.

    Traces, in order: E(σ) of the soft fixed point from C* where E > 0; E = 0 exactly (drawn at the
    axis floor ``error_axis_floor``, triangles); the annealed path's distance to C*; the fitted line
    E = e^b σ^slope over its window (absent if the fit has < 3 points). Shapes: the fit window
    (shaded), σ*, measured exact σ, softmax's float64-exact σ, the predicted σ_c and the current σ.
    """
    sigmas = np.asarray(view.sigmas, dtype=np.float64)
    error = np.asarray(view.error, dtype=np.float64)
    path = np.asarray(view.error_path, dtype=np.float64)
    floor = error_axis_floor(view)
    positive = np.where(np.isfinite(error) & (error > 0), error, np.nan)
    data = [
        dict(
            type="scatter",
            x=sigmas,
            y=with_gaps(positive),
            mode="lines+markers",
            name=tr("E(σ), fixed point from C*"),
            line=dict(color="#000000", width=2.5),
            marker=dict(size=6, color="#000000"),
            hovertemplate="σ = %{x:.3g}<br>E = %{y:.3g}<extra></extra>",
        ),
        zero_markers(
            sigmas,
            error,
            floor,
            EXACT_COLOR,
            tr("E = 0 exactly (at axis floor)"),
            "σ = %{x:.3g}<br>" + tr("E = 0 exactly") + "<extra></extra>",
            size=10,
        ),
        dict(
            type="scatter",
            x=sigmas,
            y=with_gaps(np.where(path > 0, path, np.nan)),
            mode="lines",
            name=tr("annealed path vs C*"),
            line=dict(color="#888888", width=1.5, dash="dot"),
            hovertemplate="σ = %{x:.3g}<br>" + tr("path error") + " = %{y:.3g}<extra></extra>",
        ),
    ]
    fit = view.slope
    shapes = []
    if math.isfinite(fit.slope):
        data.append(
            power_law_line(
                fit,
                20,
                tr(
                    "fit: slope {slope:.2f}, σ ∈ [{low:.3g}, {high:.3g}]",
                    slope=fit.slope,
                    low=fit.sigma_min,
                    high=fit.sigma_max,
                ),
                line=dict(color=CRITICAL_COLOR, width=3, dash="dash"),
            )
        )
        shapes.append(sigma_window(fit.sigma_max, fit.sigma_min, WINDOW_FILL, tr("fit window")))
    shapes.append(sigma_line(view.sigma_exact_predicted, tr(EXACT_PREDICTED), EXACT_COLOR, "dash"))
    if view.sigma_exact_measured is not None:
        shapes.append(sigma_line(view.sigma_exact_measured, tr(EXACT_MEASURED), EXACT_COLOR, "dot"))
    shapes.append(sigma_line(view.sigma_softmax_exact, tr(SOFTMAX_EXACT), SOFTMAX_EXACT_COLOR, "dashdot"))
    shapes.append(
        sigma_line(view.sigma_critical_predicted, tr(CRITICAL_PREDICTED), CRITICAL_COLOR, "dash", 1.5)
    )
    shapes.append(sigma_line(sigma, tr(CURRENT), CURRENT_COLOR, "solid", 1.5))
    layout = base_layout(title, height, y_title="E(σ) = ‖C_σ − C*‖_F  (log)", tr=tr)
    layout["xaxis"] = sigma_axis(sigmas, tr=tr)
    layout["yaxis"] = dict(layout["yaxis"], type="log", exponentformat="power")
    layout["shapes"] = shapes
    layout["legend"] = dict(GRID_LEGEND)
    layout["margin"] = dict(layout["margin"], t=150 if title else 125)
    return figure(data, layout)


# --- the free energy along the path -----------------------------------------------------------------

# One colour per term of F_σ = Σ r·d − T·H, in the figure and in its equation (``free_energy_equation``).
FREE_ENERGY_COLOR = "#000000"  # F itself: ink (drawn in the theme's text colour on the dark theme)
DISTORTION_TERM_COLOR = "#0072B2"  # Okabe-Ito blue: Σ r·d, the soft loss L_σ
ENTROPY_TERM_COLOR = "#D55E00"  # Okabe-Ito vermillion: T·H(r)
FREE_ENERGY_TERMS = (  # (field, symbol, name shown as tr(name), colour, dash)
    ("free_energy", "F_σ", N_("F_σ  (free energy)"), FREE_ENERGY_COLOR, "solid"),
    ("distortion", "Σ r·d", N_("Σ r·d  (distortion term, L_σ)"), DISTORTION_TERM_COLOR, "dash"),
    ("entropy", "T·H(r)", N_("T·H(r)  (entropy term, T = 2σ²)"), ENTROPY_TERM_COLOR, "dot"),
)


def free_energy_figure(
    terms, title: str | None = None, height: int = 400, tr: Translator = ENGLISH
) -> go.Figure:
    """F_σ, its distortion term and its entropy term (``arrays.FreeEnergyTerms``) against σ on a log axis,
    large σ on the left: as σ falls the entropy term vanishes and F_σ meets the distortion term."""
    data = [
        dict(
            type="scatter",
            x=terms.sigmas,
            y=getattr(terms, field),
            mode="lines",
            name=tr(name),
            line=dict(color=color, width=2.5, dash=dash),
            hovertemplate=f"σ = %{{x:.3g}}<br>{symbol} = %{{y:.6g}}<extra></extra>",
        )
        for field, symbol, name, color, dash in FREE_ENERGY_TERMS
    ]
    layout = base_layout(title, height, y_title=tr("data units²"), legend="below", tr=tr)
    layout["xaxis"] = sigma_axis(terms.sigmas, tr=tr)
    return figure(data, layout)


def free_energy_equation() -> str:
    """F_σ = Σ r·d − T·H(r), each term in its curve's colour (``FREE_ENERGY_TERMS``)."""
    colors = {field: color for field, _, _, color, _ in FREE_ENERGY_TERMS}
    return (
        tex_color(r"F_\sigma", colors["free_energy"])
        + " = "
        + tex_color(r"\sum_i \sum_j r_{ij}\,\lVert x_i - c_j\rVert^2", colors["distortion"])
        + r" \;-\; "
        + tex_color(r"2\sigma^2 \, H(r)", colors["entropy"])
    )


# H of the equation above for softmax (shown under it, on its own line: a phone's width holds one of them)
SHANNON_ENTROPY = r"H(r) = -\sum_i \sum_j r_{ij} \log r_{ij}"
