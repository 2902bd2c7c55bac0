"""The Annealing view's σ levels: its plane at every σ of the path, for
``rbfviz.views.common.scrub.scrub_payload``."""

from __future__ import annotations

import numpy as np

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.annealing import words as annealing_words
from rbfviz.views.annealing.figures import animated_subset, trajectory_figure
from rbfviz.views.annealing.figures import coord_values as coords
from rbfviz.views.common.presenter import presenter_figure
from rbfviz.views.common.scrub import RGBColors, ScrubLevel, ScrubPatch


def annealing_levels(view, X, presenter: bool = False, tr: Translator = ENGLISH) -> list:
    """The Annealing view's plane at every σ of ``view.sigmas``: ``trajectory_figure(static=True)`` at
    the first, then per level the animated points' colours, the trails up to the level and the centres
    (the traces its animation frames update); its words in ``tr``'s language."""
    centers = np.asarray(view.centers, dtype=np.float64)
    k = centers.shape[1]
    shown = animated_subset(np.asarray(X).shape[0])
    levels = []
    for s, sigma in enumerate(view.sigmas):
        caption = annealing_words.annealing_plane(view, float(sigma), tr=tr)
        if s == 0:
            fig = trajectory_figure(view, X, float(sigma), static=True, tr=tr)
            levels.append(ScrubLevel(presenter_figure(fig) if presenter else fig, "", caption))
            continue
        level = view.level(float(sigma))
        sets = [(("data", 1, "marker", "color"), RGBColors(view.colors[level, shown], "hex"))]
        for j in range(k):
            sets += [
                (("data", k + 2 + j, "x"), coords(centers[: level + 1, j, 0])),
                (("data", k + 2 + j, "y"), coords(centers[: level + 1, j, 1])),
            ]
        sets += [
            (("data", 2 * k + 2, "x"), coords(centers[level, :, 0])),
            (("data", 2 * k + 2, "y"), coords(centers[level, :, 1])),
        ]
        levels.append(ScrubPatch(tuple(sets), "", caption))
    return levels
