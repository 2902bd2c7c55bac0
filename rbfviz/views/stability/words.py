"""The Stability view's "In words" descriptions: the curves and the two planes at σ."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.kinds import KIND_LABELS


def _percent(fraction: float, tr: Translator) -> str:
    """A fraction as a percentage in ``tr``'s separators: 1 decimal, "100%" only when exactly 1 and "0%"
    only when exactly 0."""
    fraction = float(fraction)
    if math.isnan(fraction):
        return tr("n/a")
    if fraction in (0.0, 1.0):
        return f"{100 * fraction:.0f}%"
    return tr.number(min(max(100 * fraction, 0.1), 99.9), ".1f") + "%"


def stability_curves(rows, sigma: float, dtype: str, tr: Translator = ENGLISH) -> str:
    """The Stability view's curves, read at the current σ in ``dtype`` (rows of stability_table)."""
    here = [r for r in rows if r["dtype"] == dtype and math.isclose(r["sigma"], sigma, rel_tol=1e-9)]
    if not here:
        return tr("Every map across σ in float32 and float64; no row at σ = {sigma:.3g}.", sigma=sigma)
    parts = [
        tr(
            "{map} {nan} NaN rows and {hard} one-hot rows",
            map=tr(KIND_LABELS.get(r["kind"], r["kind"])),
            nan=_percent(r["nan_row_fraction"], tr),
            hard=_percent(r["hard_row_fraction"], tr),
        )
        for r in here
    ]
    return tr("At σ = {sigma:.3g} in {dtype}: {parts}.", sigma=sigma, dtype=dtype, parts="; ".join(parts))


def stability_plane(plane, sigma: float, dtype: str, tr: Translator = ENGLISH) -> str:
    """Where naive is NaN and entmax-1.5 exactly one-hot; ``plane``: a stability.arrays.StabilityPlane."""
    n = len(plane.point_label)
    nan = int(np.count_nonzero(plane.point_naive_nan))
    hard = int(np.count_nonzero(plane.point_entmax_hard))
    return tr(
        "At σ = {sigma:.3g} in {dtype}: the naive map is NaN for {nan:,} of {n:,} points ({nan_share} of the "
        "plane) and entmax-1.5 is exactly one-hot for {hard:,} of {n:,} points ({hard_share} of the plane).",
        sigma=sigma,
        dtype=dtype,
        nan=nan,
        n=n,
        nan_share=_percent(np.mean(plane.naive_nan), tr),
        hard=hard,
        hard_share=_percent(np.mean(plane.entmax_hard), tr),
    )
