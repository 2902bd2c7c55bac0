"""The Stability view's shortcuts give the numbers of the computation they replace.

The plane's rows settled without the map (rbfviz.views.stability.arrays.naive_nan_rows,
entmax_hard_rows) give the map's own answer: on every data set, in float32 and float64, at every σ of
the view's grid and k of 2, 5 and 8, for the points and for the pixels of the plane, against the naive
and 1.5-entmax maps run on every row. The planes of a whole grid, their σ-free distances formed once, are
each σ's plane alone. The table's map, computed once per row for its one-hot fraction
and its EM step, gives what the two computed apart gave, bit for bit.
"""

import numpy as np
import pytest
import torch

from rbfviz.datasets import DATASETS, make_dataset
from rbfviz.field import grid_sq_distances, plane_extent
from rbfviz.maps import resp_from_sq_distances, sq_distances
from rbfviz.measures import kmeans_reference, one_hot_rows
from rbfviz.steps import kmeans, soft_centroid_step
from rbfviz.views.explorer.arrays import sigma_scale
from rbfviz.views.stability.arrays import (
    ENTMAX_MARGIN,
    _nearest_two,
    entmax_hard_rows,
    naive_nan_rows,
    stability_plane,
    stability_planes,
    stability_table,
)


def whole_map(d: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """(naive NaN rows, entmax15 one-hot rows) with each map run on every row of d (n, k)."""
    with torch.no_grad():
        t = torch.from_numpy(d)
        naive = resp_from_sq_distances(t, sigma, "naive").numpy()
        entmax = resp_from_sq_distances(t, sigma, "entmax15").numpy()
    return np.isnan(naive).any(axis=1), one_hot_rows(entmax)


def distances(X, C, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """(the points', the plane's pixels') squared distances (n, k) in dtype, as stability_plane forms them."""
    Cd = C.astype(dtype)
    with torch.no_grad():
        points = sq_distances(torch.from_numpy(X.astype(dtype)), torch.from_numpy(Cd)).numpy()
    return points, grid_sq_distances(plane_extent(X, C), 64, 64, Cd)


@pytest.mark.parametrize("name", DATASETS)
def test_settled_rows_are_the_maps_answer_on_every_data_set_dtype_sigma_and_k(name):
    X, _ = make_dataset(name, 150, seed=1)
    X = np.asarray(X, dtype=np.float64)
    through_the_map = 0
    for k in (2, 5, 8):
        C, _ = kmeans(X, k=k, seed=0)
        grid = sigma_scale(X, C).grid
        for dtype in ("float32", "float64"):
            for d in distances(X, C, dtype):
                for sigma in grid:
                    sigma = float(sigma)
                    if dtype == "float32" and sigma < 1e-19:
                        continue  # T = 2σ² underflows in float32: the view checks σ for its dtype
                    naive, entmax = whole_map(d, sigma)
                    np.testing.assert_array_equal(
                        naive_nan_rows(d, sigma), naive, err_msg=f"{k} {dtype} {sigma}"
                    )
                    np.testing.assert_array_equal(
                        entmax_hard_rows(d, sigma), entmax, err_msg=f"{k} {dtype} {sigma}"
                    )
                    best = np.sort(d, axis=1)
                    h2 = (best[:, 1].astype(np.float64) - best[:, 0]) * (-0.5 / (2 * sigma**2))
                    through_the_map += int((np.abs(h2 + 1) <= ENTMAX_MARGIN).sum())
    assert through_the_map > 0  # the rows near the boundary, answered by the map itself, were exercised


def test_rows_near_each_boundary_go_through_the_map_and_keep_its_answer():
    # one point, two centres: h(2) = -(d2 - d1)/(4σ²) swept across -1, the naive logit across underflow
    sigma = 0.5
    gaps = 4 * sigma**2 * np.linspace(0.9, 1.1, 2001)  # h(2) from -0.9 to -1.1
    for dtype in ("float32", "float64"):
        d = np.stack([np.zeros_like(gaps), gaps], axis=1).astype(dtype)
        np.testing.assert_array_equal(entmax_hard_rows(d, sigma), whole_map(d, sigma)[1])
        assert entmax_hard_rows(d, sigma).any() and not entmax_hard_rows(d, sigma).all()
        z = -np.linspace(40.0, 1000.0, 4001) if dtype == "float64" else -np.linspace(10.0, 150.0, 4001)
        d = np.stack([-z * 2 * sigma**2, -z * 2 * sigma**2 + 1.0], axis=1).astype(dtype)
        np.testing.assert_array_equal(naive_nan_rows(d, sigma), whole_map(d, sigma)[0])
        assert naive_nan_rows(d, sigma).any() and not naive_nan_rows(d, sigma).all()


def test_more_centres_than_the_shortcut_takes_run_the_map_on_every_row():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    C = rng.normal(size=(40, 2))
    d, _ = distances(X, C, "float64")
    for sigma in (0.01, 0.1, 1.0):
        np.testing.assert_array_equal(entmax_hard_rows(d, sigma), whole_map(d, sigma)[1])


def test_stability_plane_reads_its_rows_from_the_settled_rows_and_labels_as_argmin():
    X, _ = make_dataset("blobs", 200, seed=0)
    X = np.asarray(X, dtype=np.float64)
    C, _ = kmeans(X, k=3, seed=0)
    plane = stability_plane(X, C, 0.05, "float32", size=40)
    points, _ = distances(X, C, "float32")
    naive, entmax = whole_map(points, 0.05)
    np.testing.assert_array_equal(plane.point_naive_nan, naive)
    np.testing.assert_array_equal(plane.point_entmax_hard, entmax)
    np.testing.assert_array_equal(plane.point_label, points.argmin(axis=1))
    pixels = grid_sq_distances(plane.extent, 40, 40, C.astype("float32"))
    naive, entmax = whole_map(pixels, 0.05)
    np.testing.assert_array_equal(plane.naive_nan, naive.reshape(40, 40))
    np.testing.assert_array_equal(plane.entmax_hard, entmax.reshape(40, 40))
    np.testing.assert_array_equal(plane.label, pixels.argmin(axis=1).reshape(40, 40))
    ties = np.zeros((5, 3))  # equal distances: the lowest index, as argmin
    np.testing.assert_array_equal(_nearest_two(ties)[0], np.zeros(5))


@pytest.mark.parametrize("name", DATASETS)
def test_the_tables_step_and_one_hot_rows_are_soft_centroid_steps_and_the_maps_bit_for_bit(name):
    """stability_table computes each row's map once for its two columns: the same numbers as
    ``soft_centroid_step`` and ``resp_from_sq_distances`` called apart, on every data set, map and dtype."""
    X, _ = make_dataset(name, 150, seed=2)
    X = np.asarray(X, dtype=np.float64)
    C, _ = kmeans(X, k=4, seed=0)
    sigmas = sigma_scale(X, C).grid[::4]
    for row in stability_table(X, C, sigmas):
        Xd = X.astype(row["dtype"])
        C_star, _ = kmeans_reference(Xd, C)
        with torch.no_grad():
            d = sq_distances(torch.from_numpy(Xd), torch.from_numpy(C_star))
            resp = resp_from_sq_distances(d, row["sigma"], row["kind"]).numpy()
        moved = soft_centroid_step(Xd, C_star, row["sigma"], row["kind"])
        error = float(np.linalg.norm(moved.astype(np.float64) - C_star.astype(np.float64)))
        assert row["hard_row_fraction"] == float(one_hot_rows(resp).mean()), row
        assert row["error_to_kmeans"] == error or (np.isnan(error) and np.isnan(row["error_to_kmeans"])), row


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", DATASETS)
def test_the_planes_of_a_grid_are_each_sigmas_plane_alone(name, dtype):
    """``stability_planes`` forms the distances and nearest centres once for every σ: each plane is the
    one ``stability_plane`` gives at its σ alone, array for array, and its points' rows are the maps' own
    answers."""
    X, _ = make_dataset(name, 150, seed=1)
    X = np.asarray(X, dtype=np.float64)
    C, _ = kmeans(X, k=4, seed=0)
    grid = sigma_scale(X, C).grid[::3]
    planes = stability_planes(X, C, grid, dtype, size=30)
    assert [plane.sigma for plane in planes] == [float(s) for s in grid]
    points, _ = distances(X, C, dtype)
    for sigma, plane in zip(grid, planes):
        alone = stability_plane(X, C, float(sigma), dtype, size=30)
        for field in (
            "label",
            "naive_nan",
            "entmax_hard",
            "point_label",
            "point_naive_nan",
            "point_entmax_hard",
        ):
            np.testing.assert_array_equal(getattr(plane, field), getattr(alone, field), err_msg=field)
        assert (plane.extent, plane.dtype) == (alone.extent, alone.dtype)
        naive, entmax = whole_map(points, float(sigma))
        np.testing.assert_array_equal(plane.point_naive_nan, naive)
        np.testing.assert_array_equal(plane.point_entmax_hard, entmax)
