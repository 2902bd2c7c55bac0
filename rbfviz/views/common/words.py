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

from rbfviz.i18n import ENGLISH, Translator


def number(x: float, digits: int = 3, tr: Translator = ENGLISH) -> str:
    """x with ``digits`` significant digits in ``tr``'s decimal separator; "NaN" for NaN, and "0" (never
    "-0") for zero."""
    x = float(x) + 0.0  # -0.0 + 0.0 is +0.0: the entropy of one-hot rows is -0.0
    return "NaN" if math.isnan(x) else tr.number(x, f".{digits}g")


def percent(fraction: float, tr: Translator = ENGLISH) -> str:
    """A fraction as a percentage: 1 decimal (in ``tr``'s separator), "100%" only when exactly 1 and "0%"
    only when exactly 0."""
    fraction = float(fraction)
    if math.isnan(fraction):
        return tr("n/a")
    if fraction == 1.0:
        return "100%"
    if fraction == 0.0:
        return "0%"
    return tr.number(min(max(100 * fraction, 0.1), 99.9), ".1f") + "%"
