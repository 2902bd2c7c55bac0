"""The plane at one σ: soft field image, hard Voronoi edges, points coloured by r, both centre sets.

``plane_figure`` is the Explorer's figure; ``field_rgb`` turns a ``rbfviz.field.Field`` into the
(H, W, 3) image used under the data (also usable by other views), ``field_images`` does it for many σ
levels at once and ``field_pngs``/``field_uris`` encode them (a palette PNG where a level has at most 256
colours, RGB otherwise; the figures carry these). Markers that mean the same in
every view: ``CENTER_MARKER`` (RBF centres, filled in their cluster colour, black outline) and
``KMEANS_MARKER`` (K-Means centroids, black ×).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.field import Field, plane_extent
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.layout import (
    base_layout,
    data_uri,
    field_image,
    figure,
    legend_only,
    plane_axes,
    png_scanline_bytes,
    png_scanlines,
)
from rbfviz.views.common.palette import (
    EDGE_RGB,
    NAN_RGB,
    cluster_rgb,
)
from rbfviz.views.common.plane import centers_trace, kmeans_trace, points_trace

# Field colours are faded toward white so the points on top stay readable.
FIELD_FADE_HARD = 0.55
ENTROPY_DARK = (68, 60, 110)  # the most uncertain pixels (H = ln k)


def field_rgb(field: Field) -> np.ndarray:
    """(E·H, E·W, 3) uint8 image of a Field, with its Voronoi edges drawn at E× resolution.

    "max": each pixel takes the colour of its most responsible cluster, faded toward white as
    max r falls from 1 (hard) to 1/k (undecided); "entropy": white (H = 0) to dark violet
    (H = ln k). NaN pixels (naive map broken) are grey; Voronoi edges dark grey. Row 0 is the top.
    """
    return field_images([field])[0]


def _field_colours(fields) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The colours of m Fields' pixels before the edges: (three (m, H, W) uint8 channel planes, the
    (m, H, W) colour group, the (m, H, W) NaN mask). Within a group the colour depends on one number
    (the fade amount, or the entropy) through channels that all move the same way as it, so two
    different colours of one group never have the same channel sum. Groups: the cluster for "max", one
    group for "entropy"; NaN pixels are grey whatever their group."""
    first = fields[0]
    k = first.k
    value = _stacked([field.value for field in fields])
    bad = ~np.isfinite(value)
    if first.quantity == "max":
        # in place, the same operations as FIELD_FADE_HARD + (1 - FIELD_FADE_HARD)·(1 - certainty) with
        # certainty = clip((value - 1/k) / (1 - 1/k), 0, 1): a pass fewer per operation
        if k > 1:
            amount = np.subtract(np.nan_to_num(value, nan=1.0) if bad.any() else value, 1.0 / k)
            amount /= 1.0 - 1.0 / k
            np.maximum(amount, 0.0, out=amount)
            np.minimum(amount, 1.0, out=amount)
        else:
            amount = np.ones_like(value)
        np.subtract(1.0, amount, out=amount)
        amount *= 1.0 - FIELD_FADE_HARD
        amount += FIELD_FADE_HARD
        group = np.maximum(_stacked([field.argmax for field in fields]), 0)  # -1 where NaN, never k or more
        channels = [_faded_channel(cluster_rgb(k)[:, c], group, amount) for c in range(3)]
    else:
        t = np.clip(np.nan_to_num(value, nan=0.0) / max(np.log(k), 1e-12), 0.0, 1.0)
        channels = [np.rint(255.0 + (float(dark) - 255.0) * t).astype(np.uint8) for dark in ENTROPY_DARK]
        group = np.zeros(value.shape, dtype=np.intp)
    if bad.any():
        for c, channel in enumerate(channels):
            channel[bad] = NAN_RGB[c]
    return channels, group, bad


def _faded_channel(levels: np.ndarray, group: np.ndarray, amount: np.ndarray) -> np.ndarray:
    """One channel of ``palette.fade``: ``fade(levels[group], amount)``'s channel, the same bits, in
    fewer passes over the pixels (the per-cluster terms are looked up already in float64; amount lies in
    [0, 1], so the rounded value lies in [levels, 255] and needs no clipping).

    levels: (k,) uint8, one channel of the cluster colours; group, amount: (...) cluster and fade amount."""
    base = levels.astype(np.float64)
    out = np.take(255.0 - base, group)
    out *= amount
    out += np.take(base, group)
    return np.rint(out, out=out).astype(np.uint8)


def _edge_positions(fields) -> np.ndarray:
    """Flat positions of the Voronoi edge pixels in the (m, E·H, E·W) images of ``fields``."""
    return np.flatnonzero(_stacked([field.edges for field in fields]))


def _stacked(arrays: list[np.ndarray]) -> np.ndarray:
    """``np.stack(arrays)`` to read, without copying the levels' arrays when they lie one after the other
    in one array (as ``rbfviz.field.soft_fields`` gives its levels' arrays): a read-only view then."""
    first = arrays[0]
    address = first.__array_interface__["data"][0]
    consecutive = first.flags.c_contiguous and all(
        array.base is not None
        and array.base is first.base
        and array.dtype == first.dtype
        and array.shape == first.shape
        and array.__array_interface__["data"][0] == address + i * first.nbytes
        for i, array in enumerate(arrays)
    )
    if not consecutive:
        return np.stack(arrays)
    return np.lib.stride_tricks.as_strided(
        first, (len(arrays), *first.shape), (first.nbytes, *first.strides), writeable=False
    )


def _rgb_blocks(channels, edge_at: np.ndarray, E: int, scanlines: np.ndarray | None = None) -> np.ndarray:
    """(m, E·H, E·W, 3) uint8 images from three (m, H, W) channel planes, each pixel an E×E block, with
    the edge colour at the flat pixel positions ``edge_at``. scanlines: (m, E·H, 1 + 3·E·W) PNG rows
    (``layout.png_scanlines``) to write the images into after each row's filter byte, instead of new
    arrays (then returned)."""
    m, height, width = channels[0].shape
    if scanlines is None:
        blocks = np.empty((m, height, E, width, E, 3), dtype=np.uint8)
    else:
        blocks = scanlines[:, :, 1:].reshape(m, height, E, width, E, 3)  # a view: axes only split
    # one channel at a time into the first row of each block (a strided copy of whole planes; a
    # broadcast of (..., 3) pixels runs an inner loop of 3 bytes, several times slower), then that row
    # into the others
    for c, channel in enumerate(channels):
        for e in range(E):
            blocks[:, :, 0, :, e, c] = channel
    blocks[:, :, 1:] = blocks[:, :, :1]
    # the edges' few pixels by their flat positions (a boolean mask over (..., 3) pixels is ~10× slower)
    if scanlines is None:
        flat, at = blocks.reshape(-1), 3 * edge_at
    else:
        flat, at = scanlines.reshape(-1), _scanline_positions(edge_at, width * E, 3)
    for c, level in enumerate(EDGE_RGB):
        flat[at + c] = level
    return blocks.reshape(m, height * E, width * E, 3) if scanlines is None else scanlines


def _scanline_positions(at: np.ndarray, row_pixels: int, samples: int) -> np.ndarray:
    """Where the first sample of the pixels at flat positions ``at`` of (..., rows, row_pixels) images lies
    in their PNG scanlines (..., rows, 1 + samples·row_pixels): after the filter byte of each row."""
    return samples * at + at // row_pixels + 1


def field_images(fields) -> np.ndarray:
    """``field_rgb`` of m Fields at once (the same grid, k, quantity and edge factor, e.g. one setting's σ
    levels from ``rbfviz.field.soft_fields``): (m, E·H, E·W, 3) uint8, image i the bits of
    ``field_rgb(fields[i])``."""
    channels, _, _ = _field_colours(fields)
    return _rgb_blocks(channels, _edge_positions(fields), fields[0].edge_factor)


def field_pngs(fields) -> list[bytes]:
    """The PNG of each of m Fields' images (``field_images``; the same arguments): an 8-bit palette PNG
    where the image has at most 256 colours (a byte per pixel instead of three: a third of the data to
    compress, and fewer bytes), an RGB PNG otherwise. Decoded, each has ``field_rgb(fields[i])``'s pixels.

    The colours are found without sorting the pixels: within a level a pixel's colour is named by its
    group and channel sum (``_field_colours``), a few thousand names at most."""
    channels, group, bad = _field_colours(fields)
    E = fields[0].edge_factor
    m, height, width = channels[0].shape
    pixels = height * width
    image_size = pixels * E * E
    names = (int(group.max()) + 1) * 766 + 2  # per level: group × channel sum (0 to 765), NaN, edge
    nan_name, edge_name = names - 2, names - 1
    name = channels[0].astype(np.int32)
    name += channels[1]
    name += channels[2]
    name += group.astype(np.int32) * 766
    name[bad] = nan_name
    name = name.reshape(m, pixels)
    name += (np.arange(m, dtype=np.int32) * names)[:, None]  # every level's names apart
    # one pixel of each name, whose colour it is (-1: a name no pixel has)
    sample = np.full(m * names, -1, dtype=np.int32)
    sample[name.reshape(-1)] = np.arange(m * pixels, dtype=np.int32)
    edge_at = _edge_positions(fields)
    edge_level = edge_at // image_size
    has_edges = np.zeros(m, dtype=bool)
    has_edges[edge_level] = True
    sample = sample.reshape(m, names)
    entry = np.zeros((m, names), dtype=np.uint8)  # each name's place in its level's palette
    palettes = {}
    for i in range(m):
        present = np.flatnonzero(sample[i] >= 0)
        at = sample[i, present]
        rgb = np.stack([channel.reshape(-1)[at] for channel in channels], axis=1)
        if has_edges[i]:
            present = np.append(present, edge_name)
            rgb = np.vstack([rgb, np.array(EDGE_RGB, dtype=np.uint8)])
        rgb = rgb.astype(np.uint32)
        distinct, place = np.unique((rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2], return_inverse=True)
        if len(distinct) <= 256:
            entry[i, present] = place.reshape(-1)
            palettes[i] = np.stack([distinct >> 16, (distinct >> 8) & 255, distinct & 255], axis=1)
    pngs: list = [None] * m
    if palettes:
        indexed = list(palettes)
        shown = entry.reshape(-1)[name[indexed]].reshape(len(indexed), height, width)  # names are level-apart
        # the images are written straight into their PNG rows (each after its filter byte)
        scanlines = png_scanlines((len(indexed), height * E, width * E))
        blocks = scanlines[:, :, 1:].reshape(len(indexed), height, E, width, E)  # a view: axes only split
        for e in range(E):
            blocks[:, :, 0, :, e] = shown
        blocks[:, :, 1:] = blocks[:, :, :1]
        chosen = np.isin(edge_level, indexed)
        position = np.searchsorted(indexed, edge_level[chosen])  # the level's place among ``indexed``
        at = _scanline_positions(edge_at[chosen] + (position - edge_level[chosen]) * image_size, width * E, 1)
        scanlines.reshape(-1)[at] = entry[edge_level[chosen], edge_name]
        for position, i in enumerate(indexed):
            pngs[i] = png_scanline_bytes(scanlines[position], palettes[i].astype(np.uint8))
    for i in range(m):
        if i not in palettes:  # an RGB image is three times the bytes: one level at a time
            chosen = edge_level == i
            scanlines = _rgb_blocks(
                [channel[i : i + 1] for channel in channels],
                edge_at[chosen] - i * image_size,
                E,
                png_scanlines((1, height * E, 3 * width * E)),
            )
            pngs[i] = png_scanline_bytes(scanlines[0])
    return pngs


def field_uris(fields) -> list[str]:
    """``field_pngs`` as data URIs, for a figure's layout image."""
    return [data_uri(png) for png in field_pngs(fields)]


def entropy_colorbar_trace(k: int, tr: Translator = ENGLISH) -> dict:
    """An invisible trace whose only job is the colour bar of the entropy field (0 to ln k nats)."""
    return dict(
        type="scatter",
        x=[None],
        y=[None],
        mode="markers",
        showlegend=False,
        hoverinfo="skip",
        marker=dict(
            color=[0.0],
            cmin=0.0,
            cmax=float(np.log(k)),
            showscale=True,
            colorscale=[[0, "rgb(255,255,255)"], [1, "rgb(%d,%d,%d)" % ENTROPY_DARK]],
            colorbar=dict(title=dict(text=tr("H(r), nats"), side="right"), thickness=14, len=0.6),
        ),
    )


def plane_figure(
    X,
    resp,
    centers,
    kmeans_centers,
    field: Field | None = None,
    title: str | None = None,
    height: int = 640,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """Points X (n, 2) coloured by responsibilities resp (n, k), over the field image.

    centers (k, 2): the RBF centres, in cluster colours (centre j = cluster j).
    kmeans_centers (k, 2): K-Means centroids in the same cluster order (black ×).
    field: optional ``Field`` drawn as a PNG image under everything, with a legend entry for its
    Voronoi edges (and a colour bar for "entropy"). Hover on a point shows its r vector; NaN rows
    (naive map) are grey and hover "nan".
    Trace order: points, RBF centres, K-Means centroids, then legend/colour-bar helpers. Its words are
    in ``tr``'s language.
    """
    X = np.asarray(X, dtype=np.float64)
    resp = np.asarray(resp, dtype=np.float64)
    centers = np.asarray(centers, dtype=np.float64)
    kmeans_centers = np.asarray(kmeans_centers, dtype=np.float64)
    if resp.ndim != 2:
        raise ValueError(f"resp must have shape (n, k), got {resp.shape}.")
    n, k = resp.shape
    if X.shape != (n, 2):
        raise ValueError(f"X must have shape ({n}, 2) to match resp {resp.shape}, got {X.shape}.")
    if centers.shape != (k, 2) or kmeans_centers.shape != (k, 2):
        raise ValueError(
            f"centers and kmeans_centers must have shape ({k}, 2), got {centers.shape} "
            f"and {kmeans_centers.shape}."
        )
    data = [
        points_trace(X, resp, tr=tr),
        centers_trace(centers, tr=tr),
        kmeans_trace(kmeans_centers, tr=tr),
    ]
    layout = base_layout(title, height, legend="below", tr=tr)
    if field is not None:
        extent = field.extent
        layout["images"] = [field_image(field_uris([field])[0], extent)]
        data.append(
            legend_only(
                tr("Voronoi edges (hard)"), mode="lines", line=dict(color="rgb(%d,%d,%d)" % EDGE_RGB, width=2)
            )
        )
        if field.quantity == "entropy":
            data.append(entropy_colorbar_trace(k, tr))
    else:
        extent = plane_extent(X)
    layout.update(plane_axes(extent))
    return figure(data, layout)


# --- the Explorer's figure and the numbers beside it ------------------------------------------------


def explorer_figure(
    X,
    resp,
    centers,
    kmeans_centers,
    field: Field | None,
    title: str,
    picks_traces=(),
    axes: tuple[str, str] | None = None,
    drawn: np.ndarray | None = None,
    tr: Translator = ENGLISH,
) -> go.Figure:
    """The Explorer's plane: ``plane_figure`` with point numbers in the hover, extra traces (the
    picked points), axis titles of uploaded columns, and only the ``drawn`` rows when given; its words
    in ``tr``'s language."""
    if drawn is not None:
        X, resp = np.asarray(X)[drawn], np.asarray(resp)[drawn]
    fig = plane_figure(X, resp, centers, kmeans_centers, field, title=title, tr=tr)
    numbers = np.arange(len(X)) if drawn is None else drawn
    # r rounded as shown (3 decimals) and in float32: half the bytes for every σ the browser keeps
    fig.data[0].update(
        customdata=np.round(np.asarray(resp, dtype=np.float64), 3).astype(np.float32),
        text=[str(i) for i in numbers],
        hovertemplate=tr("point") + " #%{text}<br>" + fig.data[0].hovertemplate,
        selected=dict(marker=dict(opacity=1.0)),
        unselected=dict(marker=dict(opacity=1.0)),
    )
    if picks_traces:
        fig.add_traces(list(picks_traces))
    if axes:
        fig.layout.xaxis.title.text, fig.layout.yaxis.title.text = axes
    return fig


def plane_side_html(
    numbers: dict | None,
    kind: str,
    k: int,
    note: str | None = None,
    centres: str | None = None,
    tr: Translator = ENGLISH,
) -> str:
    """HTML of the Explorer's numbers at one σ (``rbfviz.views.explorer.arrays.plane_numbers``), then the
    notes (already in ``tr``'s language, like the labels)."""
    import math

    from rbfviz.views.common.scrub import metrics_html

    rows = []
    if note:
        rows.append((None, "⚠ " + note, ""))
    if numbers is not None:
        agreement = numbers["agreement"]
        within = tr("within the bound ✓") if numbers["within_bound"] else tr("outside the bound")
        rows += [
            (tr("L_σ  (soft loss)"), tr.number(numbers["loss"], ".5g"), ""),
            (tr("J  (K-Means distortion at these centres)"), tr.number(numbers["distortion"], ".5g"), ""),
            (
                "L_σ − J",
                tr.number(numbers["gap"]),
                tr("Γ-convergence: 0 ≤ L_σ − J ≤ bound, uniformly in the centres."),
            ),
            (
                None,
                tr(
                    "bound for {kind}: {bound:.3g} — {within}",
                    kind=kind,
                    bound=numbers["bound"],
                    within=within,
                ),
                "",
            ),
            (
                tr("argmax r = K-Means label"),
                tr("n/a (NaN rows)") if math.isnan(agreement) else tr.number(100 * agreement, ".1f") + " %",
                "",
            ),
            (
                tr("mean entropy of r"),
                tr("{entropy:.3g} nats", entropy=numbers["mean_entropy"] + 0.0),
                tr("0 = hard assignments; ln k = {uniform:.3g} = uniform.", uniform=math.log(k)),
            ),
            (
                tr("exactly-zero r_ij"),
                tr("{zeros:,} of {entries:,}", zeros=numbers["exact_zeros"], entries=numbers["entries"]),
                "",
            ),
        ]
        if numbers["nan_rows"]:
            rows.append((tr("NaN rows of r"), tr.number(numbers["nan_rows"], ","), ""))
    if centres:
        rows.append((None, centres, ""))
    return metrics_html(rows)
