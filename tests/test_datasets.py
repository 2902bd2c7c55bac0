"""make_dataset: every data set, its shapes and dtypes, determinism, defaults and argument errors."""

import numpy as np
import pytest
from sklearn import datasets as skd

from rbfviz import DATASETS, DEFAULT_NOISE, NATURAL_K, make_dataset


def test_the_documented_names():
    assert DATASETS == ("blobs", "moons", "circles", "spiral", "iris")
    assert set(DEFAULT_NOISE) == set(DATASETS) == set(NATURAL_K)


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
            "dataset 'gaussians' is unknown; allowed: blobs, moons, circles, spiral, iris",
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
