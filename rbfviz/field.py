"""The soft field over the plane: responsibilities on a pixel grid, and the hard Voronoi edges.

Pixel convention (what ``rbfviz.views.figures.layout.add_field_image`` expects): an image of H rows and
W columns covers extent = (x_min, x_max, y_min, y_max); row 0 is the TOP (y_max), column 0 the
LEFT (x_min); pixel (i, j) is the cell whose centre is (x_min + (j + ½)·dx, y_max − (i + ½)·dy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ._validate import check_int, check_kind, check_points, check_sigma, check_sigma_for_dtype
from .maps import resp_from_sq_distances

QUANTITIES = ("max", "entropy")
# Width / height of every plane the app draws: an equal-aspect plot of this shape fills its column.
PLANE_ASPECT = 1.25


@dataclass(frozen=True)
class Field:
    """A field on an H×W grid over ``extent``.

    value : (H, W) float64, max_j r_j ("max", in [1/k, 1]) or the Shannon entropy of r in nats
        ("entropy", in [0, ln k]); NaN where the map gives a NaN row (naive map).
    argmax : (H, W) int, the cluster of largest responsibility (-1 where NaN).
    exact_zero : (H, W) bool, some r_j is exactly 0.0 in this pixel.
    edges : (E·H, E·W) bool at ``edge_factor`` E times the resolution, True on the hard Voronoi
        boundary of the centres (a pixel whose nearest centre differs from a neighbour's).
    """

    extent: tuple
    quantity: str
    k: int
    value: np.ndarray
    argmax: np.ndarray
    exact_zero: np.ndarray
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


def grid_sq_distance_columns(extent, height: int, width: int, C: np.ndarray) -> np.ndarray:
    """(k, H·W) squared distances from every centre to every pixel centre, in C's dtype: the maps'
    (k, n) layout, so no transpose is copied before them.

    The grid is a product of an x and a y axis, so d_jp = (x_p - c_j1)² + (y_p - c_j2)² is one
    broadcast add of a row and a column per centre: the same sum, in the same order, as
    ``rbfviz.maps.sq_distances`` for 2-D points, at a fraction of its cost on 10⁵ pixels.
    """
    xs, ys = _pixel_axes(extent, height, width)
    xs, ys = xs.astype(C.dtype), ys.astype(C.dtype)
    d = np.empty((C.shape[0], height, width), dtype=C.dtype)
    for j, (cx, cy) in enumerate(C):
        np.add(np.square(xs - cx)[None, :], np.square(ys - cy)[:, None], out=d[j])
    return d.reshape(C.shape[0], height * width)


def grid_sq_distances(extent, height: int, width: int, C: np.ndarray) -> np.ndarray:
    """(H·W, k) squared distances from every pixel centre to every centre, in C's dtype (the
    transpose of ``grid_sq_distance_columns``)."""
    return grid_sq_distance_columns(extent, height, width, C).T


def nearest_center_map(extent, height: int, width: int, C: np.ndarray) -> np.ndarray:
    """(H, W) int64 index of each pixel's nearest centre (ties to the lowest index, as argmin), C (k, 2)
    finite. Kept one centre at a time, so no (H·W, k) array is made and no short axis is reduced."""
    xs, ys = _pixel_axes(extent, height, width)
    xs, ys = xs.astype(C.dtype), ys.astype(C.dtype)
    best = np.add(np.square(xs - C[0, 0])[None, :], np.square(ys - C[0, 1])[:, None])
    label = np.zeros((height, width), dtype=np.int64)
    d = np.empty_like(best)
    closer = np.empty(best.shape, dtype=bool)
    for j in range(1, C.shape[0]):
        np.add(np.square(xs - C[j, 0])[None, :], np.square(ys - C[j, 1])[:, None], out=d)
        np.less(d, best, out=closer)
        np.copyto(label, j, where=closer)
        np.minimum(best, d, out=best)
    return label


def boundary_mask(labels: np.ndarray) -> np.ndarray:
    """True where a pixel's label differs from its right or lower neighbour (a one-pixel line)."""
    edge = np.zeros(labels.shape, dtype=bool)
    edge[:, :-1] |= labels[:, :-1] != labels[:, 1:]
    edge[:-1, :] |= labels[:-1, :] != labels[1:, :]
    return edge


def _max_and_argmax_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(max, argmax) of each row of a (n, k) array without NaN, ties to the lowest index (as argmax),
    one column at a time: a reduction along the short k axis costs tens of ns per row."""
    largest = a[:, 0].copy()
    index = np.zeros(a.shape[0], dtype=np.int64)
    for j in range(1, a.shape[1]):
        larger = a[:, j] > largest
        index[larger] = j
        np.maximum(largest, a[:, j], out=largest)
    return largest, index


def soft_field(
    extent,
    C,
    sigma: float,
    kind: str = "softmax",
    quantity: str = "max",
    size: int = 200,
    edge_factor: int = 2,
    dtype=np.float64,
) -> Field:
    """Responsibilities of every pixel of a size×size grid over extent for centres C (k, 2) at σ.

    Computed in ``dtype`` (float32 or float64), the same map the points use, so where a dtype
    breaks the "naive" map the field shows it too. Voronoi edges come from the hard argmin at
    ``edge_factor``·size pixels per side. Returns a ``Field``.
    """
    size = check_int(size, "size", 2, 2000)
    edge_factor = check_int(edge_factor, "edge_factor", 1, 8)
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity={quantity!r} is unknown; allowed: {', '.join(QUANTITIES)}.")
    kind = check_kind(kind)
    sigma = check_sigma(sigma)
    dtype = np.dtype(dtype)
    check_sigma_for_dtype(sigma, dtype)
    C = check_points(C, "C", dtype=dtype)
    if C.shape[1] != 2:
        raise ValueError(f"the plane needs 2-D centres, got {C.shape[1]} feature(s).")
    with torch.no_grad():
        d = torch.from_numpy(grid_sq_distance_columns(extent, size, size, C)).T
        resp = resp_from_sq_distances(d, sigma, kind).numpy().astype(np.float64)
    bad = ~np.isfinite(resp).all(axis=1)
    safe = np.where(bad[:, None], 0.0, resp)
    largest, first_largest = _max_and_argmax_rows(safe)
    if quantity == "max":
        value = largest
    else:
        value = -np.sum(np.where(safe > 0, safe * np.log(np.where(safe > 0, safe, 1.0)), 0.0), axis=1)
    value[bad] = np.nan
    argmax = np.where(bad, -1, first_largest)
    exact_zero = (safe == 0.0).any(axis=1) & ~bad
    fine = edge_factor * size
    C64 = C.astype(np.float64)
    if np.isfinite(C64).all():
        edges = boundary_mask(nearest_center_map(extent, fine, fine, C64))
    else:  # NaN centres (a broken naive run) have no Voronoi diagram
        edges = np.zeros((fine, fine), dtype=bool)
    shape = (size, size)
    return Field(
        extent=tuple(float(v) for v in extent),
        quantity=quantity,
        k=C.shape[0],
        value=value.reshape(shape),
        argmax=argmax.reshape(shape),
        exact_zero=exact_zero.reshape(shape),
        edges=edges,
        edge_factor=edge_factor,
    )
