"""Validate once: public functions check their arguments, the library's inner calls trust them.

Counted with a profiler hook on the check functions' code (so a check is counted however it was
imported), the checks a call makes do not grow with the σ grid, the number of steps or the levels of
an experiment; and the private functions give the public ones' numbers bit for bit.
"""

import sys
from collections import Counter
from contextlib import contextmanager

import numpy as np
import pytest

from rbfviz import validate
from rbfviz.annealing import anneal, default_sigmas
from rbfviz.collapse import collapse_study
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.steps import kmeans
from rbfviz.views.equivalence.arrays import gap_curve, trajectories
from rbfviz.views.explorer.arrays import plane_at, plane_numbers, sigma_scale

_CHECKS = {getattr(validate, name).__code__: name for name in dir(validate) if name.startswith("check_")}


@contextmanager
def counted():
    counts = Counter()

    def hook(frame, event, arg):
        if event == "call" and frame.f_code in _CHECKS:
            counts[_CHECKS[frame.f_code]] += 1

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        yield counts
    finally:
        sys.setprofile(previous)


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_dataset("blobs", n=300, noise=0.5, seed=0)
    C, labels = kmeans(X, k=3, seed=0)
    return X, C, labels


def test_plane_at_checks_the_points_once_and_matches_the_public_functions(blobs):
    X, C, labels = blobs
    with counted() as counts:
        resp, numbers = plane_at(X, C, 0.4, "entmax15", labels)
    assert counts["check_points"] == 2  # X, and C inside check_centers
    assert counts["check_centers"] == 1
    np.testing.assert_array_equal(resp, responsibilities(X, C, 0.4, "entmax15"))
    assert numbers == plane_numbers(X, C, 0.4, "entmax15", labels)


@pytest.mark.parametrize(
    "kind, sigma, message",
    [
        ("sparsemax", -1.0, "kind='sparsemax' is not a known map"),  # kind before sigma, as before
        ("softmax", 0.0, "sigma must be a positive finite number, got 0.0."),
        ("softmax", 1e-160, "sigma=1e-160 is out of range for float64"),
    ],
)
def test_plane_at_keeps_the_public_messages(blobs, kind, sigma, message):
    X, C, labels = blobs
    for fn in (plane_at, plane_numbers):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            fn(X, C, sigma, kind, labels)


def test_sigma_scale_checks_once(blobs):
    X, C, _ = blobs
    with counted() as counts:
        sigma_scale(X, C)
    assert counts["check_points"] == 2  # X, C_km


@pytest.mark.parametrize("steps", [1, 12])
def test_trajectories_check_once_whatever_the_number_of_steps(blobs, steps):
    X, C, _ = blobs
    with counted() as counts:
        trajectories(X, C, 0.3, "softmax", steps)
    assert counts["check_points"] == 2


def test_gap_curve_checks_once_per_call_and_each_sigma_for_the_dtype(blobs):
    X, C, _ = blobs
    grid = np.geomspace(2.0, 0.01, 25)
    with counted() as counts:
        curve = gap_curve(X.astype(np.float32), C, grid, "softmax")
    assert counts["check_points"] == 2
    assert counts["check_sigma_for_dtype"] == grid.size
    with pytest.raises(ValueError, match="sigma=1e-20 is out of range for float32"):
        gap_curve(X.astype(np.float32), C, [1.0, 1e-20], "softmax")
    assert curve.gap.shape == grid.shape


def test_collapse_study_checks_its_data_a_fixed_number_of_times(blobs):
    X, _, _ = blobs
    counts_by_levels = []
    for levels in (6, 12):
        sigmas = default_sigmas(X, 3, "softmax", num=levels)
        with counted() as counts:
            collapse_study(X, 3, kind="softmax", sigmas=sigmas, max_iter=50)
        counts_by_levels.append(counts["check_points"])
    assert counts_by_levels[0] == counts_by_levels[1] <= 3


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(sigmas=[0.1, 0.5]), "sigmas must be strictly decreasing"),
        (dict(tol=0.0), "tol must be a positive finite number, got 0.0."),
        (dict(max_iter=0), "max_iter must be >= 1, got 0."),
        (dict(seed=-1), "seed must be between 0 and 4294967295, got -1."),
        (dict(init=np.zeros((2, 2))), "init has 2 centres but k=3; they must agree."),
        (dict(dtype="float32", sigmas=[1.0, 1e-20]), "sigma=1e-20 is out of range for float32"),
    ],
)
def test_collapse_study_still_checks_what_anneal_checks(blobs, kwargs, message):
    X, _, _ = blobs
    with pytest.raises(ValueError, match=message):
        collapse_study(X, 3, **kwargs)


def test_collapse_study_path_is_the_public_anneal(blobs):
    X, _, _ = blobs
    sigmas = default_sigmas(X, 3, "entmax15", num=8)
    study = collapse_study(X, 3, kind="entmax15", sigmas=sigmas, seed=2, max_iter=80)
    path = anneal(X, 3, sigmas, kind="entmax15", seed=2, max_iter=80)
    np.testing.assert_array_equal(study.path.centers, path.centers)
    np.testing.assert_array_equal(study.path.loss, path.loss)


def test_the_app_cache_keys_are_hashed_by_value(fresh_streamlit_caches):
    """ui.compute's cached helpers take a DataKey / StartKey: st.cache_data must hash them field by field,
    so an equal key built anew hits the cache and any changed field misses it."""
    import streamlit as st

    from ui.compute import DataKey, StartKey

    calls = []

    @st.cache_data(max_entries=16)
    def cached(key, dtype):
        calls.append((key, dtype))
        return len(calls)

    key = DataKey("blobs", 300, 0.5, 0)
    assert cached(key, "float64") == cached(DataKey("blobs", 300, 0.5, 0), "float64") == 1
    for other in (
        DataKey("moons", 300, 0.5, 0),
        DataKey("blobs", 301, 0.5, 0),
        DataKey("blobs", 300, 0.25, 0),
        DataKey("blobs", 300, 0.5, 1),
    ):
        cached(other, "float64")
    cached(key, "float32")
    assert len(calls) == 6

    start = StartKey(key, 3, "custom", "float64", (4, 8, 15))
    assert cached(start, "") == cached(
        StartKey(DataKey("blobs", 300, 0.5, 0), 3, "custom", "float64", (4, 8, 15)), ""
    )
    cached(StartKey(key, 3, "custom", "float64", (4, 8, 16)), "")
    cached(StartKey(key, 3, "random", "float64"), "")
    assert len(calls) == 9
    # the stores that are not st.cache_data use them as dict keys
    assert {start: 1}[StartKey(key, 3, "custom", "float64", (4, 8, 15))] == 1


def test_collapse_study_checks_the_points_in_the_working_dtype():
    """Values fine in float64 can overflow the squared distances of float32 once cast."""
    X = np.array([[0.0, 0.0], [1e20, 0.0], [0.0, 1e20], [1e20, 1e20]])
    with pytest.raises(ValueError, match=r"X has a value of magnitude 1e\+20; in float32"):
        collapse_study(X, 2, dtype="float32")
