"""rbfviz.views.explorer.arrays: the σ range, starting centres, fixed point and the Explorer's numbers."""

import math

import numpy as np
import pytest
from sklearn.cluster import kmeans_plusplus

from rbfviz import measures
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.steps import kmeans
from rbfviz.views.explorer.arrays import (
    BOTTOM_FACTOR,
    MAX_DECADES,
    MIN_DECADES,
    TOP_FACTOR,
    initial_centers,
    plane_numbers,
    sigma_scale,
    soft_fixed_point,
)


@pytest.fixture(scope="module")
def moons():
    X, _ = make_dataset("moons", 300, seed=1)
    C, labels = kmeans(X, k=2, seed=0)
    return X, C, labels


def test_sigma_scale_spans_split_to_collapse(moons):
    X, C, _ = moons
    s = sigma_scale(X, C)
    assert np.all(np.diff(s.grid) < 0)
    assert s.sigma_c_softmax == pytest.approx(measures.critical_sigma_predicted(X, "softmax"))
    assert s.sigma_c_entmax == pytest.approx(measures.critical_sigma_predicted(X, "entmax15", m=2))
    assert s.sigma_exact_entmax == pytest.approx(measures.sigma_exact_predicted(X, C))
    assert s.sigma_exact_softmax == pytest.approx(measures.sigma_softmax_exact(X, C))
    # from above both first critical σ to below both exact-collapse σ (3 significant digits of rounding)
    assert s.high >= 0.995 * TOP_FACTOR * max(s.sigma_c_softmax, s.sigma_c_entmax)
    assert (
        s.low <= 1.005 * BOTTOM_FACTOR * s.sigma_exact_entmax < s.sigma_exact_softmax < s.sigma_exact_entmax
    )
    assert s.default in s.grid and s.low < s.default < s.high
    assert all(float(f"{v:.3g}") == v for v in s.grid)


def test_sigma_scale_nearest_and_index(moons):
    s = sigma_scale(*moons[:2])
    assert s.nearest(s.grid[5] * 1.001) == s.grid[5]
    assert s.index(s.grid[5]) == 5
    assert s.nearest(1e-9) == s.low and s.nearest(1e9) == s.high
    with pytest.raises(ValueError):
        s.nearest(0.0)


def test_sigma_scale_width_is_bounded_when_g_min_is_zero():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 1.0]])
    C = np.array([[1.0, 0.0], [1.0, 0.0]])  # coincident centres: every gap is 0
    s = sigma_scale(X, C)
    decades = math.log10(s.high / s.low)
    assert MIN_DECADES - 0.01 <= decades <= MAX_DECADES + 0.01


def test_sigma_scale_rejects_one_centre_and_no_spread():
    X = np.random.RandomState(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="at least 2"):
        sigma_scale(X, X[:1])
    with pytest.raises(ValueError, match="spread"):
        sigma_scale(np.ones((5, 2)), np.ones((2, 2)))


def test_initial_centers(moons):
    X = moons[0]
    pp = initial_centers(X, 3, "kmeans++", seed=4)
    expected, _ = kmeans_plusplus(X, n_clusters=3, random_state=4)
    assert np.array_equal(pp, expected)
    rnd = initial_centers(X, 3, "random", seed=4)
    assert len({tuple(row) for row in rnd}) == 3
    assert all(any(np.array_equal(row, x) for x in X) for row in rnd)
    assert initial_centers(X, 3, "anneal") is None
    assert initial_centers(X.astype(np.float32), 3, "random").dtype == np.float32
    with pytest.raises(ValueError, match="init"):
        initial_centers(X, 3, "farthest-first")
    with pytest.raises(ValueError, match="k must be"):
        initial_centers(X, 500, "random")


def test_soft_fixed_point_is_a_fixed_point(moons):
    X, C, _ = moons
    centers, iterations, converged = soft_fixed_point(X, C, 0.3, "softmax")
    assert converged and iterations >= 1
    r = responsibilities(X, centers, 0.3, "softmax")
    assert np.allclose(r.T @ X / r.sum(0)[:, None], centers, atol=1e-7)


def test_plane_numbers_agree_with_diagnostics(moons):
    X, C, labels = moons
    for kind in ("softmax", "entmax15"):
        nums = plane_numbers(X, C, 0.2, kind, labels)
        gap = measures.gamma_gap(X, C, 0.2, kind)
        assert nums["loss"] == gap.loss and nums["distortion"] == gap.distortion
        assert nums["gap"] == pytest.approx(nums["loss"] - nums["distortion"])
        assert nums["within_bound"] and 0 <= nums["gap"] <= nums["bound"]
        assert nums["entries"] == X.shape[0] * 2 and nums["nan_rows"] == 0
    # far below σ*, entmax is exactly K-Means: every row one-hot, full agreement, zero entropy
    tiny = 0.1 * measures.sigma_exact_predicted(X, C)
    nums = plane_numbers(X, C, tiny, "entmax15", labels)
    assert nums["agreement"] == 1.0 and nums["mean_entropy"] == 0.0
    assert nums["exact_zeros"] == X.shape[0] and abs(nums["gap"]) <= 1e-12 * nums["distortion"]


def test_plane_numbers_report_naive_nan_rows(moons):
    X, C, labels = moons
    nums = plane_numbers(X.astype(np.float32), C, 0.01, "naive", labels)
    assert nums["nan_rows"] > 0 and math.isnan(nums["agreement"]) and not nums["within_bound"]
