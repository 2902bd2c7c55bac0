"""The Annealing view's "In words" descriptions: the plane at σ, the bifurcation diagram and the collapse
curve."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.views.common.words import count, number


def _distinct_centres(centers: np.ndarray, scale: float) -> int:
    """How many of the centres (k, d) are distinct, merging those closer than 1% of ``scale``."""
    if not np.isfinite(centers).all():
        return 0
    groups: list[np.ndarray] = []
    for c in centers:
        if all(np.linalg.norm(c - g) > 0.01 * scale for g in groups):
            groups.append(c)
    return len(groups)


def annealing_plane(view, sigma: float) -> str:
    """The annealing animation, opened at σ (``rbfviz.views.annealing.arrays.AnnealingView``)."""
    s = view.level(sigma)
    k = view.centers.shape[1]
    scale = math.sqrt(max(view.lambda_max, 1e-300))
    distinct = _distinct_centres(np.asarray(view.centers[s], np.float64), scale)
    state = (
        "the centres are NaN (the map broke)"
        if distinct == 0
        else f"the {k} centres sit at {count(distinct, 'distinct place')}"
    )
    return (
        f"Annealing {k} centres from the data mean over {len(view.sigmas)} σ levels ({view.kind}, "
        f"{view.dtype}); shown at level {s + 1}, σ = {number(view.sigmas[s])}, where {state}."
    )


def bifurcation(view) -> str:
    """The bifurcation diagram: predicted and measured first split."""
    measured = view.sigma_critical_measured
    split = (
        "the centres never split on this grid"
        if measured is None
        else f"the centres first split at σ = {number(measured)} (measured on the grid)"
    )
    return (
        f"Centre positions along the principal axis against σ: predicted first split σ_c = "
        f"{number(view.sigma_critical_predicted)}; {split}."
    )


def collapse(view, sigma: float) -> str:
    """E(σ) on log-log axes with the fitted slope."""
    s = view.level(sigma)
    error = float(view.error[s])
    here = "not computed above σ_c" if math.isnan(error) else "exactly 0" if error == 0 else number(error)
    slope = view.slope.slope
    fit = f"fitted log-log slope {slope:.2f}" if math.isfinite(slope) else "too few points for a slope fit"
    exact = view.sigma_exact_measured
    zero = (
        "E never reaches 0 on this grid" if exact is None else f"E = 0 exactly from σ = {number(exact)} down"
    )
    return (
        f"Distance E(σ) from the soft fixed point to K-Means: {fit}; {zero}; at the current σ = "
        f"{number(view.sigmas[s])} E is {here}."
    )
