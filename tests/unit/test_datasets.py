"""make_dataset: every data set, its shapes and dtypes, determinism, defaults and argument errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets as skd
from sklearn.cluster import KMeans
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.metrics import adjusted_rand_score

from rbfviz import DATASETS, DEFAULT_NOISE, NATURAL_K, make_dataset
from rbfviz.datasets import DATASET_LABELS, uneven_sizes

FAILURES = ("sheared", "varied", "uneven")


def test_the_documented_names():
    assert DATASETS == ("blobs", "moons", "circles", "spiral", "iris", "sheared", "varied", "uneven")
    assert set(DEFAULT_NOISE) == set(DATASETS) == set(NATURAL_K) == set(DATASET_LABELS)
    assert len(set(DATASET_LABELS.values())) == len(DATASETS)


@pytest.mark.parametrize("name", DATASETS)
def test_shapes_dtypes_and_labels(name):
    X, y = make_dataset(name, n=120, seed=3)
    assert X.shape == (120, 2) and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.shape == (120,) and y.dtype == np.int64
    assert np.isfinite(X).all()
    assert set(np.unique(y)) == set(range(NATURAL_K[name])), "labels are the generating groups 0..K-1"


@pytest.mark.parametrize("name", DATASETS)
def test_default_size(name):
    X, y = make_dataset(name)
    assert len(X) == len(y) == (150 if name == "iris" else 500)


@pytest.mark.parametrize("name", DATASETS)
def test_same_seed_same_data(name):
    X1, y1 = make_dataset(name, n=100, seed=7)
    X2, y2 = make_dataset(name, n=100, seed=7)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)


@pytest.mark.parametrize("name", DATASETS)
def test_different_seeds_differ(name):
    X1, _ = make_dataset(name, n=100, seed=0)
    X2, _ = make_dataset(name, n=100, seed=1)
    assert not np.array_equal(X1, X2)


@pytest.mark.parametrize("name", [name for name in DATASETS if name != "iris"])
def test_default_noise_is_used_when_noise_is_none(name):
    X_default, _ = make_dataset(name, n=200, seed=5)
    X_explicit, _ = make_dataset(name, n=200, noise=DEFAULT_NOISE[name], seed=5)
    X_other, _ = make_dataset(name, n=200, noise=DEFAULT_NOISE[name] * 2, seed=5)
    np.testing.assert_array_equal(X_default, X_explicit)
    assert not np.array_equal(X_default, X_other)


@pytest.mark.parametrize("name", ["moons", "circles", "spiral"])
def test_zero_noise_gives_the_clean_curves_and_noise_spreads_them(name):
    clean, y = make_dataset(name, n=300, noise=0.0, seed=0)
    noisy, _ = make_dataset(name, n=300, noise=0.3, seed=0)
    if name == "circles":  # radii exactly 1 and 0.5 (factor 0.5)
        radius = np.hypot(*clean.T)
        np.testing.assert_allclose(radius[y == 0], 1.0, atol=1e-12)
        np.testing.assert_allclose(radius[y == 1], 0.5, atol=1e-12)
    if name == "spiral":  # radius t in [0.5, 3] and angle 1.6 t + 2π a/3 on arm a
        t = np.hypot(*clean.T)
        assert t.min() >= 0.5 - 1e-12 and t.max() <= 3.0 + 1e-12
        angle = np.arctan2(clean[:, 1], clean[:, 0])
        expected = 1.6 * t + 2 * np.pi * y / 3
        np.testing.assert_allclose(np.angle(np.exp(1j * (angle - expected))), 0.0, atol=1e-9)
    assert noisy.std() != clean.std()


def test_blobs_noise_is_the_cluster_standard_deviation():
    X, y = make_dataset("blobs", n=20000, noise=0.7, seed=1)
    for label in range(4):
        np.testing.assert_allclose(X[y == label].std(axis=0), 0.7, rtol=0.05)


def test_moons_matches_scikit_learn_with_the_same_seed():
    X, y = make_dataset("moons", n=200, noise=0.1, seed=4)
    X_ref, y_ref = skd.make_moons(n_samples=200, noise=0.1, random_state=np.random.RandomState(4))
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)


def test_iris_is_the_real_data_projected():
    X, y = make_dataset("iris")
    assert X.shape == (150, 2)
    np.testing.assert_array_equal(np.bincount(y), [50, 50, 50])
    # standardised, then the first two principal components: centred, first axis most spread
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    var = X.var(axis=0)
    assert var[0] > var[1]
    np.testing.assert_allclose(var.sum() / 4, 0.958, atol=0.01)  # 2 PCs keep ~95.8% of 4 unit variances


def test_iris_subsample_and_noise():
    X_full, y_full = make_dataset("iris")
    X, y = make_dataset("iris", n=60, seed=2)
    assert X.shape == (60, 2) and len(y) == 60
    # a subsample of the real rows, without repeats
    matches = [np.flatnonzero((X_full == row).all(axis=1)) for row in X]
    assert all(len(m) == 1 for m in matches)
    assert len({int(m[0]) for m in matches}) == 60
    np.testing.assert_array_equal(y, y_full[[int(m[0]) for m in matches]])
    # seeded: the same subsample again, a different one for another seed
    np.testing.assert_array_equal(make_dataset("iris", n=60, seed=2)[0], X)
    assert not np.array_equal(make_dataset("iris", n=60, seed=3)[0], X)
    # noise: jitter added to the projected points
    X_noisy, _ = make_dataset("iris", noise=0.1, seed=0)
    assert 0.05 < np.abs(X_noisy - X_full).std() < 0.2


def test_iris_with_zero_noise_ignores_the_seed_at_full_size():
    np.testing.assert_array_equal(make_dataset("iris", seed=0)[0], make_dataset("iris", seed=9)[0])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(name="gaussians"),
            "dataset 'gaussians' is unknown; allowed: blobs, moons, circles, spiral, iris, sheared, varied, "
            "uneven",
        ),
        (dict(name="Moons"), "dataset 'Moons' is unknown"),
        (dict(name="iris", n=151), "n must be between 3 and 150, got 151"),
        (dict(name="iris", n=2), "n must be between 3 and 150, got 2"),
        (dict(name="moons", n=2), "n must be between 3 and 5000000, got 2"),
        (dict(name="moons", n=0), "n must be between 3"),
        (dict(name="moons", n=-5), "n must be between 3"),
        (dict(name="moons", n=10**7), "n must be between 3 and 5000000"),
        (dict(name="moons", n=100.0), "n must be an integer, got 100.0"),
        (dict(name="moons", n="100"), "n must be an integer"),
        (dict(name="moons", n=True), "n must be an integer, got True"),
        (dict(name="moons", noise=-0.1), "noise must be a number between 0 and 10.0, got -0.1"),
        (dict(name="moons", noise=11.0), "noise must be a number between 0 and 10.0, got 11.0"),
        (dict(name="moons", noise=float("nan")), "noise must be a number between 0 and 10.0, got nan"),
        (dict(name="moons", noise=float("inf")), "noise must be a number between 0 and 10.0, got inf"),
        (dict(name="moons", noise="0.1"), "noise must be a number"),
        (dict(name="moons", noise=True), "noise must be a number"),
        (dict(name="moons", seed=-1), "seed must be between 0 and 4294967295, got -1"),
        (dict(name="moons", seed=2**32), "seed must be between 0 and 4294967295"),
        (dict(name="moons", seed=1.5), "seed must be an integer, got 1.5"),
        (dict(name="moons", seed=None), "seed must be an integer, got None"),
    ],
)
def test_bad_arguments_raise_value_error_with_a_helpful_message(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_dataset(**kwargs)


def test_numpy_integer_arguments_are_accepted():
    X, _ = make_dataset("spiral", n=np.int64(50), noise=np.float32(0.1), seed=np.uint32(3))
    assert X.shape == (50, 2)


# --- the K-Means failures: scikit-learn's "Demonstration of k-means assumptions" ---------------------
# The example's own code, written out here: n_samples=1500, random_state=170, its shear matrix, its
# three standard deviations and its 500 / 100 / 10 cut.
EXAMPLE_SHEAR = [[0.60834549, -0.63667341], [-0.40887718, 0.85253229]]


def _example():
    X, y = skd.make_blobs(n_samples=1500, random_state=170)
    X_aniso = np.dot(X, EXAMPLE_SHEAR)
    X_varied, y_varied = skd.make_blobs(n_samples=1500, cluster_std=[1.0, 2.5, 0.5], random_state=170)
    X_filtered = np.vstack((X[y == 0][:500], X[y == 1][:100], X[y == 2][:10]))
    y_filtered = [0] * 500 + [1] * 100 + [2] * 10
    return dict(
        sheared=(1500, X_aniso, y), varied=(1500, X_varied, y_varied), uneven=(610, X_filtered, y_filtered)
    )


@pytest.mark.parametrize("name", FAILURES)
def test_seed_zero_at_the_example_size_is_the_scikit_learn_example(name):
    n, X_ref, y_ref = _example()[name]
    X, y = make_dataset(name, n=n, seed=0)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)


@pytest.mark.parametrize("seed", [1, 7, 2**32 - 1])
def test_other_seeds_and_noise_follow_make_blobs(seed):
    random_state = (170 + seed) % 2**32
    X, y = make_dataset("sheared", n=300, noise=0.4, seed=seed)
    X_ref, y_ref = skd.make_blobs(n_samples=300, cluster_std=0.4, random_state=random_state)
    np.testing.assert_allclose(X, X_ref @ np.array(EXAMPLE_SHEAR), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(y, y_ref)
    X, y = make_dataset("varied", n=301, noise=0.4, seed=seed)
    X_ref, y_ref = skd.make_blobs(n_samples=301, cluster_std=[0.4, 1.0, 0.2], random_state=random_state)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)


def test_sheared_clusters_have_the_sheared_covariance():
    """x = u A with u isotropic (std s): each cluster's covariance is s² AᵀA, elongated."""
    A = np.array(EXAMPLE_SHEAR)
    X, y = make_dataset("sheared", n=60_000, noise=0.8, seed=3)
    expected = 0.8**2 * A.T @ A
    for label in range(3):
        np.testing.assert_allclose(np.cov(X[y == label].T), expected, atol=0.02)
    eigenvalues = np.linalg.eigvalsh(A.T @ A)
    assert eigenvalues[1] / eigenvalues[0] > 10  # long and thin: the axis ratio is above 3


def test_varied_standard_deviations_are_noise_times_1_2_5_and_0_5():
    X, y = make_dataset("varied", n=60_000, noise=0.6, seed=2)
    for label, std in enumerate([0.6, 1.5, 0.3]):
        np.testing.assert_allclose(X[y == label].std(axis=0), std, rtol=0.03)


@pytest.mark.parametrize("name", FAILURES)
def test_natural_k_is_three_generating_groups(name):
    X, y = make_dataset(name, seed=4)
    assert NATURAL_K[name] == 3
    assert set(np.unique(y)) == {0, 1, 2} and X.shape == (500, 2)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 200_000))
def test_uneven_sizes_keep_the_ratio_500_100_10(n):
    sizes = np.array(uneven_sizes(n))
    assert sizes.sum() == n and (sizes >= 1).all()
    share = n * np.array([500, 100, 10]) / 610
    if share.min() >= 1:  # nobody needed a borrowed point: every size within one point of its share
        assert np.abs(sizes - share).max() < 1
    assert sizes[0] >= sizes[1] >= sizes[2]


@pytest.mark.parametrize("n", [5, 61, 500, 1220, 5000])
def test_uneven_data_have_those_sizes_and_come_from_equal_blobs(n):
    X, y = make_dataset("uneven", n=n, noise=0.7, seed=5)
    sizes = uneven_sizes(n)
    np.testing.assert_array_equal(np.bincount(y, minlength=3), sizes)
    # the first points of each of three equal make_blobs clusters, in its order
    X_all, y_all = skd.make_blobs(n_samples=3 * max(sizes), cluster_std=0.7, random_state=175)
    expected = np.vstack([X_all[y_all == j][: sizes[j]] for j in range(3)])
    np.testing.assert_array_equal(X, expected)


def test_uneven_ratio_at_the_app_default_size():
    _, y = make_dataset("uneven")
    np.testing.assert_array_equal(np.bincount(y), [410, 82, 8])  # 500 · (500, 100, 10) / 610, rounded


def _within_sum_of_squares(X, labels):
    return sum(((X[labels == j] - X[labels == j].mean(axis=0)) ** 2).sum() for j in np.unique(labels))


@pytest.mark.parametrize("name", FAILURES)
def test_at_the_default_settings_the_groups_are_separable(name):
    """A quadratic classifier trained on the generating labels recovers them: the groups are there."""
    X, y = make_dataset(name)
    assert np.mean(QuadraticDiscriminantAnalysis().fit(X, y).predict(X) == y) > 0.97


@pytest.mark.parametrize("name", ["sheared", "varied"])
def test_sheared_and_varied_k_means_objective_prefers_a_wrong_partition(name):
    """The best K-Means partition (scikit-learn, 10 starts) has a smaller J than the true groups, and
    it is not them: no start can fix this."""
    X, y = make_dataset(name)
    best = KMeans(n_clusters=3, n_init=10, random_state=0).fit(X)
    assert best.inertia_ < 0.9 * _within_sum_of_squares(X, y)
    assert adjusted_rand_score(y, best.labels_) < 0.9


def test_uneven_the_objective_is_right_but_single_starts_often_miss_it():
    X, y = make_dataset("uneven")
    best = KMeans(n_clusters=3, n_init=10, random_state=0).fit(X)
    assert best.inertia_ == pytest.approx(_within_sum_of_squares(X, y), rel=1e-9)
    single = [KMeans(n_clusters=3, n_init=1, random_state=r).fit_predict(X) for r in range(20)]
    assert sum(adjusted_rand_score(y, labels) < 0.9 for labels in single) >= 5
