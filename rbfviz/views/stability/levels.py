"""The Stability view's σ levels: its two planes at every σ, for
``rbfviz.views.common.scrub.scrub_payload``."""

from __future__ import annotations

import numpy as np

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.palette import cluster_colors
from rbfviz.views.common.presenter import presenter_figure
from rbfviz.views.common.scrub import ScrubLevel, ScrubPatch
from rbfviz.views.stability import words as stability_words
from rbfviz.views.stability.figures import stability_panels, stability_plane_figure


def _stability_full(plane, X, centroids, drawn, presenter, tr: Translator) -> ScrubLevel:
    fig = stability_plane_figure(plane, X, centroids, drawn=drawn, tr=tr)
    return ScrubLevel(
        presenter_figure(fig) if presenter else fig,
        "",
        stability_words.stability_plane(plane, plane.sigma, plane.dtype, tr=tr),
    )


def _stability_patch(plane, X, centroids, keep, tr: Translator) -> ScrubPatch:
    """The values of ``stability_plane_figure`` that move with σ: per panel its two point groups'
    positions (and the colours of the one drawn in cluster colours), its image and its count of rows."""
    X = np.asarray(X, dtype=np.float64)
    colors = np.array(cluster_colors(np.asarray(centroids).shape[0]))
    sets = []
    groups = (
        (0, plane.point_naive_nan, False),
        (1, ~plane.point_naive_nan, True),
        (3, plane.point_entmax_hard, True),
        (4, ~plane.point_entmax_hard, False),
    )
    for trace, mask, coloured in groups:
        mask = mask & keep
        sets += [
            (("data", trace, "x"), X[mask, 0].astype(np.float32)),
            (("data", trace, "y"), X[mask, 1].astype(np.float32)),
        ]
        if coloured:
            sets.append((("data", trace, "marker", "color"), colors[plane.point_label[mask]].tolist()))
    for panel, (count, image) in enumerate(stability_panels(plane, len(X), tr)):
        sets += [
            (("layout", "annotations", panel, "text"), count),
            (("layout", "images", panel, "source"), image),
        ]
    return ScrubPatch(
        tuple(sets), "", stability_words.stability_plane(plane, plane.sigma, plane.dtype, tr=tr)
    )


def stability_levels(
    planes,
    X,
    centroids,
    drawn: np.ndarray | None = None,
    presenter: bool = False,
    tr: Translator = ENGLISH,
) -> list:
    """The Stability view's plane at every σ: one ``rbfviz.views.stability.arrays.StabilityPlane`` per σ (in σ
    order), the points X (n, 2) and the K-Means centroids (k, 2) it was computed at, ``drawn`` as in
    ``stability_plane_figure``; the words in ``tr``'s language."""
    keep = np.ones(len(X), dtype=bool)
    if drawn is not None:
        keep[:] = False
        keep[drawn] = True
    return [
        _stability_full(plane, X, centroids, drawn, presenter, tr)
        if index == 0
        else _stability_patch(plane, X, centroids, keep, tr)
        for index, plane in enumerate(planes)
    ]
