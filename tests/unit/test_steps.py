"""Centre updates (rbfviz.steps): the gradient step is the soft-centroid update, and Lloyd's at small σ.

References: the soft centroid Σ_i r_ij x_i / N_j computed here in numpy from ``responsibilities``,
and scikit-learn's KMeans(algorithm="lloyd") run for a fixed number of iterations from the same start.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy_reference import sq_dist
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from rbfviz import gradient_step, kmeans, lloyd_step, responsibilities, soft_centroid_step
from rbfviz.maps import MIN_MASS

SETTINGS = settings(derandomize=True, max_examples=50, deadline=None)
STABLE = ("softmax", "entmax15", "hard")


def soft_centroids_np(X, C, r):
    """x̄_j = Σ_i r_ij x_i / N_j; centres with N_j < MIN_MASS stay where they are."""
    mass = r.sum(axis=0)
    out = C.astype(np.float64).copy()
    full = mass >= MIN_MASS
    out[full] = (r.T @ X)[full] / mass[full, None]
    return out


def min_gap(X, C):
    """Smallest gap d_(2) - d_(1) over the points: how close any point is to a Voronoi edge."""
    d = np.sort(sq_dist(X, C), axis=1)
    return (d[:, 1] - d[:, 0]).min()


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(300, centers=4, cluster_std=1.0, center_box=(-6, 6), random_state=3)
    C0 = X[[0, 1, 2, 5]].copy()  # a poor start: Lloyd needs 9 moves to settle from here
    return X, C0


# --- one step = the soft centroid -------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, sigma",
    [(kind, sigma) for kind in STABLE for sigma in (0.05, 0.3, 1.0, 3.0, 10.0)]
    + [("naive", sigma) for sigma in (0.3, 1.0, 3.0)],
)  # below, naive has NaN rows
def test_gradient_step_is_the_soft_centroid_float64(blobs, kind, sigma):
    X, C0 = blobs
    r = responsibilities(X, C0, sigma, kind)
    assert np.isfinite(r).all()
    expected = soft_centroids_np(X, C0, r)
    new = gradient_step(X, C0, sigma, kind)
    assert new.dtype == np.float64
    np.testing.assert_allclose(new, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(soft_centroid_step(X, C0, sigma, kind), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", STABLE)
@pytest.mark.parametrize("sigma", [0.3, 1.0, 3.0])
def test_gradient_step_is_close_to_the_soft_centroid_float32(blobs, kind, sigma):
    X, C0 = blobs
    X32, C32 = X.astype(np.float32), C0.astype(np.float32)
    new = gradient_step(X32, C32, sigma, kind)
    assert new.dtype == np.float32
    r = responsibilities(X32, C32, sigma, kind).astype(np.float64)
    np.testing.assert_allclose(new, soft_centroids_np(X32.astype(np.float64), C0, r), rtol=0, atol=2e-5)
    # and close to the float64 result
    np.testing.assert_allclose(new, gradient_step(X, C0, sigma, kind), rtol=0, atol=1e-3)


@pytest.mark.parametrize("kind", STABLE)
@SETTINGS
@given(data=st.data())
def test_gradient_step_is_the_soft_centroid_on_random_problems(data, kind):
    n = data.draw(st.integers(2, 40))
    k = data.draw(st.integers(1, min(n, 5)))
    coords = st.floats(-10, 10, allow_nan=False)
    X = data.draw(hnp.arrays(np.float64, (n, 2), elements=coords))
    C = data.draw(hnp.arrays(np.float64, (k, 2), elements=coords))
    sigma = 10.0 ** data.draw(st.floats(-2, 1.5))
    expected = soft_centroids_np(X, C, responsibilities(X, C, sigma, kind))
    np.testing.assert_allclose(gradient_step(X, C, sigma, kind), expected, rtol=0, atol=1e-12)


def test_lloyd_step_is_hard_assignment_then_means(blobs):
    X, C0 = blobs
    labels = sq_dist(X, C0).argmin(axis=1)
    expected = np.array([X[labels == j].mean(axis=0) for j in range(len(C0))])
    np.testing.assert_allclose(lloyd_step(X, C0), expected, rtol=0, atol=1e-12)
    for sigma in (1e-3, 1.0, 1e3):  # the hard map does not depend on σ
        np.testing.assert_allclose(gradient_step(X, C0, sigma, "hard"), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("step", [gradient_step, soft_centroid_step])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_steps_preserve_dtype(blobs, step, dtype):
    X, C0 = blobs
    assert step(X.astype(dtype), C0.astype(dtype), 1.0, "softmax").dtype == dtype
    assert lloyd_step(X.astype(dtype), C0.astype(dtype)).dtype == dtype


def test_steps_do_not_modify_their_inputs(blobs):
    X, C0 = blobs
    X_copy, C_copy = X.copy(), C0.copy()
    gradient_step(X, C0, 0.5, "entmax15")
    soft_centroid_step(X, C0, 0.5, "softmax")
    lloyd_step(X, C0)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(C0, C_copy)


# --- empty centres stay; NaN is never hidden ---------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", STABLE)
def test_a_centre_far_from_all_data_stays_exactly_where_it_is(blobs, kind, dtype):
    X, C0 = blobs
    far = np.array([[1e3, -1e3]])
    C = np.vstack([C0, far]).astype(dtype)
    X = X.astype(dtype)
    r = responsibilities(X, C, 1.0, kind)
    assert np.all(r[:, -1] == 0.0), "the setup must give the far centre exactly zero mass"
    for step in (gradient_step, soft_centroid_step):
        new = step(X, C, 1.0, kind)
        assert np.isfinite(new).all()
        np.testing.assert_array_equal(new[-1], C[-1])
        np.testing.assert_allclose(
            new[:-1],
            soft_centroids_np(X.astype(np.float64), C0, r[:, :-1].astype(np.float64)),
            rtol=0,
            atol=1e-12 if dtype == np.float64 else 2e-5,
        )


def test_softmax_mass_that_underflows_leaves_the_centre_in_place():
    """σ = 0.71: a centre 40 units away gets weight exactly 0.0 in float64 (theory §3, guard)."""
    X = np.random.default_rng(0).normal(size=(200, 2))
    C = np.array([[0.0, 0.0], [40.0, 0.0]])
    r = responsibilities(X, C, 0.71, "softmax")
    assert r[:, 1].sum() == 0.0
    new = gradient_step(X, C, 0.71, "softmax")
    np.testing.assert_array_equal(new[1], C[1])
    np.testing.assert_allclose(new[0], X.mean(axis=0), rtol=0, atol=1e-12)


def test_the_empty_guard_is_at_min_mass_and_no_lower():
    """A centre whose tiny mass is above MIN_MASS still moves to its (exact) soft centroid."""
    X = np.array([[0.0], [0.1], [1.0]])
    C = np.array([[0.0], [6.0]])
    sigma = 1.0  # 2σ² = 2: the point at 1 gives centre 6 a weight e^{-(25 - 1)/2} ≈ 6e-6
    r = responsibilities(X, C, sigma, "softmax")
    mass = r[:, 1].sum()
    assert MIN_MASS < mass < 1e-5
    new = gradient_step(X, C, sigma, "softmax")
    np.testing.assert_allclose(new, soft_centroids_np(X, C, r), rtol=0, atol=1e-12)
    assert 0.9 < new[1, 0] < 1.0  # moved from 6 to (about) the point at 1
    # far enough that the mass is positive but below MIN_MASS (≈ e^-40): the guard keeps the centre
    C_far = np.array([[0.0], [10.0]])
    r_far = responsibilities(X, C_far, sigma, "softmax")
    assert 0 < r_far[:, 1].sum() < MIN_MASS
    np.testing.assert_array_equal(gradient_step(X, C_far, sigma, "softmax")[1], C_far[1])


@pytest.mark.parametrize("step", [gradient_step, soft_centroid_step])
def test_naive_nan_rows_make_the_centres_nan(step):
    X = np.array([[0.0], [0.1], [100.0]])  # the last point: z_min = -99²/2 ≈ -4900, exp underflows
    C = np.array([[0.0], [1.0]])
    r = responsibilities(X, C, 1.0, "naive")
    np.testing.assert_array_equal(np.isnan(r).any(axis=1), [False, False, True])
    new = step(X, C, 1.0, "naive")
    assert np.isnan(new).all(), "a NaN row reaches every centre's sums; hiding it would be a defect"
    # the same data is fine for the stable maps
    assert np.isfinite(step(X, C, 1.0, "softmax")).all()


# --- σ → 0: the gradient-descent trajectory is Lloyd's ------------------------------------------

N_STEPS = 20


@pytest.fixture(scope="module")
def lloyd_path(blobs):
    """Centres after s = 0..20 Lloyd iterations from C0, by scikit-learn, plus the path's min gap."""
    X, C0 = blobs
    path = [C0]
    for s in range(1, N_STEPS + 1):
        km = KMeans(n_clusters=len(C0), init=C0, n_init=1, max_iter=s, tol=0, algorithm="lloyd").fit(X)
        path.append(km.cluster_centers_)
    for C in path:  # sklearn relocates empty clusters; the comparison needs none
        assert np.bincount(sq_dist(X, C).argmin(axis=1), minlength=len(C0)).min() > 0
    moves = [np.abs(path[s + 1] - path[s]).max() for s in range(N_STEPS)]
    assert sum(m > 1e-3 for m in moves) >= 5, "the start must give a trajectory, not a fixed point"
    return path, min(min_gap(X, C) for C in path)


@pytest.mark.parametrize("kind, sigma", [("hard", 1.0), ("entmax15", 0.03), ("softmax", 0.01)])
def test_gradient_descent_trajectory_equals_sklearn_lloyd(blobs, lloyd_path, kind, sigma):
    X, C0 = blobs
    path, g_min = lloyd_path
    T = 2 * sigma**2
    if kind == "entmax15":
        assert 2 * T <= g_min  # 4σ² <= min gap along the path: every row one-hot, exactly
    if kind == "softmax":
        assert g_min / T >= 30  # off-weights <= e^-30 ≈ 1e-13
    C = C0.copy()
    for s in range(1, N_STEPS + 1):
        C = gradient_step(X, C, sigma, kind)
        np.testing.assert_allclose(C, path[s], rtol=0, atol=1e-10, err_msg=f"step {s}")
        if kind != "softmax":
            np.testing.assert_array_equal(responsibilities(X, path[s - 1], sigma, kind).max(axis=1), 1.0)


def test_at_larger_sigma_the_entmax_trajectory_is_not_lloyds(blobs, lloyd_path):
    """The comparison above can fail: with 4σ² well above the path's gaps, soft rows move the centres."""
    X, C0 = blobs
    path, _ = lloyd_path
    C = C0.copy()
    worst = 0.0
    for s in range(1, N_STEPS + 1):
        C = gradient_step(X, C, 0.5, "entmax15")
        worst = max(worst, np.abs(C - path[s]).max())
    assert worst > 1e-3


def test_lloyd_step_trajectory_equals_rbfviz_kmeans_with_max_iter(blobs, lloyd_path):
    X, C0 = blobs
    path, _ = lloyd_path
    C = C0.copy()
    for s in range(1, 8):
        C = lloyd_step(X, C)
        centers, _ = kmeans(X, init=C0, max_iter=s)
        np.testing.assert_allclose(C, centers, rtol=0, atol=1e-10)
        np.testing.assert_allclose(C, path[s], rtol=0, atol=1e-10)


# --- kmeans -------------------------------------------------------------------------------------


def test_kmeans_from_init_is_a_fixed_point_of_lloyd(blobs):
    X, C0 = blobs
    centers, labels = kmeans(X, init=C0)
    assert centers.dtype == np.float64 and labels.dtype == np.int64
    assert centers.shape == C0.shape and labels.shape == (len(X),)
    np.testing.assert_allclose(lloyd_step(X, centers), centers, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(labels, sq_dist(X, centers).argmin(axis=1))


@pytest.mark.parametrize("name_seed", [0, 1, 2])
def test_kmeans_from_k_is_deterministic_and_a_fixed_point(name_seed):
    X, _ = make_blobs(200, centers=3, cluster_std=1.5, random_state=name_seed)
    c1, l1 = kmeans(X, k=3, seed=name_seed)
    c2, l2 = kmeans(X, k=3, seed=name_seed)
    np.testing.assert_array_equal(c1, c2)
    np.testing.assert_array_equal(l1, l2)
    np.testing.assert_allclose(lloyd_step(X, c1), c1, rtol=0, atol=1e-12)


def test_kmeans_seed_changes_the_start():
    X, _ = make_blobs(300, centers=8, cluster_std=2.5, random_state=0)
    results = [kmeans(X, k=8, seed=s)[0] for s in range(4)]
    assert any(not np.allclose(results[0], r) for r in results[1:])


def test_kmeans_float32_input_gives_float64_centres(blobs):
    X, C0 = blobs
    centers, _ = kmeans(X.astype(np.float32), init=C0.astype(np.float32))
    assert centers.dtype == np.float64


def test_kmeans_needs_init_or_k(blobs):
    X, _ = blobs
    with pytest.raises(ValueError, match="init.*number of clusters k"):
        kmeans(X)


def test_kmeans_rejects_k_that_contradicts_init(blobs):
    X, C0 = blobs
    with pytest.raises(ValueError, match="k=3 does not match init, which has 4 centres"):
        kmeans(X, init=C0, k=3)
