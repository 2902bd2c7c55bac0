"""Every σ level of a scrubbed view, for ``rbfviz.views.figures.scrub.scrub_payload``.

The first level is a full figure (``ScrubLevel``); every other level whose figure has the same
structure is a ``ScrubPatch``: only the values that move with σ, built straight from that level's
arrays. The payload is the same, byte for byte, as one built from a full figure per level
(tests/test_scrub_levels.py builds both).

* ``explorer_levels(planes, sigmas, ...)`` – the Explorer's plane at every σ.
"""

from __future__ import annotations

import numpy as np

from . import describe
from .figures.layout import png_data_uri
from .figures.palette import mix_colors, rgb_strings
from .figures.plane import explorer_figure, field_rgb, plane_side_html
from .figures.presenter import presenter_figure
from .figures.scrub import ScrubLevel, ScrubPatch


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


def _explorer_patch(plane, sigma: float, title: str, kind: str, dtype: str, k: int, drawn) -> ScrubPatch:
    """The values of ``explorer_figure`` that move with σ: the points' colours and hover r (trace 0),
    the RBF centres (trace 1), the title and the field image (the figure's only image)."""
    resp = np.asarray(plane.resp, dtype=np.float64)
    if drawn is not None:
        resp = resp[drawn]
    centers = np.asarray(plane.centers, dtype=np.float64)
    sets = [
        (("data", 0, "customdata"), np.round(resp, 3).astype(np.float32)),
        (("data", 0, "marker", "color"), rgb_strings(mix_colors(resp))),
        (("data", 1, "x"), centers[:, 0]),
        (("data", 1, "y"), centers[:, 1]),
        (("layout", "title", "text"), title),
    ]
    if plane.field is not None:
        sets.append((("layout", "images", 0, "source"), png_data_uri(field_rgb(plane.field))))
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

    planes: per σ, an object with X (n, 2), resp (n, k), centers (k, 2), kmeans_centers (k, 2),
    field (``rbfviz.field.Field`` or None), numbers (``explore.plane_numbers`` dict or None), note
    (str or None) and info (source, iterations, converged), as ``ui.compute.plane_views`` gives them.
    head: the title before ", σ = …". A level whose field is missing when the first level's is not
    (or the other way round) has other traces, so it is a full figure.
    """
    levels = []
    for index, (plane, sigma) in enumerate(zip(planes, sigmas)):
        sigma = float(sigma)
        title = f"{head}, σ = {sigma:.3g}"
        if index == 0 or (plane.field is None) != (planes[0].field is None):
            levels.append(
                _explorer_full(plane, sigma, title, kind, dtype, k, picks_traces, axes, drawn, presenter)
            )
        else:
            levels.append(_explorer_patch(plane, sigma, title, kind, dtype, k, drawn))
    return levels
