"""Every σ level of a scrubbed view, for ``rbfviz.views.figures.scrub.scrub_payload``.

The first level is a full figure (``ScrubLevel``); every other level whose figure has the same
structure is a ``ScrubPatch``: only the values that move with σ, built straight from that level's
arrays. The payload is the same, byte for byte, as one built from a full figure per level
(tests/unit/test_scrub_levels.py builds both).

* ``explorer_levels(planes, sigmas, ...)``  – the Explorer's plane at every σ.
* ``stability_levels(planes, X, centroids)`` – the Stability view's two planes at every σ.
* ``equivalence_levels(steps, resps, ...)``  – the Equivalence view's step at every σ.
* ``annealing_levels(view, X)``              – the Annealing view's plane at every σ of its path.
"""

from __future__ import annotations

from itertools import islice

import numpy as np

from . import describe
from .figures.annealing import animated_subset, hex_colors, trajectory_figure
from .figures.annealing import coord_values as coords
from .figures.equivalence import step_arrow_drawn, step_figure
from .figures.layout import png_data_uri
from .figures.palette import cluster_colors, mix_colors
from .figures.plane import explorer_figure, field_uris, plane_side_html
from .figures.presenter import presenter_figure
from .figures.scrub import RGBColors, ScrubLevel, ScrubPatch, metrics_html
from .figures.stability import stability_panels, stability_plane_figure

# Field images made together (``field_uris``): a few levels at a time keep the temporaries (float64
# per pixel of a level) as small as a single field's were.
IMAGE_LEVELS = 4


def _explorer_full(plane, sigma, title, kind, dtype, k, picks_traces, axes, drawn, presenter) -> ScrubLevel:
    fig = explorer_figure(
        plane.X,
        plane.resp,
        plane.centers,
        plane.kmeans_centers,
        plane.field,
        title=title,
        picks_traces=picks_traces,
        axes=axes,
        drawn=drawn,
    )
    return ScrubLevel(
        presenter_figure(fig) if presenter else fig,
        _explorer_side(plane, kind, k),
        describe.plane(plane.resp, plane.numbers, sigma, kind, dtype),
    )


def _explorer_side(plane, kind: str, k: int) -> str:
    info = plane.info
    shown = (
        f"Centres shown: {info.source} ({info.iterations} EM iteration(s), "
        f"{'converged' if info.converged else 'NOT converged within the iteration cap'})."
    )
    return plane_side_html(plane.numbers, kind, k, plane.note, shown)


def _explorer_patch(
    plane, sigma: float, title: str, kind: str, dtype: str, k: int, drawn, field_uri: str | None
) -> ScrubPatch:
    """The values of ``explorer_figure`` that move with σ: the points' colours and hover r (trace 0),
    the RBF centres (trace 1), the title and the field image (the figure's only image; ``field_uri`` is
    plane.field's PNG, or None when plane.field is None)."""
    resp = np.asarray(plane.resp, dtype=np.float64)
    if drawn is not None:
        resp = resp[drawn]
    centers = np.asarray(plane.centers, dtype=np.float64)
    sets = [
        (("data", 0, "customdata"), np.round(resp, 3).astype(np.float32)),
        (("data", 0, "marker", "color"), RGBColors(mix_colors(resp))),
        (("data", 1, "x"), centers[:, 0]),
        (("data", 1, "y"), centers[:, 1]),
        (("layout", "title", "text"), title),
    ]
    if field_uri is not None:
        sets.append((("layout", "images", 0, "source"), field_uri))
    return ScrubPatch(
        tuple(sets),
        _explorer_side(plane, kind, k),
        describe.plane(plane.resp, plane.numbers, sigma, kind, dtype),
    )


def explorer_levels(
    planes,
    sigmas,
    head: str,
    kind: str,
    dtype: str,
    k: int,
    picks_traces=(),
    axes: tuple[str, str] | None = None,
    drawn: np.ndarray | None = None,
    presenter: bool = False,
) -> list:
    """The Explorer's levels, one per σ of ``sigmas`` (S,).

    planes: an iterable (read once, in order) giving per σ an object with X (n, 2), resp (n, k),
    centers (k, 2), kmeans_centers (k, 2), field (``rbfviz.field.Field`` or None), numbers
    (``explore.plane_numbers`` dict or None), note (str or None) and info (source, iterations,
    converged), as ``ui.compute.plane_views`` gives them.
    head: the title before ", σ = …". A level whose field is missing when the first level's is not
    (or the other way round) has other traces, so it is a full figure.
    """
    levels = []
    first_has_field = None
    pairs = zip(planes, sigmas)
    while chunk := list(islice(pairs, IMAGE_LEVELS)):
        start = len(levels)
        if start == 0:
            first_has_field = chunk[0][0].field is not None
        # a level whose field is missing when the first level's is not (or the other way round) is full
        patched = [
            index > 0 and (plane.field is not None) == first_has_field
            for index, (plane, _) in enumerate(chunk, start)
        ]
        drawn_fields = [
            plane.field for (plane, _), patch in zip(chunk, patched) if patch and plane.field is not None
        ]
        uris = iter(field_uris(drawn_fields) if drawn_fields else [])
        for (plane, sigma), patch in zip(chunk, patched):
            sigma = float(sigma)
            title = f"{head}, σ = {sigma:.3g}"
            if not patch:
                levels.append(
                    _explorer_full(plane, sigma, title, kind, dtype, k, picks_traces, axes, drawn, presenter)
                )
                continue
            uri = next(uris) if plane.field is not None else None
            levels.append(_explorer_patch(plane, sigma, title, kind, dtype, k, drawn, uri))
    return levels


# --- Stability --------------------------------------------------------------------------------------


def _stability_full(plane, X, centroids, drawn, presenter) -> ScrubLevel:
    fig = stability_plane_figure(plane, X, centroids, drawn=drawn)
    return ScrubLevel(
        presenter_figure(fig) if presenter else fig,
        "",
        describe.stability_plane(plane, plane.sigma, plane.dtype),
    )


def _stability_patch(plane, X, centroids, keep) -> ScrubPatch:
    """The values of ``stability_plane_figure`` that move with σ: per panel its two point groups'
    positions (and the colours of the one drawn in cluster colours), its image and its title."""
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
    for panel, (title, rgb) in enumerate(stability_panels(plane, len(X))):
        sets += [
            (("layout", "annotations", panel, "text"), f"<b>{title}</b>"),
            (("layout", "images", panel, "source"), png_data_uri(rgb)),
        ]
    return ScrubPatch(tuple(sets), "", describe.stability_plane(plane, plane.sigma, plane.dtype))


def stability_levels(planes, X, centroids, drawn: np.ndarray | None = None, presenter: bool = False) -> list:
    """The Stability view's plane at every σ: one ``rbfviz.views.stability.StabilityPlane`` per σ (in σ
    order), the points X (n, 2) and the K-Means centroids (k, 2) it was computed at, ``drawn`` as in
    ``stability_plane_figure``."""
    keep = np.ones(len(X), dtype=bool)
    if drawn is not None:
        keep[:] = False
        keep[drawn] = True
    return [
        _stability_full(plane, X, centroids, drawn, presenter)
        if index == 0
        else _stability_patch(plane, X, centroids, keep)
        for index, plane in enumerate(planes)
    ]


# --- Equivalence ------------------------------------------------------------------------------------


def _equivalence_side(step) -> str:
    return metrics_html(
        [
            (
                "max |GD step − Lloyd step|",
                f"{step.gd_vs_lloyd:.3g}",
                "Largest coordinate difference between the two updated centre sets (data units).",
            ),
            (
                "max |GD step − soft centroid x̄|",
                f"{step.gd_vs_em:.1e}",
                "The identity c − η∇L_σ = x̄ at every σ: only rounding remains.",
            ),
            (None, "masses N_j at the start: " + ", ".join(f"{m:.3g}" for m in step.masses), ""),
        ]
    )


def equivalence_levels(steps, resps, sigmas, X, head: str, kind: str, presenter: bool = False) -> list:
    """The Equivalence view's step at every σ of ``sigmas`` (S,): ``steps`` the
    ``rbfviz.views.equivalence.OneStep`` and ``resps`` the responsibilities (n, k) at the start, per σ.

    A level is a patch when its gradient step draws an arrow for the same centres as the first
    level's (an arrow is left out where a centre does not move or is NaN); otherwise a full figure.
    """
    levels = []
    arrows0 = None
    for index, (step, resp, sigma) in enumerate(zip(steps, resps, sigmas)):
        sigma = float(sigma)
        title = f"{head}, σ = {sigma:.3g}"
        side, caption = _equivalence_side(step), describe.equivalence_step(step, sigma, kind)
        arrows = np.flatnonzero(step_arrow_drawn(step.start, step.gd))
        if index == 0:
            arrows0 = arrows
        if index == 0 or not np.array_equal(arrows, arrows0):
            fig = step_figure(X, resp, step, title=title)
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


# --- Annealing --------------------------------------------------------------------------------------


def annealing_levels(view, X, presenter: bool = False) -> list:
    """The Annealing view's plane at every σ of ``view.sigmas``: ``trajectory_figure(static=True)`` at
    the first, then per level the animated points' colours, the trails up to the level and the centres
    (the traces its animation frames update)."""
    centers = np.asarray(view.centers, dtype=np.float64)
    k = centers.shape[1]
    shown = animated_subset(np.asarray(X).shape[0])
    levels = []
    for s, sigma in enumerate(view.sigmas):
        caption = describe.annealing_plane(view, float(sigma))
        if s == 0:
            fig = trajectory_figure(view, X, float(sigma), static=True)
            levels.append(ScrubLevel(presenter_figure(fig) if presenter else fig, "", caption))
            continue
        level = view.level(float(sigma))
        sets = [(("data", 1, "marker", "color"), hex_colors(view.colors[level, shown]))]
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
