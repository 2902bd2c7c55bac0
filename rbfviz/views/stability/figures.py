"""The Stability view's figures: each map's health across σ, and the plane at the current σ.

* ``stability_figure(rows, predicted, sigma, ...)`` – four panels against σ (log, cooling →):
  NaN rows, exactly one-hot rows, ||∇_C L_σ||, and the one-step error to K-Means, one line per
  map (colour) and dtype (dash), the closed-form predictions as wide grey bands underneath, and
  vertical lines at the naive NaN thresholds, entmax's σ* and the current σ.
* ``stability_plane_figure(plane, X, C)`` – two planes side by side at the current σ: where the naive
  map's rows are NaN, and where entmax15's rows are exactly one-hot; points on top.

Map colours (not cluster colours: these lines are maps, and no cluster colour is reused):
``KIND_COLORS``, Paul Tol's high-contrast scheme, colour-blind safe and distinct in greyscale.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.views.common.kinds import DTYPE_DASH, KIND_COLORS, KIND_LABELS
from rbfviz.views.common.layout import (
    base_layout,
    data_uri,
    field_image,
    figure,
    framed_axis,
    legend_only,
    png_indexed_bytes,
    with_gaps,
)
from rbfviz.views.common.palette import NAN_RGB, cluster_colors, cluster_rgb, fade
from rbfviz.views.common.plane import KMEANS_MARKER, markers_trace
from rbfviz.views.common.sigma import (
    CURRENT,
    CURRENT_COLOR,
    EXACT_COLOR,
    EXACT_PREDICTED,
    log_axis_floor,
    sigma_axis,
    sigma_line,
    zero_markers,
)

PREDICTED_BAND = "rgba(120, 120, 120, 0.35)"

# (key in the rows, panel title, log y?). A panel is half the figure's width, 150 px on a phone: the
# titles are lines of 15 characters at most, so that neighbouring titles never run into each other.
PANELS = (
    ("nan_row_fraction", N_("NaN rows (%)"), False),
    ("hard_row_fraction", N_("exactly one-hot<br>rows (%)"), False),
    ("grad_norm", N_("‖∇_C L_σ‖<br>at C* (log)"), True),
    ("error_to_kmeans", N_("one EM step<br>‖x̄ − C*‖ (log)"), True),
)
# (panel key, kind whose closed form is drawn under it, key of predicted_fractions)
PREDICTED = (
    ("nan_row_fraction", "naive", "naive_nan"),
    ("hard_row_fraction", "entmax15", "entmax15_hard"),
    ("hard_row_fraction", "softmax", "softmax_hard"),
)
NAN_THRESHOLD = N_("naive: first NaN row below ({dtype})")
ZERO_MARK = N_("exactly 0 (drawn at the axis floor)")


def series(rows, kind: str, dtype: str, key: str) -> tuple[np.ndarray, np.ndarray]:
    """(σ (S,), values (S,)) of one map and dtype from ``stability_table`` rows, σ decreasing."""
    picked = [(r["sigma"], r[key]) for r in rows if r["kind"] == kind and r["dtype"] == dtype]
    if not picked:
        raise ValueError(f"no rows for kind={kind!r}, dtype={dtype!r}.")
    sigmas, values = (np.array(v, dtype=np.float64) for v in zip(*picked))
    order = np.argsort(-sigmas)
    return sigmas[order], values[order]


def _log_floor(rows, key: str) -> float:
    return log_axis_floor([r[key] for r in rows])


def _axis_names(i: int) -> tuple[str, str]:
    """('x', 'y') for panel 0, ('x2', 'y2') for panel 1, ..."""
    suffix = "" if i == 0 else str(i + 1)
    return "x" + suffix, "y" + suffix


def _vline(
    sigma: float, panel: int, name: str, color: str, dash: str, showlegend: bool, width: float = 2.0
) -> dict:
    xref, yref = _axis_names(panel)
    return sigma_line(
        sigma, name, color, dash, width, xref=xref, yref=f"{yref} domain", showlegend=showlegend
    )


def stability_figure(
    rows,
    predicted: dict,
    sigma: float,
    kinds=("softmax", "entmax15", "naive"),
    dtypes=("float64", "float32"),
    highlight: str | None = None,
    nan_sigmas: dict | None = None,
    sigma_exact: float | None = None,
    title: str | None = None,
    height: int = 780,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """Four panels of ``stability_table`` rows against σ.

    predicted: {dtype: rbfviz.views.stability.arrays.predicted_fractions(...)} (grey bands under the
    measured NaN and one-hot curves). highlight: the map chosen in the sidebar, drawn thicker.
    nan_sigmas: {dtype: σ below which the first naive row is NaN}; sigma_exact: entmax's
    σ* = √g_min/2 (every entmax row one-hot below it). Exact zeros on the log panels are drawn as
    triangles at the axis floor. Each measured trace has ``meta = [panel key, kind, dtype]``.
    """
    data: list[dict] = []
    shapes: list[dict] = []
    domains = [
        ((0.0, 0.46), (0.58, 1.0)),
        ((0.54, 1.0), (0.58, 1.0)),
        ((0.0, 0.46), (0.0, 0.38)),
        ((0.54, 1.0), (0.0, 0.38)),
    ]
    layout = base_layout(title, height, tr=tr)
    layout.pop("xaxis"), layout.pop("yaxis")
    layout["annotations"] = []
    zero_legend_shown = False
    band_legend_shown = False
    for i, (key, label, log) in enumerate(PANELS):
        xref, yref = _axis_names(i)
        (x0, x1), (y0, y1) = domains[i]
        axis = framed_axis()
        all_sigmas = [r["sigma"] for r in rows]
        # a column's two panels share one σ axis: its labels and title under the lower panel only (under
        # the upper one, upright on a phone, they ran into the lower panel's title)
        lower = y0 == 0.0
        layout["xaxis" + xref[1:]] = dict(
            sigma_axis(all_sigmas, tr("σ (log; cooling →)") if lower else None, tr=tr),
            domain=[x0, x1],
            anchor=yref,
            tickfont=dict(size=11),
            showticklabels=lower,
        )
        # the right column's y labels on its right: between the columns they ran into the left panels
        yaxis = dict(axis, domain=[y0, y1], anchor=xref, side="right" if x0 > 0 else "left")
        if log:
            yaxis.update(type="log", exponentformat="power")
        else:
            yaxis.update(range=[-4, 104])
        layout["yaxis" + yref[1:]] = yaxis
        layout["annotations"].append(
            dict(
                text=f"<b>{tr(label)}</b>",
                xref="paper",
                yref="paper",
                x=(x0 + x1) / 2,
                y=y1,
                yanchor="bottom",
                yshift=4,
                xanchor="center",
                showarrow=False,
                font=dict(size=14),
            )
        )
        for panel_key, kind, pkey in PREDICTED:
            if panel_key != key or kind not in kinds:
                continue
            for dtype in dtypes:
                s, _ = series(rows, kind, dtype, key)
                data.append(
                    dict(
                        type="scatter",
                        x=s,
                        y=100.0 * np.asarray(predicted[dtype][pkey]),
                        mode="lines",
                        xaxis=xref,
                        yaxis=yref,
                        line=dict(color=PREDICTED_BAND, width=9),
                        name=tr("closed form (grey band)"),
                        legendgroup="closed form",
                        showlegend=not band_legend_shown,
                        hoverinfo="skip",
                        meta=["predicted", kind, dtype],
                    )
                )
                band_legend_shown = True
        floor = _log_floor(rows, key) if log else None
        for kind in kinds:
            for dtype in dtypes:
                s, v = series(rows, kind, dtype, key)
                y = 100.0 * v if not log else np.where(v > 0, v, np.nan)
                width = 3.5 if kind == highlight else 2.0
                data.append(
                    dict(
                        type="scatter",
                        x=s,
                        y=with_gaps(y),
                        mode="lines+markers",
                        xaxis=xref,
                        yaxis=yref,
                        name=f"{tr(KIND_LABELS[kind])} · {dtype}",
                        legendgroup=f"{kind}-{dtype}",
                        showlegend=i == 0,
                        line=dict(color=KIND_COLORS[kind], dash=DTYPE_DASH[dtype], width=width),
                        marker=dict(color=KIND_COLORS[kind], size=4),
                        meta=[key, kind, dtype],
                        hovertemplate=(
                            f"{tr(KIND_LABELS[kind])} · {dtype}<br>σ = %{{x:.3g}}"
                            "<br>%{y:.4g}<extra></extra>"
                        ),
                    )
                )
                zero = np.isfinite(v) & (v == 0)
                if log and zero.any():
                    data.append(
                        zero_markers(
                            s,
                            v,
                            floor,
                            KIND_COLORS[kind],
                            tr(ZERO_MARK),
                            f"{tr(KIND_LABELS[kind])} · {dtype}<br>σ = %{{x:.3g}}<br>"
                            + tr("exactly 0")
                            + "<extra></extra>",
                            xaxis=xref,
                            yaxis=yref,
                            legendgroup="zero",
                            showlegend=not zero_legend_shown,
                            meta=["zero", kind, dtype],
                        )
                    )
                    zero_legend_shown = True
        if nan_sigmas and key == "nan_row_fraction":
            for dtype, value in nan_sigmas.items():
                shapes.append(
                    _vline(
                        value,
                        i,
                        tr(NAN_THRESHOLD, dtype=dtype),
                        KIND_COLORS["naive"],
                        DTYPE_DASH[dtype] if dtype == "float32" else "dash",
                        True,
                    )
                )
        if sigma_exact is not None and key in ("hard_row_fraction", "error_to_kmeans"):
            shapes.append(
                _vline(sigma_exact, i, tr(EXACT_PREDICTED), EXACT_COLOR, "dash", key == "hard_row_fraction")
            )
        shapes.append(_vline(sigma, i, tr(CURRENT), CURRENT_COLOR, "solid", i == 0, 1.5))
    layout["shapes"] = shapes
    layout["margin"] = dict(l=60, r=60, t=150 if title else 110, b=55)
    # no fixed entry width: Plotly wraps the entries into as many rows as the figure's width needs
    # (a quarter of the width each overlapped on a phone), and the top margin grows with them; its
    # foot stays clear of the top panels' two-line titles
    layout["legend"] = dict(layout["legend"], font=dict(size=12), y=1.16)
    return figure(data, layout)


# --- the plane at the current σ -----------------------------------------------------------------

NAIVE_FINITE_FADE = 0.8
ENTMAX_HARD_FADE = 0.55
NAN_POINT_COLOR = "#ffffff"


def _palette_image(plane, amount: float, other_rgb, other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices (H, W) uint8, palette (k + 1, 3) uint8) of a plane's image: the nearest centre's colour
    faded by ``amount``, and ``other_rgb`` where the (H, W) mask ``other`` holds (the palette's last entry).
    A palette image is a byte per pixel: a third of an RGB image's bytes to write and to compress."""
    k = int(plane.label.max()) + 1 if plane.label.size else 1
    palette = np.vstack([fade(cluster_rgb(k), amount), np.array([other_rgb], dtype=np.uint8)])
    indices = plane.label.astype(np.uint8)  # k <= 10: every label fits a byte
    indices[other] = k
    return indices, palette


def naive_image(plane) -> tuple[np.ndarray, np.ndarray]:
    """(indices, palette) of the naive panel: grey where the naive row is NaN, else the nearest centre's
    colour, faded."""
    return _palette_image(plane, NAIVE_FINITE_FADE, NAN_RGB, plane.naive_nan)


def entmax_image(plane) -> tuple[np.ndarray, np.ndarray]:
    """(indices, palette) of the entmax panel: the nearest centre's colour where entmax15 is exactly
    one-hot, white where soft."""
    return _palette_image(plane, ENTMAX_HARD_FADE, (255, 255, 255), ~plane.entmax_hard)


def naive_rgb(plane) -> np.ndarray:
    """(H, W, 3) uint8: ``naive_image``'s pixels."""
    indices, palette = naive_image(plane)
    return palette[indices]


def entmax_rgb(plane) -> np.ndarray:
    """(H, W, 3) uint8: ``entmax_image``'s pixels."""
    indices, palette = entmax_image(plane)
    return palette[indices]


# The plane's two panels: (map, its name above the panel). Under the name, a line that counts the rows
# (``stability_panels``): two short lines, so the two titles stay apart on a 390 px phone, and the count
# alone changes with σ, as plain text that the scrubber rewrites in place.
PLANE_PANELS = (("naive", N_("naive exp/sum")), ("entmax15", "entmax-1.5"))


def stability_panels(plane, n: int, tr: Translator = ENGLISH) -> list[tuple[str, str]]:
    """(count line, image as a PNG data URI) of the two panels of ``stability_plane_figure`` at
    ``plane.sigma``: naive NaN rows, then entmax15 one-hot rows, counted over all n points. The images
    are palette PNGs of ``naive_image`` and ``entmax_image``: decoded, ``naive_rgb`` and ``entmax_rgb``."""
    return [
        (
            tr("{count:,} of {n:,} rows NaN", count=int(plane.point_naive_nan.sum()), n=n),
            data_uri(png_indexed_bytes(*naive_image(plane))),
        ),
        (
            tr("{count:,} of {n:,} rows one-hot", count=int(plane.point_entmax_hard.sum()), n=n),
            data_uri(png_indexed_bytes(*entmax_image(plane))),
        ),
    ]


# The plane's legend order: each panel's point groups, the K-Means centroids between the panels (the
# region entries after them, at Plotly's default rank of 1000).
LEGEND_RANKS = {"nan": 1, "finite": 2, "kmeans": 3, "hard": 4, "soft": 5}


def stability_plane_figure(
    plane,
    X,
    C,
    title: str | None = None,
    height: int = 520,
    drawn: np.ndarray | None = None,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """Two planes at ``plane.sigma``: left, naive rows NaN (grey) or finite; right, entmax15 rows exactly
    one-hot (cluster colour) or soft (white). Points on top in the same code; K-Means centroids ×.
    drawn: indices of the points to draw (a subsample of large data); the counts above the panels
    always count every point. Annotations: the two counts (0, 1), then the two map names (2, 3).
    The legend is below the planes, where a phone's narrow figure has room for its rows.

    Traces: per panel, points split by state (meta = ["naive", "nan"|"finite"] or
    ["entmax15", "hard"|"soft"]), then the centroids; then legend-only entries for the images.
    """
    X = np.asarray(X, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    k = C.shape[0]
    colors = np.array(cluster_colors(k))
    extent = plane.extent
    x_min, x_max, y_min, y_max = extent
    layout = base_layout(title, height, tr=tr)
    layout.pop("xaxis"), layout.pop("yaxis")
    panels = [
        (kind, count, image, domain)
        for (kind, _), (count, image), domain in zip(
            PLANE_PANELS, stability_panels(plane, len(X), tr), ((0.0, 0.48), (0.52, 1.0))
        )
    ]
    data, images, annotations, names = [], [], [], []
    # each point group's legend entry is a trace of its own, after the panels' traces: Plotly leaves a
    # trace without points out of the legend, so the groups' own entries would come and go with σ (and
    # with the levels the scrubber drew before); legendrank keeps the entries in the panels' order
    group_entries = []
    keep = np.ones(len(X), dtype=bool)
    if drawn is not None:
        keep[:] = False
        keep[drawn] = True
    for i, (kind, label, image, (d0, d1)) in enumerate(panels):
        xref, yref = _axis_names(i)
        axis = dict(
            tickfont=dict(size=11),
            showgrid=False,
            zeroline=False,
            linecolor="#888888",
            showline=True,
            mirror=True,
        )
        layout["xaxis" + xref[1:]] = dict(
            axis, range=[x_min, x_max], domain=[d0, d1], anchor=yref, constrain="domain"
        )
        layout["yaxis" + yref[1:]] = dict(
            axis, range=[y_min, y_max], anchor=xref, scaleanchor=xref, scaleratio=1, constrain="domain"
        )
        images.append(field_image(image, extent, xref=xref, yref=yref))
        above = dict(
            xref=f"{xref} domain",
            yref="paper",
            x=0.5,
            y=1.0,
            xanchor="center",
            yanchor="bottom",
            showarrow=False,
        )
        annotations.append(dict(above, text=label, yshift=4, font=dict(size=13)))
        names.append(
            dict(above, text=f"<b>{tr(dict(PLANE_PANELS)[kind])}</b>", yshift=24, font=dict(size=14))
        )
        if kind == "naive":
            groups = (
                ("nan", plane.point_naive_nan, tr("row NaN (0/0)")),
                ("finite", ~plane.point_naive_nan, tr("row finite")),
            )
        else:
            groups = (
                ("hard", plane.point_entmax_hard, tr("row exactly one-hot")),
                ("soft", ~plane.point_entmax_hard, tr("row soft (≥ 2 nonzero)")),
            )
        for state, mask, text in groups:
            mask = mask & keep  # float32 positions below: only drawn, never hovered, half the bytes per σ
            if state == "nan":
                # white crosses read on the grey NaN region they sit in
                marker = dict(
                    color=NAN_POINT_COLOR, size=8, symbol="x", line=dict(color="#000000", width=0.8)
                )
            elif state == "soft":
                marker = dict(color="#ffffff", size=7, line=dict(color="#000000", width=1.2))
            else:
                marker = dict(
                    color=list(colors[plane.point_label[mask]]),
                    size=6,
                    line=dict(color="rgba(0,0,0,0.5)", width=0.5),
                )
            name, group = f"{tr(KIND_LABELS[kind])}: {text}", f"{kind}-{state}"
            data.append(
                dict(
                    type="scatter",
                    x=X[mask, 0].astype(np.float32),
                    y=X[mask, 1].astype(np.float32),
                    mode="markers",
                    xaxis=xref,
                    yaxis=yref,
                    name=name,
                    marker=marker,
                    meta=[kind, state],
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=group,
                )
            )
            entry_marker = dict(marker, color=colors[0]) if isinstance(marker["color"], list) else marker
            group_entries.append(
                legend_only(name, marker=entry_marker, legendgroup=group, legendrank=LEGEND_RANKS[state])
            )
        data.append(
            markers_trace(
                C,
                xaxis=xref,
                yaxis=yref,
                marker=dict(KMEANS_MARKER, size=14),
                name=tr("K-Means centroids C*"),
                showlegend=i == 0,
                legendgroup="kmeans",
                legendrank=LEGEND_RANKS["kmeans"],
                meta=["kmeans"],
                hovertemplate=tr("K-Means centroid") + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
            )
        )
    data += group_entries
    data.append(
        legend_only(
            tr("naive NaN region (grey)"),
            marker=dict(color="rgb(%d,%d,%d)" % NAN_RGB, size=12, symbol="square"),
        )
    )
    data.append(
        legend_only(
            tr("entmax soft band (white)"),
            marker=dict(color="#ffffff", size=12, symbol="square", line=dict(color="#000000", width=1)),
        )
    )
    layout["images"] = images
    layout["annotations"] = annotations + names
    layout["margin"] = dict(l=50, r=20, t=90 if title else 55, b=110)
    layout["legend"] = dict(layout["legend"], font=dict(size=12), yanchor="top", y=-0.08)
    return figure(data, layout)
