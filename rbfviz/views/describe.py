"""One-sentence text descriptions of what each figure currently shows, generated from its numbers.

They go under every figure: for screen readers (a Plotly chart is opaque to them), for the back row
of a classroom, and as a check that the picture says what the numbers say. Each function takes the
same arrays/results the figure was drawn from and returns one plain sentence (no Markdown).

* ``plane``            the Explorer's plane: centres, σ, agreement with K-Means, one-hot and NaN rows.
* ``picking``          the Explorer while starting centres are being picked.
* ``equivalence_step``, ``trajectories``, ``gap_curve``   the Equivalence view's three figures.
* ``annealing_plane``, ``bifurcation``, ``collapse``       the Annealing view's three figures.
* ``stability_curves``, ``stability_plane``               the Stability view's two figures.
"""

from __future__ import annotations

import math

import numpy as np

from ..measures import one_hot_rows
from .explore import nearest_index


def number(x: float, digits: int = 3) -> str:
    """x with ``digits`` significant digits; "NaN" for NaN."""
    x = float(x)
    return "NaN" if math.isnan(x) else f"{x:.{digits}g}"


def percent(fraction: float) -> str:
    """A fraction as a percentage: 1 decimal, "100%" only when exactly 1 and "0%" only when exactly 0."""
    fraction = float(fraction)
    if math.isnan(fraction):
        return "n/a"
    if fraction == 1.0:
        return "100%"
    if fraction == 0.0:
        return "0%"
    return f"{min(max(100 * fraction, 0.1), 99.9):.1f}%"


def _count(n: int, thing: str, plural: str | None = None) -> str:
    return f"{n:,} {thing if n == 1 else (plural or thing + 's')}"


def plane(resp, numbers: dict | None, sigma: float, kind: str, dtype: str) -> str:
    """The Explorer's plane. resp (n, k) as drawn; numbers from ``explore.plane_numbers`` (or None)."""
    resp = np.asarray(resp)
    n, k = resp.shape
    head = f"{_count(k, 'RBF centre')} at σ = {number(sigma)} ({kind}, {dtype}) on {_count(n, 'point')}"
    if numbers is None:
        return head + ": the centres are NaN at this σ, so no responsibilities can be drawn."
    parts = []
    nan_rows = int(numbers["nan_rows"])
    if nan_rows:
        parts.append(f"{_count(nan_rows, 'row')} of r {'is' if nan_rows == 1 else 'are'} NaN (grey)")
    else:
        parts.append(f"{percent(numbers['agreement'])} of the points have the same cluster as K-Means")
    hard = int(one_hot_rows(resp).sum())
    parts.append(f"{_count(hard, 'row')} {'is' if hard == 1 else 'are'} exactly one-hot")
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
        f"{_count(n, 'point')} in grey; {len(picks)} of the {k} starting centres picked ({shown}); "
        f"click {k - len(picks)} more to start."
    )


def equivalence_step(step, sigma: float, kind: str) -> str:
    """One gradient step next to one Lloyd step (``equivalence.OneStep``)."""
    k = step.start.shape[0]
    return (
        f"From the same {_count(k, 'starting centre')} at σ = {number(sigma)} ({kind}), one gradient step "
        f"with η_j = 1/(2N_j) lands on the soft centroids (largest difference {number(step.gd_vs_em, 2)}) "
        f"and differs from one Lloyd step by at most {number(step.gd_vs_lloyd)} data units."
    )


def trajectories(traj) -> str:
    """The two training paths (``equivalence.Trajectories``)."""
    steps = traj.gd.shape[0] - 1
    final = float(traj.difference[-1])
    tail = "NaN (the map broke)" if math.isnan(final) else f"{number(final)} data units apart"
    return (
        f"{steps} gradient-descent steps and {steps} Lloyd steps from the same start at σ = "
        f"{number(traj.sigma)} ({traj.kind}): after the last step the two paths are {tail}."
    )


def path_difference(traj) -> str:
    """max |c_GD − c_Lloyd| against the step number (log scale)."""
    diff = np.asarray(traj.difference, dtype=np.float64)
    finite = diff[np.isfinite(diff)]
    zeros = int(np.count_nonzero(diff[1:] == 0))
    zero_text = f"; exactly 0 after {_count(zeros, 'step')}" if zeros else ""
    peak = number(finite.max()) if finite.size else "NaN"
    return (
        f"The largest coordinate difference between the two paths over {len(diff) - 1} steps: at most "
        f"{peak}, {number(diff[-1])} after the last step{zero_text}."
    )


def gap_curve(curve, sigma: float, kind: str) -> str:
    """L_σ − J against σ with its bound (``equivalence.GapCurve``); the current σ is marked."""
    i = nearest_index(curve.sigmas, sigma)
    zeros = int(np.count_nonzero(curve.gap == 0))
    within = int(np.count_nonzero(curve.within))
    total = len(curve.sigmas)
    bound_text = (
        "inside its bound at every σ"
        if within == total
        else f"inside its bound at {within} of {total} σ values"
    )
    zero_text = f", exactly 0 at {_count(zeros, 'σ value')}" if zeros else ""
    return (
        f"L_σ − J at the K-Means centroids ({kind}) over {total} σ values from {number(curve.sigmas.max())} "
        f"to {number(curve.sigmas.min())}: {bound_text}{zero_text}; at the current σ = {number(sigma)} it is "
        f"{number(curve.gap[i])} against a bound of {number(curve.bound[i])}."
    )


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
    """The annealing animation, opened at σ (``rbfviz.views.annealing.AnnealingView``)."""
    s = view.level(sigma)
    k = view.centers.shape[1]
    scale = math.sqrt(max(view.lambda_max, 1e-300))
    distinct = _distinct_centres(np.asarray(view.centers[s], np.float64), scale)
    state = (
        "the centres are NaN (the map broke)"
        if distinct == 0
        else f"the {k} centres sit at {_count(distinct, 'distinct place')}"
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


def stability_curves(rows, sigma: float, dtype: str) -> str:
    """The Stability view's curves, read at the current σ in ``dtype`` (rows of stability_table)."""
    here = [r for r in rows if r["dtype"] == dtype and math.isclose(r["sigma"], sigma, rel_tol=1e-9)]
    if not here:
        return f"Every map across σ in float32 and float64; no row at σ = {number(sigma)}."
    parts = []
    for r in here:
        parts.append(
            f"{r['kind']} {percent(r['nan_row_fraction'])} NaN rows and "
            f"{percent(r['hard_row_fraction'])} one-hot rows"
        )
    return f"At σ = {number(sigma)} in {dtype}: " + "; ".join(parts) + "."


def stability_plane(plane, sigma: float, dtype: str) -> str:
    """Where naive is NaN and entmax15 exactly one-hot (``rbfviz.views.stability.StabilityPlane``)."""
    n = len(plane.point_label)
    nan = int(np.count_nonzero(plane.point_naive_nan))
    hard = int(np.count_nonzero(plane.point_entmax_hard))
    return (
        f"At σ = {number(sigma)} in {dtype}: the naive map is NaN for {nan:,} of {n:,} points "
        f"({percent(np.mean(plane.naive_nan))} of the plane) and entmax-1.5 is exactly one-hot for {hard:,} "
        f"of {n:,} points ({percent(np.mean(plane.entmax_hard))} of the plane)."
    )
