"""Points drawn by hand on the plane: their compact text form, which a link carries (``points=``).

The text is ``"<e>.<base64url>"``: the points lie on a grid of step 10^e data units, and the base64url
(no padding) holds each point's two grid coordinates as little-endian int16, point after point. The
step is the finest power of ten, down to ``FINEST_STEP`` (a thousandth), at which every coordinate fits
in an int16, so points within ±32.767 keep three decimals; a point costs 5⅓ characters, and the cap of
``MAX_DRAWN`` points keeps a link under 2,000 characters. ``"-3."`` (or ``""``) is no points.

* ``snap_points(X)``      – X (n, 2) moved to the grid the text writes (what a round trip gives back).
* ``encode_points(X)``    – the text of X (n, 2), n <= MAX_DRAWN.
* ``decode_points(text)`` – X (n, 2) float64 from a text, or a ValueError saying what is wrong.

Pure numpy and the standard library: a link is decoded before anything else runs.
"""

from __future__ import annotations

import base64
import binascii
import re

import numpy as np

from .i18n import Invalid

MAX_DRAWN = 300
FINEST_EXPONENT = -3  # the grid's finest step, 10^-3 data units
COARSEST_EXPONENT = 12  # points up to ±3.3e16: far beyond any data a plane shows
_INT16_MAX = 32767
_TEXT = re.compile(r"^(-?\d{1,2})\.([A-Za-z0-9_-]*)$")


def _exponent(X: np.ndarray) -> int:
    """The finest grid exponent e >= FINEST_EXPONENT at which every |x| / 10^e rounds to an int16."""
    top = float(np.abs(X).max()) if X.size else 0.0
    e = FINEST_EXPONENT
    while round(top / 10.0**e) > _INT16_MAX:
        e += 1
    return e


def _checked(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64).reshape(-1, 2) if np.size(X) else np.zeros((0, 2))
    if not np.isfinite(X).all():
        raise Invalid("drawn points must be finite numbers.")
    if len(X) > MAX_DRAWN:
        raise Invalid("at most {most} points can be drawn, got {count}.", most=MAX_DRAWN, count=len(X))
    if X.size and float(np.abs(X).max()) > _INT16_MAX * 10.0**COARSEST_EXPONENT:
        raise Invalid("drawn points must lie within ±3e16 data units.")
    return X


def _grid(X: np.ndarray) -> tuple[int, np.ndarray]:
    e = _exponent(X)
    return e, np.rint(X / 10.0**e).astype(np.int16)


def snap_points(X) -> np.ndarray:
    """X (n, 2) on the grid ``encode_points`` writes: ``decode_points(encode_points(X))``, float64."""
    X = _checked(X)
    e, cells = _grid(X)
    return cells.astype(np.float64) * 10.0**e


def encode_points(X) -> str:
    """The text of X (n, 2) (n <= MAX_DRAWN, finite): "<e>.<base64url of int16 pairs>"."""
    X = _checked(X)
    e, cells = _grid(X)
    raw = cells.astype("<i2").tobytes()
    return f"{e}." + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_points(text: str) -> np.ndarray:
    """X (n, 2) float64 of a text written by ``encode_points`` ("" is no points).

    Raises ValueError saying what is wrong: not "<e>.<base64url>", e out of range, bytes that are not
    whole points, or more than MAX_DRAWN points."""
    text = str(text).strip()
    if not text:
        return np.zeros((0, 2))
    match = _TEXT.match(text)
    if match is None:
        raise Invalid(
            "drawn points are written “<e>.<letters, digits, - and _>” (as the app writes them), "
            "got “{text}”",
            text=text[:40] + ("…" if len(text) > 40 else ""),
        )
    e, body = int(match.group(1)), match.group(2)
    if not FINEST_EXPONENT <= e <= COARSEST_EXPONENT:
        raise Invalid(
            "the grid exponent must be from {low} to {high}, got {e}",
            low=FINEST_EXPONENT,
            high=COARSEST_EXPONENT,
            e=e,
        )
    if len(body) % 4 == 1:
        raise Invalid("the point data are cut off (a base64 text cannot have that length)")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise Invalid("the point data are not base64url") from None
    if base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") != body:
        raise Invalid("the point data are cut off (stray bits at the end)")
    if len(raw) % 4:
        raise Invalid("the point data are cut off (not a whole number of points)")
    n = len(raw) // 4
    if n > MAX_DRAWN:
        raise Invalid("at most {most} points can be drawn, the link has {count}", most=MAX_DRAWN, count=n)
    cells = np.frombuffer(raw, dtype="<i2").reshape(n, 2)
    return cells.astype(np.float64) * 10.0**e
