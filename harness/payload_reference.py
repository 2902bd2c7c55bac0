"""The σ-scrubbed views' payloads built two ways, for tests/unit/test_scrub_levels.py to compare byte for
byte and bench/bench_payload.py to time in one run:

* ``explorer``, ``stability``, ``equivalence_``, ``annealing``: the reference, the straightforward way:
  one σ at a time, a full Plotly figure per level, from the library's single-σ functions;
* ``explorer_batched``, ``stability_batched``, ...: as the pages build them, from batched levels and
  patches (rbfviz.views.explorer.levels, ui.compute's cached arrays)."""

from __future__ import annotations

import copy
from dataclasses import replace

from rbfviz.maps import responsibilities
from rbfviz.views.annealing import words as annealing_words
from rbfviz.views.annealing.figures import FRAME_MS, trajectory_figure
from rbfviz.views.annealing.levels import annealing_levels
from rbfviz.views.common.plane import drawn_points
from rbfviz.views.common.presenter import presenter_figure
from rbfviz.views.common.scrub import Probe, ScrubLevel, scrub_payload
from rbfviz.views.equivalence import arrays as equivalence_arrays
from rbfviz.views.equivalence import words as equivalence_words
from rbfviz.views.equivalence.figures import step_figure
from rbfviz.views.equivalence.levels import _equivalence_side, equivalence_levels
from rbfviz.views.explorer import words as explorer_words
from rbfviz.views.explorer.figures import explorer_figure, plane_side_html
from rbfviz.views.explorer.levels import explorer_levels
from rbfviz.views.explorer.picking import picks_traces
from rbfviz.views.stability import arrays as stability_arrays
from rbfviz.views.stability import words as stability_words
from rbfviz.views.stability.figures import stability_plane_figure
from rbfviz.views.stability.levels import stability_levels
from ui import compute


def _payload(levels, sigmas, ctrl, scale, **options) -> bytes:
    """The levels packed as the pages pack them (the same for both ways): opening at the data set's
    default σ, large for the presenter; options: the view's own (select, point_ids, play_ms)."""
    return scrub_payload(levels, sigmas, initial=scale.index(scale.default), large=ctrl.presenter, **options)


def explorer(ctrl, quantity="max", head="head", axes=None) -> bytes:
    X, _ = compute.data(ctrl)
    scale = compute.scale(ctrl)
    extent = compute.fieldmod.plane_extent(X, aspect=compute.fieldmod.PLANE_ASPECT)
    drawn = drawn_points(ctrl.n, ctrl.seed)
    levels = []
    for sigma in scale.grid:
        at = replace(ctrl, sigma=float(sigma))
        v = compute._plane_at(at, X, lambda c, centers: compute.field_now(c, centers, extent, quantity))
        fig = explorer_figure(
            v.X,
            v.resp,
            v.centers,
            v.kmeans_centers,
            v.field,
            title=f"{head}, σ = {sigma:.3g}",
            picks_traces=picks_traces(v.X, ctrl.picks, ctrl.k) if ctrl.picks else (),
            axes=axes,
            drawn=drawn,
        )
        shown = (
            f"Centres shown: {v.info.source} ({v.info.iterations} EM iteration"
            f"{'' if v.info.iterations == 1 else 's'}, "
            f"{'converged' if v.info.converged else 'NOT converged within the iteration cap'})."
        )
        levels.append(
            ScrubLevel(
                presenter_figure(fig) if ctrl.presenter else fig,
                plane_side_html(v.numbers, ctrl.kind, ctrl.k, v.note, shown),
                explorer_words.plane(v.resp, v.numbers, float(sigma), ctrl.kind, ctrl.dtype),
            )
        )
    return _payload(levels, scale.grid, ctrl, scale, select=True, point_ids=drawn, probe=Probe(ctrl.kind))


def stability(ctrl) -> bytes:
    X, _ = compute.data(ctrl)
    X64, _ = compute._key(ctrl).points("float64")
    centroids = compute.kmeans_centroids(ctrl)
    scale = compute.scale(ctrl)
    drawn = drawn_points(len(X), ctrl.seed)
    levels = []
    for sigma in scale.grid:
        plane = stability_arrays.stability_plane(X64, centroids, float(sigma), ctrl.dtype)
        fig = stability_plane_figure(plane, X, centroids, drawn=drawn)
        levels.append(
            ScrubLevel(
                presenter_figure(fig) if ctrl.presenter else fig,
                "",
                stability_words.stability_plane(plane, plane.sigma, plane.dtype),
            )
        )
    return _payload(levels, scale.grid, ctrl, scale)


def equivalence_(ctrl, head="head") -> bytes:
    X = compute.data(ctrl)[0]
    C0, _ = compute.step_start(ctrl)
    scale = compute.scale(ctrl)
    levels = []
    for sigma in scale.grid:
        sigma = float(sigma)
        step = equivalence_arrays.one_step(X, C0, sigma, ctrl.kind)
        step_resp = responsibilities(X, C0, sigma, ctrl.kind)
        fig = step_figure(X, step_resp, step, title=f"{head}, σ = {sigma:.3g}")
        side = _equivalence_side(step)
        levels.append(
            ScrubLevel(
                presenter_figure(fig) if ctrl.presenter else fig,
                side,
                equivalence_words.equivalence_step(step, sigma, ctrl.kind),
            )
        )
    return _payload(levels, scale.grid, ctrl, scale)


def annealing(ctrl) -> bytes:
    view = compute.annealing_view(ctrl)
    X, _ = compute.data(ctrl)
    scale = compute.scale(ctrl)
    levels = []
    for sigma in view.sigmas:
        fig = trajectory_figure(view, X, float(sigma), static=True)
        levels.append(
            ScrubLevel(
                presenter_figure(fig) if ctrl.presenter else fig,
                "",
                annealing_words.annealing_plane(view, float(sigma)),
            )
        )
    return _payload(levels, view.sigmas, ctrl, scale, play_ms=FRAME_MS)


# --- as the pages build them ------------------------------------------------------------------------


def explorer_batched(ctrl, quantity="max", head="head", axes=None, views=None) -> bytes:
    """The Explorer's payload as the page builds it; views: a list that gets a copy of each plane view
    it was built from (a copy, as the builder may reuse the views' arrays)."""
    scale = compute.scale(ctrl)
    drawn = drawn_points(ctrl.n, ctrl.seed)
    drew = compute.plane_views(ctrl, quantity)
    levels = explorer_levels(
        drew if views is None else (views.append(copy.deepcopy(view)) or view for view in drew),
        scale.grid,
        head,
        ctrl.kind,
        ctrl.dtype,
        ctrl.k,
        picks_traces=picks_traces(compute.data(ctrl)[0], ctrl.picks, ctrl.k) if ctrl.picks else (),
        axes=axes,
        drawn=drawn,
        presenter=ctrl.presenter,
    )
    return _payload(levels, scale.grid, ctrl, scale, select=True, point_ids=drawn, probe=Probe(ctrl.kind))


def stability_batched(ctrl) -> bytes:
    X, _ = compute.data(ctrl)
    scale = compute.scale(ctrl)
    drawn = drawn_points(len(X), ctrl.seed)
    levels = stability_levels(
        compute.stability_planes(ctrl),
        X,
        compute.kmeans_centroids(ctrl),
        drawn=drawn,
        presenter=ctrl.presenter,
    )
    return _payload(levels, scale.grid, ctrl, scale)


def equivalence_batched(ctrl, head="head") -> bytes:
    X = compute.data(ctrl)[0]
    scale = compute.scale(ctrl)
    steps, resps = zip(*compute.steps_at_every_sigma(ctrl))
    levels = equivalence_levels(steps, resps, scale.grid, X, head, ctrl.kind, presenter=ctrl.presenter)
    return _payload(levels, scale.grid, ctrl, scale)


def annealing_batched(ctrl) -> bytes:
    view = compute.annealing_view(ctrl)
    scale = compute.scale(ctrl)
    levels = annealing_levels(view, compute.data(ctrl)[0], presenter=ctrl.presenter)
    return _payload(levels, view.sigmas, ctrl, scale, play_ms=FRAME_MS)
