"""The "Neural network" view's figures: the RBF classifier, deep clustering, and training at low σ.

* ``classifier_figure(view)``   – final decision regions (a PNG under the data: class colour, faded
  where the network is unsure), the class boundary (dark) and the Voronoi edges of the centres
  (light), training and test points, the centres coloured by the class their cell votes for, and
  scikit-learn's Lloyd fixed point from the final centres (×) joined to its centre.
* ``classifier_animation(view)`` – the training replayed in the browser: a coarse decision grid (one
  small PNG per frame) and the centres, Play/Pause and an epoch slider.
* ``latent_figure(view)``        – deep clustering's latent space over training (frames): codes
  coloured by cluster, centres, and the exact Voronoi cells (polygons) when the latent space is 2-D.
* ``curves_figure(panels)``      – small multiples against the epoch, stacked (each panel its own legend);
  ``classifier_history_figure``, ``deep_history_figure`` and ``low_sigma_figure`` fill it.

Class colours (``CLASS_COLORS``) are not cluster colours: classes are the labels of the data, and the
classifier has up to 20 centres. Centres keep ``CENTER_MARKER`` and the K-Means/Lloyd reference
``KMEANS_MARKER`` as in every view. Map colours are the Stability view's ``KIND_COLORS``.
"""

from __future__ import annotations

import base64
import math
import textwrap

import numpy as np
import plotly.graph_objects as go

from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.views.common.kinds import KIND_COLORS, KIND_LABELS
from rbfviz.views.common.layout import (
    base_layout,
    field_image,
    figure,
    framed_axis,
    legend_only,
    plane_axes,
    png_data_uri,
    with_gaps,
)
from rbfviz.views.common.palette import EDGE_RGB, KMEANS_COLOR, cluster_colors, cluster_rgb, fade, hex_to_rgb
from rbfviz.views.common.plane import CENTER_MARKER, KMEANS_MARKER, markers_trace
from rbfviz.views.common.sigma import figure_with_frames, log_axis_floor, log_ticks, play_buttons

# Okabe–Ito orange, blue, bluish green: classes 0, 1, 2.
CLASS_COLORS = ("#E69F00", "#0072B2", "#009E73")
# Fade toward white of a decision pixel: CERTAIN_FADE where the network is sure, TIE_FADE at a tie.
CERTAIN_FADE, TIE_FADE = 0.5, 0.9
VORONOI_RGB = (165, 165, 165)
LATENT_FADE = 0.72
FRAME_MS = 160
WEBGL_ABOVE = 1500

# Trace names the tests and the page refer to (English; shown as tr(NAME)).
TRAIN_POINTS = N_("training")
TEST_POINTS = N_("test")
MISCLASSIFIED = N_("misclassified")
CENTERS = N_("RBF centres")
LLOYD = N_("Lloyd from the centres")


PLAY_LABEL = N_("▶ Play from the start")
EPOCH = N_("epoch")


def class_colors(n_classes: int) -> list[str]:
    if not 1 <= n_classes <= len(CLASS_COLORS):
        raise ValueError(f"at most {len(CLASS_COLORS)} classes can be coloured, got {n_classes}.")
    return list(CLASS_COLORS[:n_classes])


def class_rgb(n_classes: int) -> np.ndarray:
    return np.array([hex_to_rgb(c) for c in class_colors(n_classes)], dtype=np.uint8)


def typed_array(values, dtype: str = "f4") -> dict:
    """A Plotly typed array {dtype, bdata[, shape]}: 1-byte codes or float32 coordinates, base64-packed
    (Plotly's own serialiser spends ~0.4 ms per numpy array; a frame holds several)."""
    arr = np.ascontiguousarray(values, dtype={"u1": np.uint8, "f4": np.float32}[dtype])
    spec = {"dtype": dtype, "bdata": base64.b64encode(arr.tobytes()).decode("ascii")}
    if arr.ndim > 1:
        spec["shape"] = ", ".join(str(s) for s in arr.shape)
    return spec


def _rgb_string(rgb) -> str:
    return "rgb(%d,%d,%d)" % tuple(int(v) for v in rgb)


def _step_colorscale(colors: list[str]) -> list:
    """A colorscale that maps integer m (with cmin = −0.5, cmax = len − 0.5) to colors[m], no blending."""
    n = len(colors)
    scale = []
    for m, color in enumerate(colors):
        scale += [[m / n, color], [(m + 1) / n, color]]
    return scale


def decision_lut(n_classes: int, levels: int) -> np.ndarray:
    """(n_classes · levels, 3) uint8: the colour of each code class·levels + band
    (``rbfviz.views.neural_network.arrays.confidence_codes``), the class colour faded from TIE_FADE (band 0, a
    tie) to
    CERTAIN_FADE (band levels − 1) — the same fading as ``decision_rgb``."""
    rgb = class_rgb(n_classes)
    amounts = TIE_FADE + (CERTAIN_FADE - TIE_FADE) * np.arange(levels) / max(levels - 1, 1)
    return np.stack([fade(rgb[c], a) for c in range(n_classes) for a in amounts]).astype(np.uint8)


def decision_rgb(view) -> np.ndarray:
    """(2H, 2W, 3) uint8 image of the final decision: class colour faded by confidence, Voronoi edges of
    the centres light grey, the class boundary dark. Row 0 is the top (y_max)."""
    n_classes = view.n_classes
    t = np.clip((view.confidence - 1.0 / n_classes) / (1.0 - 1.0 / n_classes), 0.0, 1.0)
    amount = TIE_FADE + (CERTAIN_FADE - TIE_FADE) * t
    rgb = fade(class_rgb(n_classes)[view.label], amount[..., None])
    E = view.voronoi_edges.shape[0] // view.label.shape[0]
    rgb = np.repeat(np.repeat(rgb, E, axis=0), E, axis=1)
    rgb[view.voronoi_edges] = VORONOI_RGB
    rgb[np.repeat(np.repeat(view.decision_edges, E, axis=0), E, axis=1)] = EDGE_RGB
    return rgb


# --- the classifier ------------------------------------------------------------------------------


def _points(
    X, y, n_classes: int, name: str, symbol: str, size: int, tr: Translator = ENGLISH, **extra
) -> dict:
    colors = np.array(class_colors(n_classes))[np.asarray(y, dtype=np.int64)]
    return dict(
        type="scattergl" if len(X) > WEBGL_ABOVE else "scatter",
        x=X[:, 0],
        y=X[:, 1],
        mode="markers",
        name=name,
        marker=dict(
            color=list(colors), size=size, symbol=symbol, line=dict(color="rgba(0,0,0,0.6)", width=0.7)
        ),
        customdata=np.asarray(y),
        hovertemplate=tr("class") + " %{customdata}<br>(%{x:.2f}, %{y:.2f})<extra></extra>",
        **extra,
    )


def classifier_figure(
    view, title: str | None = None, height: int = 560, tr: Translator = ENGLISH
) -> go.Figure:
    """The trained classifier in the plane (see the module docstring).

    Traces, in order: training points, test points, misclassified test points (rings), segments
    from each centre to its Lloyd point, the centres, the Lloyd points (× on top: a centre sitting on
    its Lloyd point still shows its colour around the ×), then legend entries for the class boundary
    and the Voronoi edges drawn in the image.
    """
    n_classes = view.n_classes
    wrong = view.test_pred != view.y_test
    centers, lloyd = np.asarray(view.centers, np.float64), np.asarray(view.lloyd_centers, np.float64)
    seg_x = np.column_stack([centers[:, 0], lloyd[:, 0], np.full(len(centers), np.nan)]).ravel()
    seg_y = np.column_stack([centers[:, 1], lloyd[:, 1], np.full(len(centers), np.nan)]).ravel()
    data = [
        _points(view.X_train, view.y_train, n_classes, tr(TRAIN_POINTS), "circle", 6, tr),
        _points(view.X_test, view.y_test, n_classes, tr(TEST_POINTS), "diamond", 8, tr),
        markers_trace(
            view.X_test[wrong],
            name=tr(MISCLASSIFIED),
            marker=dict(symbol="circle-open", size=16, color="#000000", line=dict(width=2.5)),
            hoverinfo="skip",
        ),
        dict(
            type="scatter",
            x=[None if math.isnan(v) else float(v) for v in seg_x],
            y=[None if math.isnan(v) else float(v) for v in seg_y],
            mode="lines",
            name=tr("centre → its Lloyd point"),
            line=dict(color=KMEANS_COLOR, width=2),
            hoverinfo="skip",
            showlegend=False,
        ),
        markers_trace(
            centers,
            name=tr(CENTERS),
            marker=dict(color=list(np.array(class_colors(n_classes))[view.center_class]), **CENTER_MARKER),
            customdata=np.column_stack([np.arange(len(centers)), view.center_class]),
            hovertemplate=tr(
                "centre {centre}: its cell → class {cls}", centre="%{customdata[0]}", cls="%{customdata[1]}"
            )
            + "<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
        ),
        markers_trace(
            lloyd,
            name=tr(LLOYD),
            marker=KMEANS_MARKER,
            customdata=np.column_stack([np.arange(len(lloyd)), view.center_distances]),
            hovertemplate=(
                tr("Lloyd point of centre {centre}", centre="%{customdata[0]}")
                + "<br>"
                + tr("distance")
                + " %{customdata[1]:.3g}<extra></extra>"
            ),
        ),
        legend_only(tr("class boundary"), mode="lines", line=dict(color=_rgb_string(EDGE_RGB), width=3)),
        legend_only(tr("Voronoi edges"), mode="lines", line=dict(color=_rgb_string(VORONOI_RGB), width=3)),
    ]
    layout = base_layout(title, height, tr=tr)
    layout["images"] = [field_image(png_data_uri(decision_rgb(view)), view.extent)]
    layout.update(plane_axes(view.extent))
    layout["legend"] = dict(layout["legend"], font=dict(size=12), itemwidth=30)
    layout["margin"] = dict(layout["margin"], t=layout["margin"]["t"] + 20, b=45)
    return figure(data, layout)


def _slider(labels: list[str], active: int, prefix: str = "", redraw: bool = True) -> dict:
    still = dict(frame=dict(duration=0, redraw=redraw), mode="immediate", transition=dict(duration=0))
    return dict(
        active=active,
        x=0.0,
        len=1.0,
        y=-0.17,
        yanchor="top",
        pad=dict(t=45, b=0),
        currentvalue=dict(prefix=prefix, visible=True, xanchor="left", font=dict(size=14, color="#222222")),
        font=dict(size=1, color="rgba(0,0,0,0)"),  # dozens of step labels would overlap
        ticklen=3,
        minorticklen=0,
        steps=[dict(method="animate", label=label, args=[[str(s)], still]) for s, label in enumerate(labels)],
    )


def frame_image(codes, lut: np.ndarray, extent) -> dict:
    """A frame's decision grid (G, G) of codes as a layout image over extent (row 0 = top), coloured by
    lut."""
    return field_image(png_data_uri(lut[np.asarray(codes)]), extent)


def classifier_animation(
    view, title: str | None = None, height: int = 620, frame_ms: int = FRAME_MS, tr: Translator = ENGLISH
) -> go.Figure:
    """Training replayed: frame s shows the decision grid (coarse) and the centres after
    view.frame_epochs[s] epochs. Opens on the last frame.

    The grid is a small PNG in layout.images that each frame replaces (≈ 1–3 kB a frame): a heatmap
    trace would do too, but Plotly redraws a heatmap asynchronously and the regions flicker blank
    during Play (seen in headless Chromium); a layout image did not. The browser scales the coarse
    grid up smoothly. Traces: 0 training points (static), 1 the centres' starting positions (static),
    2 the centres (frames move them).
    """
    S = len(view.frame_epochs)
    if S == 0:
        raise ValueError("the run recorded no snapshots to animate.")
    lut = decision_lut(view.n_classes, view.frame_levels)
    last = S - 1
    centers = np.asarray(view.frame_centers, dtype=np.float64)
    images = [frame_image(view.frame_codes[s], lut, view.frame_extent) for s in range(S)]
    data = [
        _points(
            view.X_train, view.y_train, view.n_classes, tr(TRAIN_POINTS), "circle", 5, tr, hoverinfo="skip"
        ),
        markers_trace(
            centers[0],
            name=tr("start"),
            marker=dict(symbol="circle-open", size=12, color="#555555", line=dict(width=1.5)),
            hoverinfo="skip",
        ),
        dict(
            type="scatter",
            x=typed_array(centers[last, :, 0]),
            y=typed_array(centers[last, :, 1]),
            mode="markers",
            name=tr(CENTERS),
            marker=dict(color="#ffffff", **CENTER_MARKER),
            hoverinfo="skip",
        ),
    ]
    data[0].pop("hovertemplate", None)
    frames = [
        dict(
            name=str(s),
            traces=[2],
            layout=dict(images=[images[s]]),
            data=[dict(type="scatter", x=typed_array(centers[s, :, 0]), y=typed_array(centers[s, :, 1]))],
        )
        for s in range(S)
    ]
    labels = [
        tr(
            "epoch {epoch} · σ = {sigma:.3g} · test accuracy {accuracy:.3f}",
            epoch=str(int(e)),
            sigma=sig,
            accuracy=acc,
        )
        for e, sig, acc in zip(view.frame_epochs, view.frame_sigmas, view.frame_accuracy)
    ]
    layout = base_layout(title, height, tr=tr)
    layout.update(plane_axes(view.frame_extent))
    layout["images"] = [images[last]]
    layout["margin"] = dict(l=55, r=10, t=100 if title else 70, b=190)
    # layout changes (the images) need the redraw path
    layout["updatemenus"] = play_buttons(frame_ms, redraw=True, play_label=tr(PLAY_LABEL), y=-0.17)
    layout["sliders"] = [_slider(labels, last)]
    return figure_with_frames(data, layout, frames)


# --- deep clustering ---------------------------------------------------------------------------


def _polygon(cell) -> tuple[dict, dict]:
    """A closed polygon as typed x, y arrays (the first vertex repeated at the end)."""
    cell = np.asarray(cell, dtype=np.float64).reshape(-1, 2)
    if len(cell):
        cell = np.vstack([cell, cell[:1]])
    return typed_array(cell[:, 0]), typed_array(cell[:, 1])


def latent_figure(
    view, title: str | None = None, height: int = 620, frame_ms: int = FRAME_MS, tr: Translator = ENGLISH
) -> go.Figure:
    """Deep clustering's latent space over the joint phase; opens on the last frame.

    Traces: [0..k−1 the exact Voronoi cells as filled polygons, only if view.exact_voronoi], then the
    codes (colour = cluster, hover = true class), then the centres (cluster colours). Frames update all
    of them; everything is a scatter, so frames play without a full redraw (no flicker).
    """
    S = len(view.frame_epochs)
    k = view.k
    colors = cluster_colors(k)
    last = S - 1
    faded = [_rgb_string(fade(rgb, LATENT_FADE)) for rgb in cluster_rgb(k)]
    codes = np.asarray(view.frame_codes, dtype=np.float64)
    centers = np.asarray(view.frame_centers, dtype=np.float64)
    point_scale = _step_colorscale(colors)

    def cells(s):
        polygons = view.frame_cells[s] if view.frame_cells[s] else [np.zeros((0, 2))] * k
        return [_polygon(cell) for cell in polygons]

    def point_marker(s):
        return dict(
            color=typed_array(view.frame_labels[s], "u1"),
            cmin=-0.5,
            cmax=k - 0.5,
            colorscale=point_scale,
            size=6,
            line=dict(color="rgba(0,0,0,0.55)", width=0.6),
        )

    data = []
    if view.exact_voronoi:
        for j, (x, y) in enumerate(cells(last)):
            data.append(
                dict(
                    type="scatter",
                    x=x,
                    y=y,
                    mode="lines",
                    fill="toself",
                    fillcolor=faded[j],
                    line=dict(color="rgba(90,90,90,0.8)", width=1),
                    hoverinfo="skip",
                    name=tr("Voronoi cells (exact)") if j == 0 else tr("cell {j}", j=j),
                    showlegend=j == 0,
                    legendgroup="cells",
                )
            )
    data.append(
        dict(
            type="scatter",
            x=typed_array(codes[last, :, 0]),
            y=typed_array(codes[last, :, 1]),
            mode="markers",
            name=tr("codes (colour = cluster)"),
            marker=point_marker(last),
            customdata=np.asarray(view.point_class),
            hovertemplate=tr("true class") + " %{customdata}<extra></extra>",
        )
    )
    data.append(
        dict(
            type="scatter",
            x=typed_array(centers[last, :, 0]),
            y=typed_array(centers[last, :, 1]),
            mode="markers",
            name=tr("centres c_j"),
            marker=dict(color=colors, **CENTER_MARKER),
            hoverinfo="skip",
        )
    )
    animated = list(range(len(data)))
    frames = []
    for s in range(S):
        frame_data = []
        if view.exact_voronoi:
            frame_data += [dict(type="scatter", x=x, y=y) for x, y in cells(s)]
        frame_data.append(
            dict(
                type="scatter",
                x=typed_array(codes[s, :, 0]),
                y=typed_array(codes[s, :, 1]),
                marker=point_marker(s),
            )
        )
        frame_data.append(
            dict(type="scatter", x=typed_array(centers[s, :, 0]), y=typed_array(centers[s, :, 1]))
        )
        frames.append(dict(name=str(s), traces=animated, data=frame_data))
    labels = [
        tr("epoch {epoch} · σ = {sigma:.3g} · NMI {nmi:.3f}", epoch=str(int(e)), sigma=sig, nmi=nmi)
        for e, sig, nmi in zip(view.frame_epochs, view.frame_sigmas, view.frame_nmi)
    ]
    axis_names = ("z₁", "z₂") if view.exact_voronoi else (tr("PCA 1 of the codes"), tr("PCA 2 of the codes"))
    layout = base_layout(title, height, tr=tr)
    layout.update(plane_axes(view.extent, *axis_names))
    layout["margin"] = dict(l=55, r=10, t=100 if title else 70, b=190)
    layout["updatemenus"] = play_buttons(frame_ms, redraw=False, play_label=tr(PLAY_LABEL), y=-0.17)
    layout["sliders"] = [_slider(labels, last, redraw=False)]
    return figure_with_frames(data, layout, frames)


# --- curves against the epoch --------------------------------------------------------------------


# Small multiples are stacked in one column, so that on a phone every panel keeps the figure's whole
# width. A panel's block, top to bottom, in pixels: its title, its legend, the plot, then the x axis'
# ticks and title and the gap to the next panel's title. The legend lists one entry per row and a long
# title is wrapped at TITLE_CHARS characters, so their heights depend only on their texts, never on the
# width the browser gives the figure: the block reserves those heights, and neither reaches the other
# or the plot. TITLE_CHARS of 14-pt bold text fit in a phone's figure (about 300 px beside the y axis).
TITLE_CHARS = 42
PANEL_TITLE_FONT = 14
PANEL_TITLE_GAP_PX = 8
PANEL_LEGEND_FONT = 11
# between a legend and its plot: the plot area Plotly draws may be a few pixels shorter than the layout's
# (margins pushed by the axes), which shrinks every band a little, and the first legend has an opaque box
PANEL_LEGEND_GAP_PX = 8
PANEL_PLOT_PX = 170
PANEL_AXIS_PX = 64


def title_lines(text: str, most: int = TITLE_CHARS) -> list[str]:
    """``text`` in as few lines of at most ``most`` characters as it needs, broken between words (a
    longer word on a line of its own), the lines about equally long."""
    count = len(textwrap.wrap(text, most, break_long_words=False))
    if count <= 1:
        return [text]
    width = math.ceil(len(text) / count)
    while len(lines := textwrap.wrap(text, width, break_long_words=False)) > count:
        width += 1
    return lines


def title_px(lines: int, font_size: float) -> float:
    """Height in pixels of ``lines`` lines of text: 1.3 lines of its font each (Plotly's line height)."""
    return lines * 1.3 * font_size


def legend_px(rows: int, font_size: float) -> float:
    """Height in pixels of a vertical Plotly legend of ``rows`` one-line entries: each entry 1.3 lines
    of its font (at least 16 px) and a 3 px gap, and 5 px of padding above and below the list
    (plotly.js' legend layout, measured in Chromium)."""
    return rows * (max(1.3 * font_size, 16.0) + 3.0) + 10.0


def _legend_rows(panel: dict) -> int:
    """Entries in a panel's legend: its lines, and its horizontal lines that are drawn (see below)."""
    has_x = any(np.asarray(line["x"]).size for line in panel["lines"])
    return len(panel["lines"]) + sum(1 for h in panel.get("hlines", []) if h.get("span") or has_x)


def _block_px(title_rows: int, legend_rows: int) -> tuple[float, float]:
    """Pixels from a panel's top to its legend's top, and to its plot's top."""
    to_legend = title_px(title_rows, PANEL_TITLE_FONT) + PANEL_TITLE_GAP_PX
    return to_legend, to_legend + legend_px(legend_rows, PANEL_LEGEND_FONT) + PANEL_LEGEND_GAP_PX


def _panel_places(rows: list[tuple[int, int]], paper_px: float) -> list[tuple[float, float, tuple]]:
    """Per panel with (title lines, legend entries) ``rows``, in paper fractions of a plot area
    ``paper_px`` high: the top of its title, the top of its legend and its plot's y domain (bottom,
    top); the blocks stacked from the top."""
    places, top = [], paper_px
    for title_rows, legend_rows in rows:
        to_legend, to_plot = _block_px(title_rows, legend_rows)
        plot_bottom = top - to_plot - PANEL_PLOT_PX
        places.append(
            (
                (
                    top / paper_px,
                    (top - to_legend) / paper_px,
                    (max(plot_bottom / paper_px, 0.0), (top - to_plot) / paper_px),
                )
            )
        )
        top = plot_bottom - PANEL_AXIS_PX
    return places


def log_tickvals(
    low: float, high: float, most: int = 7, tr: Translator = ENGLISH
) -> tuple[list[float], list[str]]:
    """Ticks of a log axis over [low, high]: 1-2-5 per decade over up to three decades (as the Annealing
    view; "0,05" in a decimal-comma language of ``tr``), else powers of ten, every m-th decade so that
    at most ``most`` remain, labelled 10⁻⁵."""
    low, high = float(min(low, high)), float(max(low, high))
    if not (low > 0 and math.isfinite(high)):
        return [], []
    if high / low <= 1e3:
        return log_ticks(low, high, tr)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    step = max(1, math.ceil((last - first + 1) / most))
    exponents = [e for e in range(first, last + 1) if e % step == 0]
    return [10.0**e for e in exponents], [_power_label(e) for e in exponents]


def _power_label(e: int) -> str:
    return {0: "1", 1: "10"}.get(e, f"10<sup>{e}</sup>")


def curves_figure(
    panels: list[dict],
    title: str | None = None,
    x_title: str = EPOCH,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """Small multiples sharing nothing but the look, stacked in one column; each panel has its title,
    then its own legend (one entry per row), above it. The figure's height follows from its panels.

    panels: [{"title": str, "log": bool, "lines": [{"name", "x", "y", "color", "dash"?, "width"?,
    "mark_nan"?}], "hlines": [{"y", "name", "color", "dash"?, "span"?: (x0, x1)}], "range": [lo, hi]?}]
    (a horizontal line spans its panel's lines unless given a span). On a log panel,
    exact zeros are drawn as triangles at the axis floor (a decade below the smallest positive value)
    and NaN as crosses at the top (a decade above the largest) — they would otherwise vanish — unless
    the line says mark_nan=False (NaN meaning "not measured here"); each such trace has meta
    ["zero"|"nan", line name]. Log axes get ticks from ``log_tickvals``. Titles and names come in
    ``tr``'s language; ``x_title`` (a catalog message) is shown as ``tr(x_title)``.
    """
    x_title = tr(x_title)
    titles = [title_lines(panel["title"]) for panel in panels]
    rows = [(len(lines), _legend_rows(panel)) for lines, panel in zip(titles, panels)]
    # the last block's axis band holds the last x axis' ticks and title, so the bottom margin is small
    margin = dict(l=60, r=20, t=70 if title else 10, b=10)
    paper_px = sum(_block_px(*r)[1] + PANEL_PLOT_PX + PANEL_AXIS_PX for r in rows)
    layout = base_layout(title, int(math.ceil(paper_px)) + margin["t"] + margin["b"], tr=tr)
    layout.pop("xaxis"), layout.pop("yaxis")
    layout["annotations"] = []
    layout["shapes"] = []
    data = []
    for i, (panel, lines, (title_top, legend_top, (y0, y1))) in enumerate(
        zip(panels, titles, _panel_places(rows, paper_px))
    ):
        suffix = "" if i == 0 else str(i + 1)
        xref, yref = "x" + suffix, "y" + suffix
        legend = "legend" + suffix
        axis = framed_axis()
        layout["xaxis" + suffix] = dict(
            axis, domain=[0.0, 1.0], anchor=yref, title=dict(text=x_title, font=dict(size=12), standoff=4)
        )
        yaxis = dict(axis, domain=[y0, y1], anchor=xref)
        values = np.concatenate(
            [np.asarray(line["y"], np.float64) for line in panel["lines"]]
            + [np.asarray([h["y"] for h in panel.get("hlines", [])], np.float64)]
        )
        positive = values[np.isfinite(values) & (values > 0)]
        floor = log_axis_floor(values)
        ceiling = float(positive.max()) * 10.0 if positive.size else 1.0
        if panel.get("log"):
            tickvals, ticktext = log_tickvals(floor, ceiling, tr=tr)
            yaxis.update(type="log", tickvals=tickvals, ticktext=ticktext)
        if panel.get("range"):
            yaxis["range"] = list(panel["range"])
        layout["yaxis" + suffix] = yaxis
        layout["annotations"].append(
            dict(
                text="<br>".join(f"<b>{line}</b>" for line in lines),
                xref="paper",
                yref="paper",
                x=0.0,
                y=title_top,
                yanchor="top",
                xanchor="left",
                align="left",
                showarrow=False,
                font=dict(size=PANEL_TITLE_FONT),
            )
        )
        layout[legend] = dict(
            orientation="v",
            x=0.0,
            xanchor="left",
            y=legend_top,
            yanchor="top",
            yref="paper",
            font=dict(size=PANEL_LEGEND_FONT),
            bgcolor="rgba(255,255,255,0)",
            itemwidth=30,
            tracegroupgap=0,
        )
        for line in panel["lines"]:
            x = np.asarray(line["x"], dtype=np.float64)
            y = np.asarray(line["y"], dtype=np.float64)
            shown = np.where(y > 0, y, np.nan) if panel.get("log") else y
            data.append(
                dict(
                    type="scatter",
                    x=x,
                    y=with_gaps(shown),
                    mode=line.get("mode", "lines"),
                    name=line["name"],
                    xaxis=xref,
                    yaxis=yref,
                    legend=legend,
                    meta=["line", line["name"]],
                    line=dict(
                        color=line["color"], dash=line.get("dash", "solid"), width=line.get("width", 2)
                    ),
                    marker=dict(color=line["color"], size=5),
                    hovertemplate=f"{line['name']}<br>{x_title} %{{x}}: %{{y:.4g}}<extra></extra>",
                )
            )
            if panel.get("log"):
                nan = np.isnan(y) if line.get("mark_nan", True) else np.zeros(len(y), dtype=bool)
                for kind, mask, at, symbol in (
                    ("zero", np.isfinite(y) & (y == 0), floor, "triangle-down"),
                    ("nan", nan, ceiling, "x"),
                ):
                    if mask.any():
                        data.append(
                            dict(
                                type="scatter",
                                x=x[mask],
                                y=[at] * int(mask.sum()),
                                mode="markers",
                                xaxis=xref,
                                yaxis=yref,
                                legend=legend,
                                showlegend=False,
                                meta=[kind, line["name"]],
                                marker=dict(symbol=symbol, size=7, color=line["color"]),
                                hovertemplate=f"{line['name']}<br>{x_title} %{{x}}: "
                                + (tr("exactly 0") if kind == "zero" else "NaN")
                                + "<extra></extra>",
                            )
                        )
        xs = np.concatenate(
            [np.asarray(line["x"], np.float64).ravel() for line in panel["lines"]] + [np.zeros(0)]
        )
        for h in panel.get("hlines", []):
            span = h.get("span") or ((float(xs.min()), float(xs.max())) if xs.size else None)
            if span is None:
                continue
            data.append(
                dict(
                    type="scatter",
                    x=[float(span[0]), float(span[1])],
                    y=[float(h["y"])] * 2,
                    mode="lines",
                    name=h["name"],
                    xaxis=xref,
                    yaxis=yref,
                    legend=legend,
                    meta=["hline", h["name"]],
                    line=dict(color=h["color"], dash=h.get("dash", "dash"), width=1.8),
                    hovertemplate=f"{h['name']}: {float(h['y']):.4g}<extra></extra>",
                )
            )
    layout["margin"] = margin
    layout["showlegend"] = True
    return figure(data, layout)


LOSS_COLOR, CE_COLOR, CLUSTER_COLOR = "#222222", "#004488", "#BB5566"
TRAIN_COLOR, TEST_COLOR, BASELINE_COLOR = "#DDAA33", "#004488", "#BB5566"
SIGMA_COLOR = "#117733"
GROUP_COLORS = {"encoder": "#004488", "decoder": "#DDAA33", "centers": "#BB5566", "readout": "#117733"}


def classifier_history_figure(view, tr: Translator = ENGLISH) -> go.Figure:
    """Five panels against the epoch: the loss and its terms; train/test accuracy with the linear
    baseline; the σ schedule; the gradient norms (log; NaN and exact zeros marked); skipped steps."""
    h = view.history
    e = h["epoch"]
    lam_cluster = np.asarray(h["cluster"], np.float64)
    panels = [
        {
            "title": tr("loss = CE + λ·L_σ/n (log)"),
            "log": True,
            "lines": [
                {"name": tr("loss"), "x": e, "y": h["loss"], "color": LOSS_COLOR, "width": 2.5},
                # named as in the panel's title
                {"name": "CE", "x": e, "y": h["ce"], "color": CE_COLOR},
                {"name": "L_σ/n", "x": e, "y": lam_cluster, "color": CLUSTER_COLOR, "dash": "dot"},
            ],
        },
        {
            "title": tr("accuracy"),
            "log": False,
            "range": [0, 1.03],
            "lines": [
                {"name": tr(TRAIN_POINTS), "x": e, "y": h["train_accuracy"], "color": TRAIN_COLOR},
                {"name": tr(TEST_POINTS), "x": e, "y": h["test_accuracy"], "color": TEST_COLOR, "width": 2.5},
            ],
            "hlines": [
                {"y": view.linear_accuracy, "name": tr("logistic regression (test)"), "color": BASELINE_COLOR}
            ],
        },
        {
            "title": tr("σ (annealed, then held; log)"),
            "log": True,
            "lines": [{"name": "σ", "x": e, "y": h["sigma"], "color": SIGMA_COLOR, "width": 2.5}],
        },
        {
            "title": tr("gradient norms (log; × NaN, ▼ exactly 0)"),
            "log": True,
            "lines": [
                {
                    "name": tr("centres"),
                    "x": e,
                    "y": h["grad_norm_centers"],
                    "color": GROUP_COLORS["centers"],
                },
                {
                    "name": tr("read-out"),
                    "x": e,
                    "y": h["grad_norm_readout"],
                    "color": GROUP_COLORS["readout"],
                },
            ],
        },
        nan_steps_panel(e, h["nan_steps"], tr("skipped (NaN) steps per epoch, of 1 full-batch step"), tr),
    ]
    return curves_figure(panels, tr=tr)


def nan_steps_panel(epochs, nan_steps, title: str, tr: Translator = ENGLISH) -> dict:
    """The panel counting steps skipped per epoch because the loss or a gradient was not finite."""
    nan_steps = np.asarray(nan_steps, dtype=np.float64)
    top = max(1.0, float(nan_steps.max()) if nan_steps.size else 1.0)
    return {
        "title": title,
        "log": False,
        "range": [-0.05 * top, 1.1 * top],
        "lines": [
            {
                "name": tr("skipped: {count} in total", count=int(nan_steps.sum())),
                "x": epochs,
                "y": nan_steps,
                "color": KIND_COLORS["naive"],
                "mode": "lines+markers",
            }
        ],
    }


def deep_history_figure(view, tr: Translator = ENGLISH) -> go.Figure:
    """Five panels against the epoch (pretraining included): losses; NMI of the joint phase with the
    baselines; σ; gradient norms per group (log; NaN and exact zeros marked); skipped (NaN) steps."""
    h = view.history
    e = np.asarray(h["epoch"])
    joint = np.array([phase == "joint" for phase in h["phase"]], dtype=bool)
    span = (float(e.min()), float(e.max())) if not joint.any() else None  # stopped while pretraining
    baselines = [
        {"y": view.pretrain_nmi, "name": tr("AE + K-Means"), "color": "#666666", "dash": "dot", "span": span}
    ]
    if view.kmeans_raw_nmi is not None:
        baselines.append(
            {"y": view.kmeans_raw_nmi, "name": tr("K-Means raw"), "color": BASELINE_COLOR, "span": span}
        )
    if view.kmeans_pca_nmi is not None:
        baselines.append(
            {
                "y": view.kmeans_pca_nmi,
                "name": tr("K-Means PCA-{dim}", dim=str(view.latent_dim)),
                "color": "#DDAA33",
                "dash": "dashdot",
                "span": span,
            }
        )

    def joint_only(column):  # σ, L_σ, NMI and the centres' gradient do not exist while pretraining
        return e[joint], np.asarray(h[column], np.float64)[joint]

    panels = [
        {
            "title": tr("losses (batch means; log)"),
            "log": True,
            "lines": [
                {"name": tr("reconstruction"), "x": e, "y": h["recon"], "color": CE_COLOR, "width": 2.5},
                {
                    "name": "L_σ/B",
                    "x": joint_only("cluster")[0],
                    "y": joint_only("cluster")[1],
                    "color": CLUSTER_COLOR,
                },
            ],
        },
        {
            "title": tr("NMI with the true classes (joint phase)"),
            "log": False,
            "lines": [
                {
                    "name": tr("joint model"),
                    "x": joint_only("nmi")[0],
                    "y": joint_only("nmi")[1],
                    "color": TEST_COLOR,
                    "width": 2.5,
                }
            ],
            "hlines": baselines,
        },
        {
            "title": tr("σ in code units (joint phase; log)"),
            "log": True,
            "lines": [
                {
                    "name": "σ",
                    "x": joint_only("sigma")[0],
                    "y": joint_only("sigma")[1],
                    "color": SIGMA_COLOR,
                    "width": 2.5,
                }
            ],
        },
        {
            "title": tr("gradient norms (log; × NaN, ▼ exactly 0)"),
            "log": True,
            "lines": [
                {
                    "name": tr("encoder"),
                    "x": e,
                    "y": h["grad_norm_encoder"],
                    "color": GROUP_COLORS["encoder"],
                },
                {
                    "name": tr("decoder"),
                    "x": e,
                    "y": h["grad_norm_decoder"],
                    "color": GROUP_COLORS["decoder"],
                },
                {
                    "name": tr("centres"),
                    "x": joint_only("grad_norm_centers")[0],
                    "y": joint_only("grad_norm_centers")[1],
                    "color": GROUP_COLORS["centers"],
                },
            ],
        },
        nan_steps_panel(e, h["nan_steps"], tr("skipped (NaN) steps per epoch, of its mini-batch steps"), tr),
    ]
    fig = curves_figure(panels, tr=tr)
    if view.pretrain_epochs and view.epochs_run > view.pretrain_epochs:
        boundary = view.pretrain_epochs + 0.5
        fig.layout.shapes = tuple(
            dict(
                type="line",
                xref="x" + ("" if i == 0 else str(i + 1)),
                yref=("y" + ("" if i == 0 else str(i + 1))) + " domain",
                x0=boundary,
                x1=boundary,
                y0=0,
                y1=1,
                line=dict(color="#888888", dash="dot", width=1.2),
                name=tr("joint phase starts"),
            )
            for i in (0, 3, 4)
        )
    return fig


# softmax and entmax often overlap exactly (both at accuracy 1): a wide solid line under a dashed one
LOW_SIGMA_STYLE = {
    "naive": {"width": 2.5},
    "softmax": {"width": 4.5},
    "entmax15": {"width": 2.2, "dash": "dash"},
}


def low_sigma_figure(comparison, n_train: int, tr: Translator = ENGLISH) -> go.Figure:
    """Four panels, one line per map, against the epoch at the comparison's fixed σ: test accuracy;
    the cross-entropy's gradient to the centres (the part through r; log, exact 0 and NaN marked);
    exactly one-hot rows of r (% of the n_train training rows); skipped steps (non-finite loss or
    gradient), cumulative."""
    lines = {key: [] for key in ("acc", "ce", "hot", "skip")}
    for kind in comparison.kinds:
        if kind not in comparison.history:
            continue
        h = comparison.history[kind]
        e = h["epoch"]
        style = {"color": KIND_COLORS[kind], **LOW_SIGMA_STYLE[kind]}
        name = tr(KIND_LABELS[kind])
        lines["acc"].append({"name": name, "x": e, "y": h["test_accuracy"], **style})
        lines["ce"].append({"name": name, "x": e, "y": h["grad_norm_centers_ce"], **style})
        lines["hot"].append(
            {"name": name, "x": e, "y": 100.0 * np.asarray(h["one_hot_rows"]) / n_train, **style}
        )
        lines["skip"].append({"name": name, "x": e, "y": np.cumsum(h["nan_steps"]), **style})
    panels = [
        {
            "title": tr("test accuracy (a NaN row counts as an error)"),
            "log": False,
            "range": [0, 1.03],
            "lines": lines["acc"],
        },
        {"title": tr("‖∂CE/∂C‖ through r (log; × NaN, ▼ exactly 0)"), "log": True, "lines": lines["ce"]},
        {
            "title": tr("rows of r exactly one-hot (%)"),
            "log": False,
            "range": [-3, 103],
            "lines": lines["hot"],
        },
        {
            "title": tr("skipped steps (NaN loss or gradient), cumulative"),
            "log": False,
            "lines": lines["skip"],
        },
    ]
    return curves_figure(panels, tr=tr)
