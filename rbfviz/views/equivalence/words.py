"""The Equivalence view's "In words" descriptions: one step, the two paths, and the gap L_σ − J."""

from __future__ import annotations

import math

import numpy as np

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.sigma import nearest_index


def _number(tr: Translator, x: float, digits: int = 3) -> str:
    """x with ``digits`` significant digits in ``tr``'s separators; "NaN" for NaN, "0" (never "-0")."""
    x = float(x) + 0.0  # -0.0 + 0.0 is +0.0
    return "NaN" if math.isnan(x) else tr.number(x, f".{digits}g")


def equivalence_step(step, sigma: float, kind: str, tr: Translator = ENGLISH) -> str:
    """One gradient step next to one Lloyd step (``equivalence.OneStep``)."""
    k = step.start.shape[0]
    # the numbers first: a bare ``tr`` inside the call's arguments would hide the plural from extraction
    sigma_text, em, lloyd = _number(tr, sigma), _number(tr, step.gd_vs_em, 2), _number(tr, step.gd_vs_lloyd)
    return tr.ngettext(
        "From the same {n:,} starting centre at σ = {sigma} ({kind}), one gradient step with "
        "η_j = 1/(2N_j) lands on the soft centroids (largest difference {em}) and differs from one Lloyd "
        "step by at most {lloyd} data units.",
        "From the same {n:,} starting centres at σ = {sigma} ({kind}), one gradient step with "
        "η_j = 1/(2N_j) lands on the soft centroids (largest difference {em}) and differs from one Lloyd "
        "step by at most {lloyd} data units.",
        k,
        sigma=sigma_text,
        kind=kind,
        em=em,
        lloyd=lloyd,
    )


def trajectories(traj, tr: Translator = ENGLISH) -> str:
    """The two training paths (``equivalence.Trajectories``)."""
    steps = traj.gd.shape[0] - 1
    final = float(traj.difference[-1])
    tail = (
        tr("NaN (the map broke)")
        if math.isnan(final)
        else tr("{distance} data units apart", distance=_number(tr, final))
    )
    return tr(
        "{steps} gradient-descent steps and {steps} Lloyd steps from the same start at σ = {sigma} "
        "({kind}): after the last step the two paths are {tail}.",
        steps=steps,
        sigma=_number(tr, traj.sigma),
        kind=traj.kind,
        tail=tail,
    )


def path_difference(traj, tr: Translator = ENGLISH) -> str:
    """max |c_GD − c_Lloyd| against the step number (log scale)."""
    diff = np.asarray(traj.difference, dtype=np.float64)
    finite = diff[np.isfinite(diff)]
    zeros = int(np.count_nonzero(diff[1:] == 0))
    zero_text = (
        tr.ngettext("; exactly 0 after {n:,} step", "; exactly 0 after {n:,} steps", zeros) if zeros else ""
    )
    peak = _number(tr, finite.max()) if finite.size else "NaN"
    return tr(
        "The largest coordinate difference between the two paths over {steps} steps: at most {peak}, "
        "{last} after the last step{zeros}.",
        steps=len(diff) - 1,
        peak=peak,
        last=_number(tr, diff[-1]),
        zeros=zero_text,
    )


def gap_curve(curve, sigma: float, kind: str, tr: Translator = ENGLISH) -> str:
    """L_σ − J against σ with its bound (``equivalence.GapCurve``); the current σ is marked."""
    i = nearest_index(curve.sigmas, sigma)
    zeros = int(np.count_nonzero(curve.gap == 0))
    within = int(np.count_nonzero(curve.within))
    total = len(curve.sigmas)
    bound_text = (
        tr("inside its bound at every σ")
        if within == total
        else tr("inside its bound at {within} of {total} σ values", within=within, total=total)
    )
    zero_text = (
        tr.ngettext(", exactly 0 at {n:,} σ value", ", exactly 0 at {n:,} σ values", zeros) if zeros else ""
    )
    return tr(
        "L_σ − J at the K-Means centroids ({kind}) over {total} σ values from {high} to {low}: "
        "{bound_text}{zero_text}; at the current σ = {sigma} it is {gap} against a bound of {bound}.",
        kind=kind,
        total=total,
        high=_number(tr, curve.sigmas.max()),
        low=_number(tr, curve.sigmas.min()),
        bound_text=bound_text,
        zero_text=zero_text,
        sigma=_number(tr, sigma),
        gap=_number(tr, curve.gap[i]),
        bound=_number(tr, curve.bound[i]),
    )
