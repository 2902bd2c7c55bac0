"""The Explorer's "In words" descriptions: the plane at one σ, and the picked starting centres."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.measures import one_hot_rows
from rbfviz.views.common.words import count, number, percent


def plane(resp, numbers: dict | None, sigma: float, kind: str, dtype: str) -> str:
    """The Explorer's plane. resp (n, k) as drawn; numbers from ``explore.plane_numbers`` (or None)."""
    resp = np.asarray(resp)
    n, k = resp.shape
    head = f"{count(k, 'RBF centre')} at σ = {number(sigma)} ({kind}, {dtype}) on {count(n, 'point')}"
    if numbers is None:
        return head + ": the centres are NaN at this σ, so no responsibilities can be drawn."
    parts = []
    nan_rows = int(numbers["nan_rows"])
    if nan_rows:
        parts.append(f"{count(nan_rows, 'row')} of r {'is' if nan_rows == 1 else 'are'} NaN (grey)")
    else:
        parts.append(f"{percent(numbers['agreement'])} of the points have the same cluster as K-Means")
    hard = int(one_hot_rows(resp).sum())
    parts.append(f"{count(hard, 'row')} {'is' if hard == 1 else 'are'} exactly one-hot")
    parts.append(
        f"the mean entropy of r is {number(numbers['mean_entropy'])} nats (0 = hard, ln k = "
        f"{number(math.log(k))} = uniform)"
    )
    return head + ": " + ", ".join(parts[:-1]) + " and " + parts[-1] + "."


def picking(n: int, picks, k: int) -> str:
    """The Explorer while the custom start has fewer than k picked points."""
    picks = list(picks)
    shown = ", ".join(f"#{i}" for i in picks[:k]) if picks else "none yet"
    return (
        f"{count(n, 'point')} in grey; {len(picks)} of the {k} starting centres picked ({shown}); "
        f"click {k - len(picks)} more to start."
    )
