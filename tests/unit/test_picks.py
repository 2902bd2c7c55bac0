"""rbfviz.views.explorer.picks: picks accumulate in order without repeats, up to a cap; the first k are the
start."""

import numpy as np
import pytest

from rbfviz.views.explorer.picks import MAX_PICKS, add_picks, picked_centers


def test_add_picks_keeps_order_and_skips_repeats():
    assert add_picks((), [5, 2, 5], n=10) == ((5, 2), 0)
    assert add_picks((5, 2), [2, 7, 0], n=10) == ((5, 2, 7, 0), 0)


def test_add_picks_caps_and_counts_the_dropped():
    picks, dropped = add_picks((), range(15), n=20)
    assert picks == tuple(range(MAX_PICKS)) and dropped == 15 - MAX_PICKS


@pytest.mark.parametrize("bad", [[-1], [10], [1.5]])
def test_add_picks_rejects_non_points(bad):
    with pytest.raises(ValueError):
        add_picks((), bad, n=10)


def test_picked_centers_are_the_first_k_picked_rows_in_the_data_dtype():
    X = np.arange(20, dtype=np.float32).reshape(10, 2)
    C = picked_centers(X, (7, 1, 4), k=2)
    assert C.dtype == np.float32 and np.array_equal(C, X[[7, 1]])


def test_too_few_picks_say_how_many_more():
    X = np.random.RandomState(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="1 picked so far. Click 2 more points"):
        picked_centers(X, (3,), k=3)


def test_coincident_picks_are_rejected():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="#0 and #2 are at the same place"):
        picked_centers(X, (0, 2), k=2)


def test_a_pick_outside_the_data_is_rejected():
    with pytest.raises(ValueError, match="does not exist"):
        picked_centers(np.zeros((3, 2)) + np.arange(3)[:, None], (0, 5), k=2)
