"""The Annealing view's "In words" descriptions: the plane at σ, the bifurcation diagram and the collapse
curve."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.i18n import ENGLISH, Translator


def _distinct_centres(centers: np.ndarray, scale: float) -> int:
    """How many of the centres (k, d) are distinct, merging those closer than 1% of ``scale``."""
    if not np.isfinite(centers).all():
        return 0
    groups: list[np.ndarray] = []
    for c in centers:
        if all(np.linalg.norm(c - g) > 0.01 * scale for g in groups):
            groups.append(c)
    return len(groups)


def annealing_plane(view, sigma: float, tr: Translator = ENGLISH) -> str:
    """The annealing animation, opened at σ (``rbfviz.views.annealing.arrays.AnnealingView``)."""
    s = view.level(sigma)
    k = view.centers.shape[1]
    scale = math.sqrt(max(view.lambda_max, 1e-300))
    distinct = _distinct_centres(np.asarray(view.centers[s], np.float64), scale)
    state = (
        tr("the centres are NaN (the map broke)")
        if distinct == 0
        else tr.ngettext(
            "the {k} centres sit at {n:,} distinct place",
            "the {k} centres sit at {n:,} distinct places",
            distinct,
            k=k,
        )
    )
    return tr(
        "Annealing {k} centres from the data mean over {levels} σ levels ({kind}, {dtype}); shown at level "
        "{level}, σ = {sigma:.3g}, where {state}.",
        k=k,
        levels=len(view.sigmas),
        kind=view.kind,
        dtype=view.dtype,
        level=s + 1,
        sigma=float(view.sigmas[s]),
        state=state,
    )


def bifurcation(view, tr: Translator = ENGLISH) -> str:
    """The bifurcation diagram: predicted and measured first split."""
    measured = view.sigma_critical_measured
    split = (
        tr("the centres never split on this grid")
        if measured is None
        else tr("the centres first split at σ = {sigma:.3g} (measured on the grid)", sigma=float(measured))
    )
    return tr(
        "Centre positions along the principal axis against σ: predicted first split σ_c = {predicted:.3g}; "
        "{split}.",
        predicted=float(view.sigma_critical_predicted),
        split=split,
    )


def collapse(view, sigma: float, tr: Translator = ENGLISH) -> str:
    """E(σ) on log-log axes with the fitted slope."""
    s = view.level(sigma)
    error = float(view.error[s])
    if math.isnan(error):
        here = tr("not computed above σ_c")
    elif error == 0:
        here = tr("exactly 0")
    else:
        here = tr.number(error)
    slope = view.slope.slope
    fit = (
        tr("fitted log-log slope {slope:.2f}", slope=slope)
        if math.isfinite(slope)
        else tr("too few points for a slope fit")
    )
    exact = view.sigma_exact_measured
    zero = (
        tr("E never reaches 0 on this grid")
        if exact is None
        else tr("E = 0 exactly from σ = {sigma:.3g} down", sigma=float(exact))
    )
    return tr(
        "Distance E(σ) from the soft fixed point to K-Means: {fit}; {zero}; at the current σ = "
        "{sigma:.3g} E is "
        "{here}.",
        fit=fit,
        zero=zero,
        sigma=float(view.sigmas[s]),
        here=here,
    )
