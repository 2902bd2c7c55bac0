"""Every σ level of a scrubbed view, for ``rbfviz.views.common.scrub.scrub_payload``.

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

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.palette import mix_colors
from rbfviz.views.common.presenter import presenter_figure
from rbfviz.views.common.scrub import RGBColors, ScrubLevel, ScrubPatch
from rbfviz.views.explorer import words as explorer_words
from rbfviz.views.explorer.arrays import note_in
from rbfviz.views.explorer.figures import explorer_figure, field_uris, plane_side_html

# Field images made together (``field_uris``): a few levels at a time keep the temporaries (float64
# per pixel of a level) as small as a single field's were.
IMAGE_LEVELS = 4


def _explorer_full(
    plane, sigma, title, kind, dtype, k, picks_traces, axes, drawn, presenter, tr: Translator
) -> ScrubLevel:
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
        tr=tr,
    )
    return ScrubLevel(
        presenter_figure(fig) if presenter else fig,
        _explorer_side(plane, sigma, kind, dtype, k, tr),
        explorer_words.plane(plane.resp, plane.numbers, sigma, kind, dtype, tr=tr),
    )


def _explorer_side(plane, sigma: float, kind: str, dtype: str, k: int, tr: Translator) -> str:
    info = plane.info
    ended = tr("converged") if info.converged else tr("NOT converged within the iteration cap")
    shown = tr.ngettext(
        "Centres shown: {source} ({n} EM iteration, {ended}).",
        "Centres shown: {source} ({n} EM iterations, {ended}).",
        info.iterations,
        source=tr(info.source),
        ended=ended,
    )
    return plane_side_html(plane.numbers, kind, k, note_in(plane, sigma, dtype, tr), shown, tr=tr)


def _explorer_patch(
    plane,
    sigma: float,
    title: str,
    kind: str,
    dtype: str,
    k: int,
    drawn,
    field_uri: str | None,
    tr: Translator,
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
        _explorer_side(plane, sigma, kind, dtype, k, tr),
        explorer_words.plane(plane.resp, plane.numbers, sigma, kind, dtype, tr=tr),
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
    tr: Translator = ENGLISH,
) -> list:
    """The Explorer's levels, one per σ of ``sigmas`` (S,).

    planes: an iterable (read once, in order) giving per σ an object with X (n, 2), resp (n, k),
    centers (k, 2), kmeans_centers (k, 2), field (``rbfviz.field.Field`` or None), numbers
    (``explore.plane_numbers`` dict or None), note (str or None) and info (source, iterations,
    converged), as ``ui.compute.plane_views`` gives them.
    head: the title before ", σ = …" (in ``tr``'s language, like every word of the levels). A level whose
    field is missing when the first level's is not (or the other way round) has other traces, so it is a
    full figure.
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
            title = tr.format("{head}, σ = {sigma:.3g}", head=head, sigma=sigma)
            if not patch:
                levels.append(
                    _explorer_full(
                        plane, sigma, title, kind, dtype, k, picks_traces, axes, drawn, presenter, tr
                    )
                )
                continue
            uri = next(uris) if plane.field is not None else None
            levels.append(_explorer_patch(plane, sigma, title, kind, dtype, k, drawn, uri, tr))
    return levels


# --- Stability --------------------------------------------------------------------------------------


# --- Equivalence ------------------------------------------------------------------------------------


# --- Annealing --------------------------------------------------------------------------------------
