"""Every documented bad argument raises ValueError, and the message says what was wrong.

The checks live in rbfviz.validate; they are exercised here through every public numpy entry
point (responsibilities, gradient_step, soft_centroid_step, lloyd_step, kmeans), so a function that
forgot to call them would fail too.
"""

import re

import numpy as np
import pytest

from rbfviz import gradient_step, kmeans, lloyd_step, responsibilities, soft_centroid_step
from rbfviz.validate import check_int, check_map_arguments, check_public_url, check_sigmas

X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
C = np.array([[0.0, 0.0], [1.0, 1.0]])

# the functions that take (X, C, sigma, kind)
SIGMA_KIND_FUNCTIONS = [responsibilities, gradient_step, soft_centroid_step]


def call(fn, X=X, C=C, sigma=1.0, kind="softmax"):
    return fn(X, C, sigma, kind)


def raises(message):
    return pytest.raises(ValueError, match=re.escape(message))


# --- kind ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
@pytest.mark.parametrize("kind", ["sparsemax", "Softmax", "", None, 3])
def test_unknown_kind(fn, kind):
    allowed = 'softmax, entmax15, naive, hard, or "entmax" with alpha in [1.05, 2].'
    with raises(f"kind={kind!r} is not a known map; allowed: {allowed}"):
        call(fn, kind=kind)


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
def test_entmax_needs_alpha(fn):
    with raises('kind="entmax" needs alpha, a number in [1.05, 2].'):
        call(fn, kind="entmax")


# --- sigma ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
@pytest.mark.parametrize(
    "sigma",
    [
        0,
        0.0,
        -0.0,
        -1.0,
        -1e-300,
        float("nan"),
        float("inf"),
        -float("inf"),
        True,
        False,
        "1.0",
        None,
        1j,
        [1.0],
        np.array([1.0, 2.0]),
    ],
)
def test_sigma_must_be_a_positive_finite_number(fn, sigma):
    with pytest.raises(ValueError, match=r"^sigma must be a positive finite number, got "):
        call(fn, sigma=sigma)


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
@pytest.mark.parametrize("sigma", [1, np.float32(0.5), np.float64(2.0), np.int64(3)])
def test_numeric_sigma_types_are_accepted(fn, sigma):
    assert np.isfinite(call(fn, sigma=sigma)).all()


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
@pytest.mark.parametrize("sigma", [1e-20, 1e-25, 1e20])
def test_sigma_out_of_range_for_float32(fn, sigma):
    """2σ² must be a positive normal float32 (>= 1.18e-38, <= 3.4e38); else T is 0 (0/0 = NaN) or inf."""
    with pytest.raises(
        ValueError,
        match="^"
        + re.escape(f"sigma={sigma!r} is out of range for float32: 2*sigma**2 = ")
        + r".* must lie in \[1\.18e-38, 3\.4e\+38\]",
    ):
        call(fn, X=X.astype(np.float32), C=C.astype(np.float32), sigma=sigma)
    assert np.isfinite(call(fn, sigma=sigma)).all()  # the same σ is fine in float64


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
@pytest.mark.parametrize("sigma", [1e-160, 1e160])
def test_sigma_out_of_range_for_float64(fn, sigma):
    with pytest.raises(
        ValueError, match="^" + re.escape(f"sigma={sigma!r} is out of range for float64: 2*sigma**2 = ")
    ):
        call(fn, sigma=sigma)


def test_the_smallest_float32_sigma_is_accepted_and_gives_finite_stable_maps():
    sigma = 1e-19  # 2σ² = 2e-38 >= float32 tiny (1.18e-38)
    X32, C32 = X.astype(np.float32), C.astype(np.float32)
    for kind in ("softmax", "entmax15", "hard"):
        r = responsibilities(X32, C32, sigma, kind)
        assert np.isfinite(r).all()
        np.testing.assert_allclose(
            r.sum(axis=1), 1.0, rtol=0, atol=1e-6
        )  # entmax ties: 2·0.70710677² in float32


# --- points and centres -----------------------------------------------------------------------------


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
@pytest.mark.parametrize(
    "bad, message",
    [
        (np.array([0.0, 1.0, 2.0]), "X must have shape (n, d) with n >= 1 and d >= 1, got shape (3,)"),
        (np.zeros((2, 2, 2)), "X must have shape (n, d) with n >= 1 and d >= 1, got shape (2, 2, 2)"),
        (np.zeros((0, 2)), "X must have shape (n, d) with n >= 1 and d >= 1, got shape (0, 2)"),
        (np.zeros((4, 0)), "X must have shape (n, d) with n >= 1 and d >= 1, got shape (4, 0)"),
        (np.float64(1.0), "X must have shape (n, d) with n >= 1 and d >= 1, got shape ()"),
        (np.array([["a", "b"], ["c", "d"]]), "X must be a numeric array, got dtype <U1"),
        (np.array([[1, 2], [3, 4]], dtype=object), "X must be a numeric array, got dtype object"),
        (np.array([[1 + 1j, 0], [0, 0], [1, 1]]), "X must be real, got a complex array"),
        (
            np.array([[0.0, np.nan], [1.0, 0.0], [0.0, 1.0]]),
            "X contains NaN or infinite values in 1 row(s); all values must be finite.",
        ),
        (
            np.array([[0.0, np.inf], [1.0, -np.inf], [np.nan, 1.0]]),
            "X contains NaN or infinite values in 3 row(s); all values must be finite.",
        ),
    ],
)
def test_bad_points(fn, bad, message):
    with raises(message):
        call(fn, X=bad)


@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
@pytest.mark.parametrize(
    "bad, message",
    [
        (np.array([0.0, 1.0]), "C must have shape (n, d) with n >= 1 and d >= 1, got shape (2,)"),
        (np.zeros((0, 2)), "C must have shape (n, d) with n >= 1 and d >= 1, got shape (0, 2)"),  # k = 0
        (np.zeros((5, 2)), "k must be between 1 and the number of points (4), got k=5."),  # k > n
        (np.zeros((2, 3)), "C has 3 feature(s) per centre but X has 2; they must match."),
        (np.zeros((2, 1)), "C has 1 feature(s) per centre but X has 2; they must match."),
        (np.array([[0.0, 0.0], [np.nan, 1.0]]), "C contains NaN or infinite values in 1 row(s)"),
        (np.array([["0", "0"]]), "C must be a numeric array"),
    ],
)
def test_bad_centres(fn, bad, message):
    with raises(message):
        call(fn, C=bad)


def test_ragged_input_is_a_value_error():
    with pytest.raises(ValueError, match="inhomogeneous"):
        responsibilities([[0.0, 1.0], [2.0]], C, 1.0)


def test_lists_bools_and_integers_are_accepted_as_float64():
    r = responsibilities([[0, 0], [1, 1], [2, 2]], [[0, 0]], 1.0)
    assert r.dtype == np.float64
    assert responsibilities(np.array([[True, False], [False, True]]), [[0, 0]], 1.0).dtype == np.float64


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.zeros((2, 3)), "C has 3 feature(s) per centre but X has 2; they must match."),
        (np.zeros((5, 2)), "k must be between 1 and the number of points (4), got k=5."),
        (np.array([[np.inf, 0.0], [0.0, 0.0]]), "C contains NaN or infinite values in 1 row(s)"),
    ],
)
def test_lloyd_step_validates_too(bad, message):
    with raises(message):
        lloyd_step(X, bad)
    with raises("X contains NaN"):
        lloyd_step(np.array([[np.nan, 0.0], [0.0, 0.0], [1.0, 1.0]]), C)


# --- kmeans ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(), "kmeans needs either init (k, d) centres or the number of clusters k."),
        (dict(k=0), "k must be between 1 and the number of points (4), got k=0."),
        (dict(k=5), "k must be between 1 and the number of points (4), got k=5."),
        (dict(k=2.0), "k must be an integer, got 2.0."),
        (dict(k=True), "k must be an integer, got True."),
        (dict(k=2, seed=-1), "seed must be between 0 and 4294967295, got -1."),
        (dict(k=2, seed=0.5), "seed must be an integer, got 0.5."),
        (dict(k=2, max_iter=0), "max_iter must be >= 1, got 0."),
        (dict(init=np.zeros((2, 3))), "init has 3 feature(s) per centre but X has 2; they must match."),
        (dict(init=np.zeros((5, 2))), "k must be between 1 and the number of points (4), got k=5."),
        (
            dict(init=np.array([[0.0, np.nan], [1.0, 1.0]])),
            "init contains NaN or infinite values in 1 row(s)",
        ),
        (dict(init=C, k=3), "k=3 does not match init, which has 2 centres."),
    ],
)
def test_kmeans_bad_arguments(kwargs, message):
    with raises(message):
        kmeans(X, **kwargs)


def test_kmeans_bad_points():
    with raises("X contains NaN or infinite values in 1 row(s)"):
        kmeans(np.array([[0.0, 0.0], [np.nan, 1.0], [2.0, 2.0]]), k=2)
    with raises("X must have shape (n, d)"):
        kmeans(np.zeros(5), k=2)


# --- helpers used by other modules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, message",
    [
        ([], "sigmas must be a non-empty 1-D sequence of positive numbers, got shape (0,)"),
        ([[0.1, 0.2]], "sigmas must be a non-empty 1-D sequence of positive numbers, got shape (1, 2)"),
        ([0.1, 0.0], "sigmas must all be positive finite numbers."),
        ([0.1, -1.0], "sigmas must all be positive finite numbers."),
        ([0.1, float("nan")], "sigmas must all be positive finite numbers."),
        ([0.1, float("inf")], "sigmas must all be positive finite numbers."),
        (0.0, "sigmas must all be positive finite numbers."),
    ],
)
def test_check_sigmas(value, message):
    with raises(message):
        check_sigmas(value)


def test_check_sigmas_accepts_a_scalar_and_a_sequence():
    np.testing.assert_array_equal(check_sigmas(0.5), [0.5])
    np.testing.assert_array_equal(check_sigmas([0.1, 1]), [0.1, 1.0])


@pytest.mark.parametrize(
    "value, message",
    [
        (True, "n must be an integer, got True."),
        (1.0, "n must be an integer, got 1.0."),
        ("3", "n must be an integer, got '3'."),
        (2, "n must be between 3 and 10, got 2."),
        (11, "n must be between 3 and 10, got 11."),
    ],
)
def test_check_int(value, message):
    with raises(message):
        check_int(value, "n", 3, 10)
    assert check_int(np.int32(5), "n", 3, 10) == 5


# --- magnitudes whose squared distances would overflow ------------------------------------------------


def test_check_map_arguments_cleans_and_names_the_centres():
    X, C, sigma, kind = check_map_arguments([[0, 0], [1, 1], [2, 0]], [[0, 0], [1, 0]], 1, "entmax", 1.5)
    assert X.dtype == C.dtype == np.float64 and sigma == 1.0 and kind == "entmax:1.5"
    with pytest.raises(ValueError, match="C0 has 3 feature"):
        check_map_arguments(np.zeros((4, 2)), np.zeros((2, 3)), 0.5, "softmax", centers_name="C0")
    with pytest.raises(ValueError, match="out of range for float32"):
        check_map_arguments(np.zeros((4, 2), np.float32), np.zeros((2, 2), np.float32), 1e-30, "softmax")


@pytest.mark.parametrize(
    "text,address",
    [
        ("https://rbfviz.example.edu/class/", "https://rbfviz.example.edu/class"),
        ("  http://10.0.0.5:8080 ", "http://10.0.0.5:8080"),
        ("https://rbfviz.example.edu", "https://rbfviz.example.edu"),
    ],
)
def test_check_public_url_keeps_the_address_without_trailing_slash(text, address):
    assert check_public_url(text) == address


@pytest.mark.parametrize(
    "text", ["rbfviz.example.edu", "ftp://host", "https://", "https://host/?room=1", "https://h/#x", ""]
)
def test_check_public_url_refuses_what_students_cannot_open(text):
    with pytest.raises(ValueError, match=re.escape(f"{text!r} is not an address students can open")):
        check_public_url(text)


@pytest.mark.parametrize("dtype, big", [(np.float32, 3e19), (np.float64, 1e155)])
@pytest.mark.parametrize("fn", SIGMA_KIND_FUNCTIONS)
def test_values_whose_squared_distances_overflow_are_rejected(fn, dtype, big):
    """Finite, but ||x - c||² = inf: the stable maps would compute inf - inf = NaN (entmax: an IndexError)."""
    Xb = np.array([[0.0, 0.0], [big, 0.0], [1.0, 1.0]], dtype=dtype)
    Cb = np.array([[0.0, 0.0], [1.0, 0.0]], dtype=dtype)
    name = np.dtype(dtype).name
    with pytest.raises(
        ValueError,
        match=rf"^X has a value of magnitude .* in {name} with 2 feature\(s\) values must be at most",
    ):
        call(fn, X=Xb, C=Cb)
    with pytest.raises(ValueError, match=rf"^C has a value of magnitude .* in {name} with 2 feature\(s\)"):
        call(fn, X=Cb[[0, 1, 1]], C=Xb[1:])
