"""Starting centres placed by hand: anywhere on the plane, by a click, a drag or typed coordinates.

A placed centre is a position (x, y) in data units, not a data point (those are picks,
``rbfviz.views.explorer.picks``). The first k placed centres are the start of the initialisation
"placed". They travel in a link as ``centres=x,y;x,y;...`` (``encode_placed`` / ``parse_placed``),
each coordinate written with ``PLACED_DIGITS`` significant digits; ``round_placed`` rounds a position to
what the link holds, so the centres a page computes from are the ones its link gives back.

* ``round_placed(x, y)``             – (x, y) as the link writes them.
* ``encode_placed(placed)``          – the link's text.
* ``parse_placed(text)``             – the centres of a link's text, or a ValueError saying what is wrong.
* ``placed_centers(placed, k, dtype)`` – the k starting centres (k, 2), or a ValueError.
"""

from __future__ import annotations

import math

import numpy as np

from rbfviz.i18n import Invalid
from rbfviz.views.common.palette import MAX_CLUSTERS

MAX_PLACED = MAX_CLUSTERS  # one centre per cluster colour
PLACED_DIGITS = 6  # significant digits of a coordinate in a link: far below a pixel of any plane
# Coordinates further out than this are typing mistakes (the data sets span a few units; uploads are
# limited by the loader), and squared distances of them would overflow float32.
MAX_COORDINATE = 1e6


def round_placed(x, y) -> tuple[float, float]:
    """(x, y) rounded to PLACED_DIGITS significant digits (as ``encode_placed`` writes them); ValueError
    if either is not a finite number within ±MAX_COORDINATE."""
    out = []
    for name, value in (("x", x), ("y", y)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise Invalid(
                "a centre's {name} must be a number, got {value!r}.", name=name, value=value
            ) from None
        if not math.isfinite(value) or abs(value) > MAX_COORDINATE:
            raise Invalid(
                "a centre's {name} must be a finite number within ±{most:g}, got {value}.",
                name=name,
                most=MAX_COORDINATE,
                value=value,
            )
        out.append(float(f"{value:.{PLACED_DIGITS}g}"))
    return out[0], out[1]


def encode_placed(placed) -> str:
    """ "x,y;x,y;...": every centre's coordinates with PLACED_DIGITS significant digits."""
    return ";".join(f"{x:.{PLACED_DIGITS}g},{y:.{PLACED_DIGITS}g}" for x, y in placed)


def parse_placed(text: str) -> tuple[tuple[float, float], ...]:
    """The centres of a link's ``centres=`` text ("x,y;x,y;..."; "" is none).

    Raises ValueError naming the first bad entry: not two numbers, not finite or too far out, or more than
    MAX_PLACED centres."""
    text = str(text).strip()
    if not text:
        return ()
    entries = [entry for entry in text.split(";") if entry.strip()]
    if len(entries) > MAX_PLACED:
        raise Invalid("at most {most} centres, got {count}", most=MAX_PLACED, count=len(entries))
    placed = []
    for entry in entries:
        parts = entry.split(",")
        if len(parts) != 2:
            raise Invalid("“{entry}” is not one centre x,y", entry=entry.strip())
        try:
            placed.append(round_placed(*(float(part) for part in parts)))
        except ValueError:
            raise Invalid(
                "“{entry}” is not two finite numbers within ±{most:g}",
                entry=entry.strip(),
                most=MAX_COORDINATE,
            ) from None
    return tuple(placed)


def placed_centers(placed, k: int, dtype="float64") -> np.ndarray:
    """The starting centres (k, 2) in ``dtype``: the first k placed centres.

    Raises ValueError if fewer than k are placed (the message says how many more) or if two of the
    first k are at the same place (coincident centres never separate)."""
    placed = tuple(placed)
    if len(placed) < k:
        more = k - len(placed)
        if more == 1:
            raise Invalid(
                "the placed start needs k = {k} centres; {count} placed so far. Click 1 more place on the "
                "plane (On the plane: Place centres), or lower k.",
                k=k,
                count=len(placed),
            )
        raise Invalid(
            "the placed start needs k = {k} centres; {count} placed so far. Click {more} more places on the "
            "plane (On the plane: Place centres), or lower k.",
            k=k,
            count=len(placed),
            more=more,
        )
    centers = np.array(placed[:k], dtype=dtype).reshape(k, 2)
    for a in range(k):
        same = np.flatnonzero((centers[a + 1 :] == centers[a]).all(axis=1))
        if same.size:
            raise Invalid(
                "placed centres {a} and {b} are at the same place, so they would never separate. Drag one "
                "of them away.",
                a=a,
                b=a + 1 + int(same[0]),
            )
    return np.ascontiguousarray(centers)
