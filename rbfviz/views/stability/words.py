"""The Stability view's "In words" descriptions: the curves and the two planes at σ."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.views.common.kinds import KIND_LABELS
from rbfviz.views.common.words import number, percent


def stability_curves(rows, sigma: float, dtype: str) -> str:
    """The Stability view's curves, read at the current σ in ``dtype`` (rows of stability_table)."""
    here = [r for r in rows if r["dtype"] == dtype and math.isclose(r["sigma"], sigma, rel_tol=1e-9)]
    if not here:
        return f"Every map across σ in float32 and float64; no row at σ = {number(sigma)}."
    parts = []
    for r in here:
        parts.append(
            f"{KIND_LABELS.get(r['kind'], r['kind'])} {percent(r['nan_row_fraction'])} NaN rows and "
            f"{percent(r['hard_row_fraction'])} one-hot rows"
        )
    return f"At σ = {number(sigma)} in {dtype}: " + "; ".join(parts) + "."


def stability_plane(plane, sigma: float, dtype: str) -> str:
    """Where naive is NaN and entmax-1.5 exactly one-hot; ``plane``: a stability.arrays.StabilityPlane."""
    n = len(plane.point_label)
    nan = int(np.count_nonzero(plane.point_naive_nan))
    hard = int(np.count_nonzero(plane.point_entmax_hard))
    return (
        f"At σ = {number(sigma)} in {dtype}: the naive map is NaN for {nan:,} of {n:,} points "
        f"({percent(np.mean(plane.naive_nan))} of the plane) and entmax-1.5 is exactly one-hot for {hard:,} "
        f"of {n:,} points ({percent(np.mean(plane.entmax_hard))} of the plane)."
    )
