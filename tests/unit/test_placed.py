"""Centres placed anywhere on the plane (rbfviz.views.explorer.placed): the link's encoding round-trips
exactly what the page computes from, bad texts are rejected with a message naming the entry, and the start
is the first k placed centres."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rbfviz.views.explorer.placed import (
    MAX_COORDINATE,
    MAX_PLACED,
    encode_placed,
    parse_placed,
    placed_centers,
    round_placed,
)

coordinate = st.floats(-MAX_COORDINATE, MAX_COORDINATE, allow_nan=False, allow_infinity=False)
centres = st.lists(st.tuples(coordinate, coordinate), max_size=MAX_PLACED)


@given(centres)
def test_rounded_centres_round_trip_exactly(raw):
    placed = tuple(round_placed(x, y) for x, y in raw)
    assert parse_placed(encode_placed(placed)) == placed
    # rounding is to 6 significant digits: well below a pixel of any plane
    for (x, y), (a, b) in zip(raw, placed):
        assert abs(a - x) <= 5e-6 * abs(x) + 1e-300 and abs(b - y) <= 5e-6 * abs(y) + 1e-300


@pytest.mark.parametrize(
    "text, says",
    [
        ("1,2;3", "“3” is not one centre x,y"),
        ("1,2,3", "is not one centre"),
        ("a,b", "two finite numbers"),
        ("1,nan", "two finite numbers"),
        ("1,inf", "two finite numbers"),
        ("1,1e9", "two finite numbers"),
        (";".join(["0,0"] * (MAX_PLACED + 1)), f"at most {MAX_PLACED} centres"),
    ],
)
def test_bad_texts_are_rejected_with_the_entry(text, says):
    with pytest.raises(ValueError, match=says):
        parse_placed(text)


def test_empty_text_is_no_centres_and_spaces_are_ignored():
    assert parse_placed("") == () and parse_placed("  ") == ()
    assert parse_placed(" 1.5, -2 ; 3,4 ;") == ((1.5, -2.0), (3.0, 4.0))


def test_the_start_is_the_first_k_in_the_dtype():
    placed = ((0.0, 1.0), (2.5, -1.0), (3.0, 3.0))
    C = placed_centers(placed, 2, "float32")
    assert C.dtype == np.float32 and C.shape == (2, 2)
    np.testing.assert_array_equal(C, np.array(placed[:2], dtype=np.float32))


def test_too_few_or_coincident_centres_say_what_to_do():
    with pytest.raises(ValueError, match="2 more places"):
        placed_centers(((0.0, 0.0),), 3)
    with pytest.raises(ValueError, match="centres 0 and 2 are at the same place"):
        placed_centers(((0.0, 0.0), (1.0, 1.0), (0.0, 0.0)), 3)
