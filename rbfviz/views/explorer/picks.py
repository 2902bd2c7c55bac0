"""Starting centres picked by hand: the data points a student clicked on the plane.

A pick is the row index of a data point. Picks accumulate in the order they were made (a box or
lasso selection adds its points in index order) and the first k of them are the k starting
centres, so changing k never loses picks.

* ``add_picks(picks, new, n)``     – the picks followed by the new indices not yet picked, capped.
* ``picked_centers(X, picks, k)``  – X[picks[:k]], or a ValueError saying how many more to pick.
"""

from __future__ import annotations

import numpy as np

from rbfviz.i18n import Invalid
from rbfviz.validate import check_int, check_points

MAX_PICKS = 10  # the app shows at most 10 clusters (one distinct colour each)


def add_picks(picks, new, n: int, limit: int = MAX_PICKS) -> tuple[tuple[int, ...], int]:
    """(picks + the new indices not picked yet, in order, at most ``limit`` in all; how many were dropped).

    picks, new: iterables of point indices in [0, n). Indices out of range raise ValueError.
    """
    n = check_int(n, "n", 1)
    limit = check_int(limit, "limit", 1)
    out = [check_int(i, "pick", 0, n - 1) for i in picks]
    dropped = 0
    for i in new:
        i = check_int(i, "pick", 0, n - 1)
        if i in out:
            continue
        if len(out) >= limit:
            dropped += 1
            continue
        out.append(i)
    return tuple(out), dropped


def picked_centers(X, picks, k: int) -> np.ndarray:
    """The starting centres (k, d) X[picks[:k]], in X's dtype.

    Raises ValueError if fewer than k points are picked (the message says how many more), if a pick
    is not a row of X, or if two of the first k picks sit at the same place (coincident centres
    never separate: both would stay one cluster).
    """
    X = check_points(X, "X")
    k = check_int(k, "k", 1)
    picks = tuple(int(i) for i in picks)
    if len(picks) < k:
        more = k - len(picks)
        if more == 1:
            raise Invalid(
                "the custom start needs k = {k} picked points; {picked} picked so far. Click 1 more point "
                "on the Explorer's plot, or lower k.",
                k=k,
                picked=len(picks),
            )
        raise Invalid(
            "the custom start needs k = {k} picked points; {picked} picked so far. Click {more} more points "
            "on the Explorer's plot, or lower k.",
            k=k,
            picked=len(picks),
            more=more,
        )
    rows = picks[:k]
    bad = [i for i in rows if not 0 <= i < X.shape[0]]
    if bad:
        raise Invalid(
            "picked point #{point} does not exist: the data have {n} points (#0 to #{last}). Clear the "
            "picks and pick again.",
            point=bad[0],
            n=X.shape[0],
            last=X.shape[0] - 1,
        )
    centers = X[list(rows)]
    for a in range(k):
        same = np.flatnonzero((centers[a + 1 :] == centers[a]).all(axis=1))
        if same.size:
            b = rows[a + 1 + int(same[0])]
            raise Invalid(
                "picked points #{a} and #{b} are at the same place, so their centres would never "
                "separate. Pick points at different places.",
                a=rows[a],
                b=b,
            )
    return np.ascontiguousarray(centers)
