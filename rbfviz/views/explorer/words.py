"""The Explorer's "In words" descriptions: the plane at one σ, and the picked starting centres."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.measures import one_hot_rows
from rbfviz.views.common.words import percent


def plane(resp, numbers: dict | None, sigma: float, kind: str, dtype: str, tr: Translator = ENGLISH) -> str:
    """The Explorer's plane. resp (n, k) as drawn; numbers from ``explore.plane_numbers`` (or None)."""
    resp = np.asarray(resp)
    n, k = resp.shape
    centres = tr.ngettext("{n:,} RBF centre", "{n:,} RBF centres", k)
    points = tr.ngettext("{n:,} point", "{n:,} points", n)
    if numbers is None:
        return tr(
            "{centres} at σ = {sigma:.3g} ({kind}, {dtype}) on {points}: the centres are NaN at this σ, so "
            "no responsibilities can be drawn.",
            centres=centres,
            sigma=float(sigma) + 0.0,
            kind=kind,
            dtype=dtype,
            points=points,
        )
    nan_rows = int(numbers["nan_rows"])
    if nan_rows:
        first = tr.ngettext("{n:,} row of r is NaN (grey)", "{n:,} rows of r are NaN (grey)", nan_rows)
    else:
        first = tr(
            "{share} of the points have the same cluster as K-Means",
            share=percent(numbers["agreement"], tr),
        )
    hard = int(one_hot_rows(resp).sum())
    return tr(
        "{centres} at σ = {sigma:.3g} ({kind}, {dtype}) on {points}: {first}, {one_hot} and the mean "
        "entropy of r is {entropy:.3g} nats (0 = hard, ln k = {uniform:.3g} = uniform).",
        centres=centres,
        sigma=float(sigma) + 0.0,
        kind=kind,
        dtype=dtype,
        points=points,
        first=first,
        one_hot=tr.ngettext("{n:,} row is exactly one-hot", "{n:,} rows are exactly one-hot", hard),
        entropy=float(numbers["mean_entropy"]) + 0.0,
        uniform=math.log(k),
    )


def picking(n: int, picks, k: int, tr: Translator = ENGLISH) -> str:
    """The Explorer while the custom start has fewer than k picked points."""
    picks = list(picks)
    shown = ", ".join(f"#{i}" for i in picks[:k]) if picks else tr("none yet")
    return tr(
        "{points} in grey; {picked} of the {k} starting centres picked ({shown}); click {more} more "
        "to start.",
        more=k - len(picks),
        points=tr.ngettext("{n:,} point", "{n:,} points", n),
        picked=len(picks),
        k=k,
        shown=shown,
    )
