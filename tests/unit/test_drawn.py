"""Points drawn by hand (rbfviz.drawn): the text a link carries round-trips (hypothesis), keeps three
decimals for data within ±32.767, stays short, and malformed or hand-edited texts are rejected with a
message saying what is wrong."""

import base64

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rbfviz.drawn import MAX_DRAWN, decode_points, encode_points, snap_points

coordinate = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
FOUR_HUNDRED = base64.urlsafe_b64encode(bytes(4 * 400)).decode().rstrip("=")  # 400 points at the origin
point_sets = st.integers(0, MAX_DRAWN).flatmap(lambda n: arrays(np.float64, (n, 2), elements=coordinate))


@given(point_sets)
def test_a_drawn_set_round_trips_to_its_grid(X):
    text = encode_points(X)
    back = decode_points(text)
    np.testing.assert_array_equal(back, snap_points(X))
    assert encode_points(back) == text  # the grid is a fixed point: a shared link stays the same link
    # every point moved by at most half a grid step (in each coordinate)
    step = 10.0 ** int(text.split(".")[0])
    assert np.all(np.abs(back - X) <= step / 2 * (1 + 1e-9))


@given(arrays(np.float64, (50, 2), elements=st.floats(-32.767, 32.767)))
def test_points_within_32_keep_three_decimals(X):
    assert encode_points(X).startswith("-3.")
    np.testing.assert_allclose(decode_points(encode_points(X)), X, rtol=0, atol=0.0005 + 1e-12)


def test_a_full_set_makes_a_short_link_and_no_points_is_empty():
    X = np.random.default_rng(0).normal(size=(MAX_DRAWN, 2))
    assert len(encode_points(X)) < 2000
    assert decode_points("").shape == (0, 2) and decode_points("-3.").shape == (0, 2)
    assert encode_points(np.zeros((0, 2))) == "-3."


@pytest.mark.parametrize(
    "text, says",
    [
        ("hello", "written “<e>.<letters"),
        ("-3.AAA$", "written"),
        ("99.AAAA", "exponent must be from"),
        ("-3.AAAAA", "cut off"),  # 5 characters: not a base64 length
        ("-3.AAAAAAA", "not a whole number of points"),  # 5 bytes
        ("-3.AAAAAB", "stray bits"),  # 4 bytes and 4 bits more
        (
            "-3." + base64.urlsafe_b64encode(bytes(4 * 400)).decode().rstrip("="),
            f"at most {MAX_DRAWN} points",
        ),
    ],
)
def test_malformed_texts_are_rejected_with_a_reason(text, says):
    with pytest.raises(ValueError, match=says):
        decode_points(text)


def test_too_many_or_non_finite_points_cannot_be_written():
    with pytest.raises(ValueError, match=f"at most {MAX_DRAWN}"):
        encode_points(np.zeros((MAX_DRAWN + 1, 2)))
    with pytest.raises(ValueError, match="finite"):
        encode_points([[0.0, np.nan]])
