"""The Equivalence view's "In words" descriptions: one step, the two paths, and the gap L_σ − J."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.views.common.sigma import nearest_index
from rbfviz.views.common.words import count, number


def equivalence_step(step, sigma: float, kind: str) -> str:
    """One gradient step next to one Lloyd step (``equivalence.OneStep``)."""
    k = step.start.shape[0]
    return (
        f"From the same {count(k, 'starting centre')} at σ = {number(sigma)} ({kind}), one gradient step "
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
    zero_text = f"; exactly 0 after {count(zeros, 'step')}" if zeros else ""
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
    zero_text = f", exactly 0 at {count(zeros, 'σ value')}" if zeros else ""
    return (
        f"L_σ − J at the K-Means centroids ({kind}) over {total} σ values from {number(curve.sigmas.max())} "
        f"to {number(curve.sigmas.min())}: {bound_text}{zero_text}; at the current σ = {number(sigma)} it is "
        f"{number(curve.gap[i])} against a bound of {number(curve.bound[i])}."
    )
