"""The soft field over the plane: responsibilities on a pixel grid, and the hard Voronoi edges.

Pixel convention (what ``rbfviz.views.common.layout.add_field_image`` expects): an image of H rows and
W columns covers extent = (x_min, x_max, y_min, y_max); row 0 is the TOP (y_max), column 0 the
LEFT (x_min); pixel (i, j) is the cell whose centre is (x_min + (j + ½)·dx, y_max − (i + ½)·dy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .maps import resp_columns, softmax_weight_columns
from .validate import check_int, check_kind, check_points, check_sigma, check_sigma_for_dtype, check_sigmas

QUANTITIES = ("max", "entropy")
# Width / height of every plane the app draws: an equal-aspect plot of this shape fills its column.
PLANE_ASPECT = 1.25
# Pixels per side of a field, unless asked otherwise.
FIELD_SIZE = 200


@dataclass(frozen=True)
class Field:
    """A field on an H×W grid over ``extent``.

    value : (H, W) float64, max_j r_j ("max", in [1/k, 1]) or the Shannon entropy of r in nats
        ("entropy", in [0, ln k]); NaN where the map gives a NaN row (naive map).
    argmax : (H, W) int, the cluster of largest responsibility (-1 where NaN).
    edges : (E·H, E·W) bool at ``edge_factor`` E times the resolution, True on the hard Voronoi
        boundary of the centres (a pixel whose nearest centre differs from a neighbour's).
    """

    extent: tuple
    quantity: str
    k: int
    value: np.ndarray
    argmax: np.ndarray
    edges: np.ndarray
    edge_factor: int


def plane_extent(X, C=None, margin: float = 0.08, aspect: float | None = None) -> tuple:
    """(x_min, x_max, y_min, y_max) around the 2-D points (and finite centres), padded by margin × span.

    aspect: if given, the shorter side is widened symmetrically until width / height == aspect, so
    an equal-aspect plot fills a panel of that shape instead of leaving white bands.
    """
    pts = check_points(X, "X", dtype=np.float64)
    if pts.shape[1] != 2:
        raise ValueError(f"the plane needs 2-D points, got {pts.shape[1]} feature(s).")
    if C is not None:
        C = np.asarray(C, dtype=np.float64)
        pts = np.vstack([pts, C[np.isfinite(C).all(axis=1)]])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = np.maximum(hi - lo, 1e-9 + 1e-6 * np.abs(hi).max())
    lo, hi = lo - margin * span, hi + margin * span
    if aspect is not None:
        if not (np.isfinite(aspect) and aspect > 0):
            raise ValueError(f"aspect must be a positive number, got {aspect!r}.")
        width, height = hi - lo
        if width < aspect * height:
            grow = (aspect * height - width) / 2
            lo[0], hi[0] = lo[0] - grow, hi[0] + grow
        else:
            grow = (width / aspect - height) / 2
            lo[1], hi[1] = lo[1] - grow, hi[1] + grow
    return (float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]))


def _pixel_axes(extent, height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """x of each column (left to right) and y of each row (top to bottom), at pixel centres."""
    x_min, x_max, y_min, y_max = (float(v) for v in extent)
    if not (x_max > x_min and y_max > y_min):
        raise ValueError(f"extent must have x_min < x_max and y_min < y_max, got {extent}.")
    xs = x_min + (np.arange(width) + 0.5) * (x_max - x_min) / width
    ys = y_max - (np.arange(height) + 0.5) * (y_max - y_min) / height
    return xs, ys


def pixel_centers(extent, height: int, width: int) -> np.ndarray:
    """(H·W, 2) float64 coordinates of pixel centres, row-major, row 0 at the top (y_max)."""
    xs, ys = _pixel_axes(extent, height, width)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def grid_sq_distance_columns(
    extent, height: int, width: int, C: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """(k, H·W) squared distances from every centre to every pixel centre, in C's dtype: the maps'
    (k, n) layout, so no transpose is copied before them. out: a C-contiguous (k, H·W) array of C's
    dtype to write them into (and return) instead of a new one.

    The grid is a product of an x and a y axis, so d_jp = (x_p - c_j1)² + (y_p - c_j2)² is one
    broadcast add of a row and a column per centre: the same sum, in the same order, as
    ``rbfviz.maps.sq_distances`` for 2-D points, at a fraction of its cost on 10⁵ pixels. The add is
    torch's (the same IEEE sums): numpy's broadcast runs an inner loop per row of pixels, 3-4 times slower.
    """
    xs, ys = _pixel_axes(extent, height, width)
    xs, ys = xs.astype(C.dtype), ys.astype(C.dtype)
    if out is None:
        out = np.empty((C.shape[0], height * width), dtype=C.dtype)
    sq_x = torch.from_numpy(np.square(xs - C[:, :1]))  # (k, W)
    sq_y = torch.from_numpy(np.square(ys - C[:, 1:]))  # (k, H)
    # out viewed as (k, H, W): it is C-contiguous
    torch.add(sq_x[:, None, :], sq_y[:, :, None], out=torch.from_numpy(out).view(C.shape[0], height, width))
    return out


def grid_sq_distances(extent, height: int, width: int, C: np.ndarray) -> np.ndarray:
    """(H·W, k) squared distances from every pixel centre to every centre, in C's dtype (the
    transpose of ``grid_sq_distance_columns``)."""
    return grid_sq_distance_columns(extent, height, width, C).T


def nearest_center_map(extent, height: int, width: int, C: np.ndarray) -> np.ndarray:
    """(H, W) int64 index of each pixel's nearest centre (ties to the lowest index, as argmin), C (k, 2)
    finite (``nearest_center_maps`` of one set of centres)."""
    return nearest_center_maps(extent, height, width, np.asarray(C)[None])[0].astype(np.int64)


def _outer_sum(row: np.ndarray, column: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """row (..., 1, W) + column (..., H, 1) as an (..., H, W) array, into out (C-contiguous, of their dtype)
    when given: torch's add (the same IEEE sums), as numpy's broadcast runs an inner loop per row of W,
    3-4 times slower for a row of pixels and more for a block's row of 8."""
    if out is None:
        out = np.empty(np.broadcast_shapes(row.shape, column.shape), dtype=np.result_type(row, column))
    torch.add(torch.from_numpy(row), torch.from_numpy(column), out=torch.from_numpy(out))
    return out


def _nearest_by_centre(sq_distances_to, k: int, label_type) -> np.ndarray:
    """Index of the smallest of sq_distances_to(0), ..., sq_distances_to(k - 1) per element (ties to the
    lowest index, as argmin), kept one centre at a time: no (..., k) array is made and no short axis is
    reduced. sq_distances_to(j, out) gives centre j's squared distances (into out when it is not None)."""
    best = sq_distances_to(0, None)
    label = np.zeros(best.shape, dtype=label_type)
    d = np.empty_like(best)
    closer = np.empty(best.shape, dtype=bool)
    for j in range(1, k):
        sq_distances_to(j, d)
        np.less(d, best, out=closer)
        np.copyto(label, j, where=closer)
        np.minimum(best, d, out=best)
    return label


# Side of the pixel blocks ``nearest_center_maps`` decides from their corners.
_BLOCK = 8
# A block's corners must be nearer their centre than any other by this much, relative to the squared
# distances (and the plane's squared scale), before the whole block takes their label: far above the
# rounding of a distance (a few units in the last place), so a block passed whole holds no pixel whose
# computed nearest centre could differ. In float64; in a coarser dtype, this many of its units in the last
# place (_MARGIN_ULPS · eps) when that is more.
_MARGIN = 1e-8
_MARGIN_ULPS = 4096
# A set of centres with more than this share of undecided blocks (centres a rounding error apart, as
# when they have merged at a large σ) is computed pixel by pixel over the whole grid: cheaper than block
# by block.
_DENSE = 0.25
# Rows of pixels such a set of centres is computed in at a time: its few (rows, W) arrays stay in the
# processor's cache instead of streaming (H, W) arrays through memory once per centre.
_DENSE_ROWS = 64


def nearest_center_maps(extent, height: int, width: int, C: np.ndarray) -> np.ndarray:
    """The nearest centre of every pixel of an H×W grid over ``extent`` for m sets of finite centres
    C (m, k, 2) at once: (m, H, W) labels (ties to the lowest index, as argmin) in the smallest unsigned
    integer type that holds k - 1.

    A pixel's squared distance to centre j is (x - c_j1)² + (y - c_j2)², computed in C's dtype. Every
    8×8 block of pixels is tested on a rectangle of pixels that holds it: its top-left pixel and those of
    the blocks right of, below and diagonally below it (the grid's last row and column of pixels for
    the last blocks), corners the neighbouring blocks share. A block whose four corners have the same
    nearest centre, each by a clear margin, takes that label whole: d_l - d_j is affine in the pixel's
    position, so over the rectangle it is smallest at a corner, and the margin there holds on the
    whole rectangle (a Voronoi cell is convex). Only the other blocks (those a boundary crosses or
    touches, a few percent) are computed pixel by pixel; a set of centres with many such blocks (centres
    a rounding error apart) is computed pixel by pixel a band of rows at a time.
    """
    C = np.asarray(C)
    m, k, _ = C.shape
    label_type = np.min_scalar_type(max(k - 1, 0))
    xs, ys = _pixel_axes(extent, height, width)
    xs, ys = xs.astype(C.dtype), ys.astype(C.dtype)
    sq_x = np.square(xs - C[:, :, :1])  # (m, k, W)
    sq_y = np.square(ys - C[:, :, 1:])  # (m, k, H)
    row_blocks, col_blocks = -(-height // _BLOCK), -(-width // _BLOCK)
    # pixel rows and columns of each block (the last block of a side may be short: its indices repeat)
    rows = np.minimum(np.arange(row_blocks)[:, None] * _BLOCK + np.arange(_BLOCK), height - 1)
    cols = np.minimum(np.arange(col_blocks)[:, None] * _BLOCK + np.arange(_BLOCK), width - 1)
    # The corners: a lattice of pixels every 8 rows and columns, each block's top-left one and those of the
    # blocks right of and below it (the last row and column of pixels closing the last blocks), so
    # neighbouring blocks share them: block (p, q) is tested on lattice points (p, q) to (p + 1, q + 1),
    # a rectangle that holds it.
    lattice_rows = np.minimum(np.arange(row_blocks + 1) * _BLOCK, height - 1)
    lattice_cols = np.minimum(np.arange(col_blocks + 1) * _BLOCK, width - 1)
    corner_x = sq_x[:, :, lattice_cols]  # (m, k, column blocks + 1)
    corner_y = sq_y[:, :, lattice_rows]  # (m, k, row blocks + 1)

    def corner_sq_distances(j, out=None):  # (m, row blocks + 1, column blocks + 1)
        return np.add(corner_x[:, j, None, :], corner_y[:, j, :, None], out=out)

    # the nearest centre and the two smallest squared distances at every corner, one centre at a time
    best = corner_sq_distances(0)
    second = np.full_like(best, np.inf)
    nearest = np.zeros(best.shape, dtype=label_type)
    d = np.empty_like(best)
    for j in range(1, k):
        corner_sq_distances(j, out=d)
        np.copyto(nearest, j, where=d < best)
        np.minimum(second, np.maximum(best, d), out=second)
        np.minimum(best, d, out=best)
    scale = max(float(np.abs(np.asarray(extent, dtype=np.float64)).max()), float(np.abs(C).max())) ** 2
    margin = max(_MARGIN, _MARGIN_ULPS * float(np.finfo(C.dtype).eps))
    clear = (second - best) > margin * (second + scale)  # always, for one centre (second = inf)
    first = nearest[:, :-1, :-1]  # (m, row blocks, column blocks): each block's top-left pixel's label
    whole = clear[:, :-1, :-1].copy()
    for down, right in ((0, 1), (1, 0), (1, 1)):  # the rectangle's other three corners: clear, the same label
        corner = (slice(None), slice(down, down + row_blocks), slice(right, right + col_blocks))
        whole &= clear[corner]
        whole &= nearest[corner] == first
    labels = np.empty((m, row_blocks, _BLOCK, col_blocks * _BLOCK), dtype=label_type)
    if label_type == np.uint8:
        # a block's row of 8 one-byte labels is one 8-byte word with that byte 8 times: a broadcast with
        # an inner loop of 8 bytes would cost several times more
        words = first[:, :, None, :].astype(np.uint64) * np.uint64(0x0101010101010101)
        labels.view(np.uint64)[...] = words
    else:
        labels.reshape(m, row_blocks, _BLOCK, col_blocks, _BLOCK)[...] = first[:, :, None, :, None]
    labels = labels.reshape(m, row_blocks * _BLOCK, col_blocks * _BLOCK)
    dense = (~whole).mean(axis=(1, 2)) > _DENSE
    for i in np.flatnonzero(dense):  # one level at a time, a band of rows at a time: its arrays stay in cache
        for top in range(0, height, _DENSE_ROWS):
            band = slice(top, min(top + _DENSE_ROWS, height))
            labels[i, band, :width] = _nearest_by_centre(
                lambda j, out, i=i, band=band: _outer_sum(sq_x[i, j, None, :], sq_y[i, j, band, None], out),
                k,
                label_type,
            )
    whole[dense] = True
    level, block_row, block_col = np.nonzero(~whole)
    if level.size:
        r, c = rows[block_row], cols[block_col]  # (b, 8) each
        lev = level[:, None]
        at = (level[:, None, None] * labels.shape[1] + r[:, :, None]) * labels.shape[2] + c[:, None, :]
        labels.reshape(-1)[at] = _nearest_by_centre(
            lambda j, out: _outer_sum(sq_x[lev, j, c][:, None, :], sq_y[lev, j, r][:, :, None], out),
            k,
            label_type,
        )
    return labels[:, :height, :width]


def boundary_mask(labels: np.ndarray) -> np.ndarray:
    """True where a pixel's label differs from its right or lower neighbour (a one-pixel line).
    labels (H, W), or (m, H, W) for m images at once."""
    edge = np.zeros(labels.shape, dtype=bool)
    edge[..., :, :-1] |= labels[..., :, :-1] != labels[..., :, 1:]
    edge[..., :-1, :] |= labels[..., :-1, :] != labels[..., 1:, :]
    return edge


def _max_and_argmax_rows(a: np.ndarray, largest: np.ndarray, index: np.ndarray) -> None:
    """The max and the argmax of each row of a (n, k) array without NaN, ties to the lowest index (as
    argmax), into ``largest`` (n,) and ``index`` (n,) int64, one column at a time: a reduction along the
    short k axis costs tens of ns per row."""
    np.copyto(largest, a[:, 0])
    index.fill(0)
    larger = np.empty(a.shape[0], dtype=bool)
    for j in range(1, a.shape[1]):
        np.greater(a[:, j], largest, out=larger)
        np.copyto(index, j, where=larger)  # a boolean-mask assignment costs several times more
        np.maximum(largest, a[:, j], out=largest)


def soft_field(
    extent,
    C,
    sigma: float,
    kind: str = "softmax",
    quantity: str = "max",
    size: int = FIELD_SIZE,
    edge_factor: int = 2,
    dtype=np.float64,
) -> Field:
    """Responsibilities of every pixel of a size×size grid over extent for centres C (k, 2) at σ.

    Computed in ``dtype`` (float32 or float64), the same map the points use, so where a dtype
    breaks the "naive" map the field shows it too. Voronoi edges come from the hard argmin at
    ``edge_factor``·size pixels per side. Returns a ``Field``.
    """
    return soft_fields(extent, np.asarray(C)[None], [sigma], kind, quantity, size, edge_factor, dtype)[0]


def soft_fields(
    extent,
    C,
    sigmas,
    kind: str = "softmax",
    quantity: str = "max",
    size: int = FIELD_SIZE,
    edge_factor: int = 2,
    dtype=np.float64,
) -> list[Field]:
    """``soft_field`` at m σ levels at once: centres C (m, k, 2) (level i's at sigmas[i]), sigmas (m,).

    Level i's Field is ``soft_field(extent, C[i], sigmas[i], ...)``, bit for bit; its arrays are views
    of (m, ...) arrays shared by the levels. Each level's pixels go through the map alone (O(k·size²)
    temporaries); the Voronoi labels and edges of all levels are found together. The results take
    about 20 bytes per pixel and level (0.8 MB per level at the default size): pass a few levels at a
    time when there are many.
    """
    size = check_int(size, "size", 2, 2000)
    edge_factor = check_int(edge_factor, "edge_factor", 1, 8)
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity={quantity!r} is unknown; allowed: {', '.join(QUANTITIES)}.")
    kind = check_kind(kind)
    sigmas = check_sigmas(sigmas)
    dtype = np.dtype(dtype)
    for sigma in sigmas:
        check_sigma(float(sigma))
        check_sigma_for_dtype(float(sigma), dtype)
    C = np.asarray(C)
    if C.ndim != 3 or C.shape[0] != sigmas.size:
        raise ValueError(f"C must have shape (m, k, 2) with m = {sigmas.size} levels, got {C.shape}.")
    if C.shape[2] != 2:
        raise ValueError(f"the plane needs 2-D centres, got {C.shape[2]} feature(s).")
    C = check_points(C.reshape(-1, 2), "C", dtype=dtype).reshape(C.shape)
    return _soft_fields(extent, C, sigmas, kind, quantity, size, edge_factor)


def _pixel_summary(resp: np.ndarray, quantity: str, value: np.ndarray, argmax: np.ndarray) -> None:
    """``Field``'s value and argmax from one level's responsibilities as (H·W, k) rows, F-ordered (the
    transpose of the maps' (k, n) layout: a reduction over a row adds the numbers in the same order for
    every level), written into the (H·W,) arrays ``value`` and ``argmax``."""
    bad = ~np.isfinite(resp).all(axis=1)
    any_bad = bool(bad.any())
    safe = np.where(bad[:, None], 0.0, resp) if any_bad else resp
    _max_and_argmax_rows(safe, value, argmax)
    if quantity == "entropy":
        value[...] = -np.sum(np.where(safe > 0, safe * np.log(np.where(safe > 0, safe, 1.0)), 0.0), axis=1)
    if any_bad:  # skipped where no row is NaN, the usual case
        value[bad] = np.nan
        argmax[bad] = -1


def _softmax_max_summary(D: np.ndarray, sigma: float, value: np.ndarray, argmax: np.ndarray) -> None:
    """``_pixel_summary`` of the softmax's responsibilities for "max", the same bits, from one level's
    (k, H·W) squared distances D (overwritten) without the responsibilities themselves: the largest r of a
    pixel is 1 / Σ_j w_j, at the first centre whose weight w_j is exactly 1
    (``rbfviz.maps.softmax_weight_columns``), so the map's last pass and the summary's passes over the k
    responsibilities are not needed. The weights of logits below -700 (< 1e-304) are the floor's, not
    their own (``far_at_floor``): no weight is 1 there, and the sum is the same bits bar a rounding tie (one
    unit in its last place). A pixel whose weights hold a NaN has a NaN sum: value NaN, argmax -1."""
    weights, inv = softmax_weight_columns(D, sigma, overwrite=True, far_at_floor=True)
    np.copyto(value, inv)
    argmax.fill(D.shape[0] - 1)
    top = np.empty(D.shape[1], dtype=bool)
    for j in range(D.shape[0] - 2, -1, -1):  # downwards: the lowest centre of weight 1 is written last
        np.equal(weights[j], 1.0, out=top)
        np.copyto(argmax, j, where=top)
    bad = np.isnan(inv)
    if bad.any():
        argmax[bad] = -1


def _soft_fields(extent, C, sigmas, kind: str, quantity: str, size: int, edge_factor: int) -> list[Field]:
    """``soft_fields`` on checked arguments (C (m, k, 2) in the working dtype, sigmas (m,) valid in it)."""
    m, k, _ = C.shape
    pixels = size * size
    value = np.empty((m, pixels))
    argmax = np.empty((m, pixels), dtype=np.int64)
    # r level by level: a level's (k, H·W) arrays (1.3 MB at k = 4) are the largest temporaries, as large
    # as a single field's; arrays of several levels at once would be freed into the server's heap and
    # raise its memory for good after a class
    with torch.no_grad():
        distances = np.empty((k, pixels), dtype=C.dtype)  # every level's, in turn
        for i in range(m):
            grid_sq_distance_columns(extent, size, size, C[i], out=distances)
            if kind == "softmax" and quantity == "max":
                _softmax_max_summary(distances, float(sigmas[i]), value[i], argmax[i])
                continue
            resp = resp_columns(distances, float(sigmas[i]), kind, overwrite=True)
            _pixel_summary(resp.astype(np.float64, copy=False).T, quantity, value[i], argmax[i])
    fine = edge_factor * size
    C64 = C.astype(np.float64)
    finite = np.isfinite(C64).all(axis=(1, 2))
    edges = np.zeros((m, fine, fine), dtype=bool)  # NaN centres (a broken naive run) have no Voronoi diagram
    if finite.any():
        edges[finite] = boundary_mask(nearest_center_maps(extent, fine, fine, C64[finite]))
    shape = (m, size, size)
    value, argmax = value.reshape(shape), argmax.reshape(shape)
    extent = tuple(float(v) for v in extent)
    return [
        Field(
            extent=extent,
            quantity=quantity,
            k=k,
            value=value[i],
            argmax=argmax[i],
            edges=edges[i],
            edge_factor=edge_factor,
        )
        for i in range(m)
    ]
