"""Farthest-point seeding (init "farthest") against a numpy reference written here from its definition:
the first centre at the point nearest the data mean, each next at the point whose distance to its nearest
chosen centre is largest; ties to the lowest row, no row twice."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy_reference import sq_dist

from rbfviz.datasets import make_dataset
from rbfviz.views.explorer.arrays import farthest_point_centers, initial_centers

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)


def farthest_rows_reference(X: np.ndarray, k: int) -> list[int]:
    """The definition, by full distance tables and plain loops (no running minimum)."""
    X = np.asarray(X, np.float64)
    to_mean = sq_dist(X, X.mean(axis=0, keepdims=True))[:, 0]
    rows = [min(range(len(X)), key=lambda i: (to_mean[i], i))]
    while len(rows) < k:
        to_chosen = sq_dist(X, X[rows]).min(axis=1)
        candidates = [i for i in range(len(X)) if i not in rows]
        rows.append(max(candidates, key=lambda i: (to_chosen[i], -i)))
    return rows


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("dataset,k", [("blobs", 4), ("moons", 2), ("circles", 5), ("iris", 3)])
def test_matches_the_reference_on_the_data_sets(dataset, k, dtype):
    X, _ = make_dataset(dataset, 150, seed=2)
    X = X.astype(dtype)
    got = initial_centers(X, k, "farthest", seed=123)
    assert got.dtype == dtype and got.shape == (k, X.shape[1])
    np.testing.assert_array_equal(got, X[farthest_rows_reference(X, k)])
    # deterministic: the seed plays no part
    np.testing.assert_array_equal(got, initial_centers(X, k, "farthest", seed=0))


@SETTINGS
@given(
    hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 25), st.integers(1, 3)),
        elements=st.integers(-4, 4).map(float),  # small integers: many exact ties and duplicate points
    ),
    st.integers(1, 25),
)
def test_matches_the_reference_with_ties_and_duplicates(X, k):
    k = min(k, X.shape[0])
    got = farthest_point_centers(X, k)
    np.testing.assert_array_equal(got, X[farthest_rows_reference(X, k)])


def test_first_centre_nearest_the_mean_and_the_next_farthest():
    X = np.array([[0.0, 0.0], [10.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])  # mean (3.2, 0)
    C = farthest_point_centers(X, 3)
    np.testing.assert_array_equal(C, [[3.0, 0.0], [10.0, 0.0], [0.0, 0.0]])


def test_ties_go_to_the_lowest_row():
    square = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])  # all equally near the mean
    np.testing.assert_array_equal(farthest_point_centers(square, 2), square[[0, 2]])


def test_duplicate_points_give_distinct_rows():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [5.0, 5.0]])
    C = farthest_point_centers(X, 4)
    np.testing.assert_array_equal(C, X[[0, 3, 1, 2]])


def test_k_larger_than_n_is_a_clear_message():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"k must be between 1 and the number of points \(3\), got k=4"):
        farthest_point_centers(X, 4)
    with pytest.raises(ValueError, match="k must be between 1"):
        initial_centers(X, 4, "farthest")
