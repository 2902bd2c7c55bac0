"""The Equivalence view's σ levels: one GD step and one Lloyd step at every σ, for
``rbfviz.views.common.scrub.scrub_payload``."""

from __future__ import annotations

import numpy as np

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.palette import mix_colors
from rbfviz.views.common.plane import step_arrow_drawn
from rbfviz.views.common.presenter import presenter_figure
from rbfviz.views.common.scrub import RGBColors, ScrubLevel, ScrubPatch, metrics_html
from rbfviz.views.equivalence import words as equivalence_words
from rbfviz.views.equivalence.figures import step_figure


def _equivalence_side(step, tr: Translator = ENGLISH) -> str:
    return metrics_html(
        [
            (
                tr("max |GD step − Lloyd step|"),
                tr.number(step.gd_vs_lloyd, ".3g"),
                tr("Largest coordinate difference between the two updated centre sets (data units)."),
            ),
            (
                tr("max |GD step − soft centroid x̄|"),
                tr.number(step.gd_vs_em, ".1e"),
                tr("The identity c − η∇L_σ = x̄ at every σ: only rounding remains."),
            ),
            (
                None,
                tr(
                    "masses N_j at the start: {masses}",
                    masses="; ".join(tr.number(m, ".3g") for m in step.masses)
                    if tr.decimal_comma
                    else ", ".join(f"{m:.3g}" for m in step.masses),
                ),
                "",
            ),
        ]
    )


def equivalence_levels(
    steps, resps, sigmas, X, head: str, kind: str, presenter: bool = False, tr: Translator = ENGLISH
) -> list:
    """The Equivalence view's step at every σ of ``sigmas`` (S,): ``steps`` the
    ``rbfviz.views.equivalence.arrays.OneStep`` and ``resps`` the responsibilities (n, k) at the start, per σ.

    A level is a patch when its gradient step draws an arrow for the same centres as the first
    level's (an arrow is left out where a centre does not move or is NaN); otherwise a full figure.
    """
    levels = []
    arrows0 = None
    for index, (step, resp, sigma) in enumerate(zip(steps, resps, sigmas)):
        sigma = float(sigma)
        title = tr.format("{head}, σ = {sigma:.3g}", head=head, sigma=sigma)
        side = _equivalence_side(step, tr)
        caption = equivalence_words.equivalence_step(step, sigma, kind, tr=tr)
        arrows = np.flatnonzero(step_arrow_drawn(step.start, step.gd))
        if index == 0:
            arrows0 = arrows
        if index == 0 or not np.array_equal(arrows, arrows0):
            fig = step_figure(X, resp, step, title=title, tr=tr)
            levels.append(ScrubLevel(presenter_figure(fig) if presenter else fig, side, caption))
            continue
        colors = RGBColors(mix_colors(np.asarray(resp, dtype=np.float64)))
        gd = np.asarray(step.gd, dtype=np.float64)
        sets = [
            (("data", 0, "marker", "color"), colors),
            (("data", 2, "x"), gd[:, 0]),
            (("data", 2, "y"), gd[:, 1]),
            (("data", 3, "marker", "color"), colors),
            (("layout", "title", "text"), title),
        ]
        for position, j in enumerate(arrows):
            sets += [
                (("layout", "annotations", position, "x"), float(gd[j, 0])),
                (("layout", "annotations", position, "y"), float(gd[j, 1])),
            ]
        levels.append(ScrubPatch(tuple(sets), side, caption))
    return levels
