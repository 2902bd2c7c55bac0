"""What the Stability view shows: each map's numerical health across σ, in float32 and float64, at
fixed centres, next to the closed forms that predict it (no Streamlit, no Plotly).

The centres are the K-Means centroids C* of the data, so "error to K-Means" has a clean meaning:
one soft-centroid step from C* lands exactly on C* iff the map is exactly hard on the data.

* ``underflow_logit(dtype)``      – Z: exp(z) rounds to 0.0 for z < −Z (float64 1075·ln 2 ≈ 745.1,
                                    float32 150·ln 2 ≈ 104.0 with subnormals; ≈ 87.3 where the
                                    hardware flushes subnormals to zero).
* ``stability_table(X, C, sigmas)`` – per (kind, dtype, σ): measures.stability_report's NaN-row
                                    fraction, zero fraction and ||∇_C L_σ||, plus the fraction of
                                    exactly one-hot rows and the one-step error ||x̄(C*) − C*||_F.
* ``predicted_fractions(X, C, sigmas, dtype)`` – the closed forms: naive rows NaN iff
                                    min_j d_ij/(2σ²) > Z; entmax15 one-hot iff g_i ≥ 4σ²; softmax
                                    one-hot iff g_i/(2σ²) > Z (its off-weights underflow).
* ``naive_nan_sigmas(X, C, dtype)`` – σ below which the first / every naive row is NaN.
* ``stability_plane(X, C, sigma, dtype)`` – the plane at σ: where naive is NaN and where entmax15 is
                                    exactly one-hot, for pixels and for the points;
                                    ``stability_planes`` at every σ of a grid.
* ``naive_nan_rows(d, sigma)``, ``entmax_hard_rows(d, sigma)`` – those two answers per row of squared
                                    distances, the map run only on rows near either boundary.

Convention: z_ij = −d_ij/(2σ²) with d_ij = ||x_i − c_j||²; g_i = d_i(2) − d_i(1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rbfviz import measures
from rbfviz.field import grid_sq_distances, plane_extent
from rbfviz.maps import resp_from_sq_distances, sq_distances, temperature
from rbfviz.measures import one_hot_rows
from rbfviz.steps import centroids_from_sums, points_with_ones, weighted_sums
from rbfviz.validate import (
    COMPARED_KINDS,
    DTYPES,
    check_centers,
    check_int,
    check_kind,
    check_points,
    check_sigma,
    check_sigma_for_dtype,
    check_sigmas,
)


def stability_table(X, C, sigmas, kinds=COMPARED_KINDS, dtypes=DTYPES) -> list[dict]:
    """One dict per (kind, dtype, σ), in that nesting order (as ``measures.stability_report``).

    C (k, d) should be K-Means centroids of X. In each dtype the reference C* is that partition's
    means computed in the dtype by rbfviz's own centroid code (``measures.kmeans_reference``, as
    in the collapse study), so an exactly hard map reproduces C* bit for bit instead of differing by
    a summation-order rounding.

    Keys: kind, dtype, sigma; from ``measures.stability_report`` at C*: nan_row_fraction,
    zero_fraction, grad_norm ||∇_C L_σ||_F with r detached, loss, loss_finite; added here:
    hard_row_fraction (rows exactly one-hot) and error_to_kmeans ||x̄(C*) − C*||_F, the move of one
    soft-centroid (EM) step from C* (NaN when the naive map breaks; 0 iff the step reproduces C*).
    """
    X = check_points(X, "X", dtype=np.float64)
    C = check_centers(C, X, "C")
    sigmas = check_sigmas(sigmas)
    kinds = [check_kind(kind) for kind in kinds]
    dtypes = [np.dtype(dtype).name for dtype in dtypes]
    for dtype in dtypes:
        for sigma in sigmas:
            check_sigma_for_dtype(float(sigma), dtype)
    found = {}
    for dtype in dtypes:
        Xd = X.astype(dtype)
        C_star, _ = measures.kmeans_reference(Xd, C)
        points = points_with_ones(Xd)
        for kind in kinds:
            # the report's map at each σ serves the two columns added here too: the step is
            # ``soft_centroid_step``'s own two calls on it (its (k, n) layout: the transpose of r)
            for row, resp in measures._stability_rows(Xd, C_star, sigmas, kind, dtype):
                moved = centroids_from_sums(C_star, weighted_sums(points, resp.T))
                row["hard_row_fraction"] = float(one_hot_rows(resp).mean())
                row["error_to_kmeans"] = float(
                    np.linalg.norm(moved.astype(np.float64) - C_star.astype(np.float64))
                )
                found[(kind, dtype, row["sigma"])] = row
    return [found[(kind, dtype, float(sigma))] for kind in kinds for dtype in dtypes for sigma in sigmas]


@dataclass(frozen=True)
class StabilityPlane:
    """The plane at one σ and dtype, for centres C (k, 2).

    extent (x_min, x_max, y_min, y_max); pixel arrays (H, W), row 0 at the top (y_max):
    label (nearest centre), naive_nan (the naive row is NaN), entmax_hard (the entmax15 row is
    exactly one-hot). Point arrays (n,): point_label, point_naive_nan, point_entmax_hard.
    """

    extent: tuple
    sigma: float
    dtype: str
    label: np.ndarray
    naive_nan: np.ndarray
    entmax_hard: np.ndarray
    point_label: np.ndarray
    point_naive_nan: np.ndarray
    point_entmax_hard: np.ndarray


def stability_plane(X, C, sigma: float, dtype="float64", size: int = 160) -> StabilityPlane:
    """Where the naive map is NaN and where entmax15 is exactly one-hot, at σ, in ``dtype``.

    Pixels: a size×size grid over the points' extent (``rbfviz.field`` pixel convention); points: X
    itself. Both computed with the same maps the rest of the app uses.
    """
    return stability_planes(X, C, [sigma], dtype, size)[0]


def stability_planes(X, C, sigmas, dtype="float64", size: int = 160) -> list[StabilityPlane]:
    """``stability_plane`` at every σ of ``sigmas`` (m,), each the same arrays as alone. The squared
    distances of the pixels and points to C and their two nearest centres do not depend on σ: they are
    formed once, and each σ only settles its rows (``naive_nan_rows``, ``entmax_hard_rows``)."""
    X = check_points(X, "X", dtype=np.float64)
    C = check_centers(C, X, "C")
    if X.shape[1] != 2:
        raise ValueError(f"the plane needs 2-D points, got {X.shape[1]} feature(s).")
    sigmas = [check_sigma(sigma) for sigma in np.atleast_1d(np.asarray(sigmas, dtype=np.float64))]
    dtype = np.dtype(dtype).name
    for sigma in sigmas:
        check_sigma_for_dtype(sigma, dtype)
    size = check_int(size, "size", 2, 1000)
    extent = plane_extent(X, C)
    Cd = C.astype(dtype)
    d_pix = grid_sq_distances(extent, size, size, Cd)
    with torch.no_grad():
        d_pts = sq_distances(torch.from_numpy(X.astype(dtype)), torch.from_numpy(Cd)).numpy()
    pix, pts = _nearest_two(d_pix), _nearest_two(d_pts)
    shape = (size, size)
    label = pix[0].reshape(shape)
    label.setflags(write=False)  # shared by every σ's plane
    return [
        StabilityPlane(
            extent=extent,
            sigma=sigma,
            dtype=dtype,
            label=label,
            naive_nan=naive_nan_rows(d_pix, sigma, pix).reshape(shape),
            entmax_hard=entmax_hard_rows(d_pix, sigma, pix).reshape(shape),
            point_label=pts[0],
            point_naive_nan=naive_nan_rows(d_pts, sigma, pts),
            point_entmax_hard=entmax_hard_rows(d_pts, sigma, pts),
        )
        for sigma in sigmas
    ]


# Rows whose answer is settled without running the map, with a wide margin; the rows between run the map
# itself (tests/unit/test_stability_rows.py compares every row with the map's answer).
#
# The naive map's row is NaN iff every exp(-d_ij/T) is exactly 0 (its sum is then 0, and 0/0), i.e. iff
# exp underflows at the row's largest logit u = -min_j d_ij/T (rounding is monotone, so the largest of
# the rounded logits is the rounded largest). exp(u) is a normal number, never 0, for u above the first
# bound (float64 e^-700 ≈ 1e-304, float32 e^-80 ≈ 2e-35); it is far below the smallest subnormal, so 0
# in any implementation, below the second (e^-800 ≈ 4e-348, e^-120 ≈ 8e-53).
_EXP_SURELY_POSITIVE_ABOVE = {"float64": -700.0, "float32": -80.0}
_EXP_SURELY_ZERO_BELOW = {"float64": -800.0, "float32": -120.0}
# 1.5-entmax on half-logits h = -(d - d_min)/(2T) (the largest is 0): the row is one-hot iff the second
# largest h(2) is at most -1 (then the threshold is τ = -1 and every other [h - τ]₊ is 0). Beyond
# ENTMAX_MARGIN either side of -1 rounding cannot change that: below, the support test
# Σ_{l≤ρ}(h_(l) - h_(ρ))² > 1 holds by 2·margin for every ρ ≥ 2; above, the second weight is at least
# (margin / 2k)², ~1e-6 at k = 32, where float32's rounding is ~1e-7 relative. More centres: the map.
ENTMAX_MARGIN = 0.05
_ENTMAX_SHORTCUT_MAX_K = 32


def _nearest_two(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nearest, smallest, second smallest) per row of d (n, k): the index of the smallest entry (ties to
    the lowest, as argmin), it, and the next (+inf if k = 1); one centre at a time over the (k, n)
    columns, without a reduction along the short axis."""
    columns = d.T
    best = columns[0].copy()
    second = np.full_like(best, np.inf)
    nearest = np.zeros(best.shape, dtype=np.int64)
    for j, row in enumerate(columns[1:], 1):
        np.copyto(nearest, j, where=row < best)
        np.minimum(second, np.maximum(best, row), out=second)
        np.minimum(best, row, out=best)
    return nearest, best, second


def _settle_rows(d: np.ndarray, sure_yes: np.ndarray, sure_no: np.ndarray, sigma: float, kind: str, test):
    """sure_yes, with the rows neither sure_yes nor sure_no answered by ``test`` of the map's own rows."""
    answer = sure_yes.copy()
    unsure = ~(sure_yes | sure_no)
    if unsure.any():
        with torch.no_grad():
            resp = resp_from_sq_distances(torch.from_numpy(np.ascontiguousarray(d[unsure])), sigma, kind)
        answer[unsure] = test(resp.numpy())
    return answer


def naive_nan_rows(d: np.ndarray, sigma: float, nearest=None) -> np.ndarray:
    """(n,) bool: the naive map's row of squared distances d (n, k) (float32 or float64) at σ is NaN, as
    ``np.isnan(resp_from_sq_distances(d, σ, "naive")).any(axis=1)``, without the map where the row's
    largest logit settles it. nearest: ``_nearest_two(d)``, if the caller has it."""
    dtype = d.dtype.name
    _, best, _ = _nearest_two(d) if nearest is None else nearest
    largest = best.astype(np.float64) / -temperature(sigma)
    return _settle_rows(
        d,
        largest < _EXP_SURELY_ZERO_BELOW[dtype],
        largest > _EXP_SURELY_POSITIVE_ABOVE[dtype],
        sigma,
        "naive",
        lambda resp: np.isnan(resp).any(axis=1),
    )


def entmax_hard_rows(d: np.ndarray, sigma: float, nearest=None) -> np.ndarray:
    """(n,) bool: 1.5-entmax's row of squared distances d (n, k) at σ is exactly one-hot, as
    ``measures.one_hot_rows(resp_from_sq_distances(d, σ, "entmax15"))``, without the map where the gap
    between the two nearest centres settles it (d finite; nearest as in ``naive_nan_rows``)."""
    if d.shape[1] > _ENTMAX_SHORTCUT_MAX_K:
        nothing = np.zeros(d.shape[0], dtype=bool)
        return _settle_rows(d, nothing, nothing, sigma, "entmax15", one_hot_rows)
    _, best, second = _nearest_two(d) if nearest is None else nearest
    h2 = (second.astype(np.float64) - best) * (-0.5 / temperature(sigma))
    return _settle_rows(
        d, h2 < -1.0 - ENTMAX_MARGIN, h2 > -1.0 + ENTMAX_MARGIN, sigma, "entmax15", one_hot_rows
    )
