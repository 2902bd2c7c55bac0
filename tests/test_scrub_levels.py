"""A scrubbed view's payload built from batched levels and patches (rbfviz.views.levels, ui.compute's
payload builders) is the payload of a full figure per σ, computed one level at a time: byte for byte,
on every data set, map and precision.

The references below are written out here, one σ at a time, the straightforward way (the way the
pages built their payloads before levels were batched): a full Plotly figure per level from the
library's single-σ functions. Where float rounding may move a value, ``assert_same_payload`` falls
back to comparing the decoded payloads to 1e-12 relative and says which values moved.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
import pytest

from rbfviz._validate import KINDS
from rbfviz.datasets import DATASETS
from rbfviz.views import describe
from rbfviz.views.figures.plane import drawn_points, explorer_figure, plane_side_html
from rbfviz.views.figures.presenter import presenter_figure
from rbfviz.views.figures.scrub import ScrubLevel, read_payload, scrub_payload
from rbfviz.views.levels import explorer_levels
from ui import compute
from ui.state import Controls

logging.getLogger("streamlit").setLevel(logging.ERROR)  # caches used outside a running app
N = 150  # points per data set (iris keeps its 150)
RTOL = 1e-12


def _close(a, b, path, moved: list) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), f"{path}: keys {sorted(a)} != {sorted(b)}"
        for key in a:
            _close(a[key], b[key], path + [key], moved)
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, path + [i], moved)
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, f"{path}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        if a.dtype.kind == "f":
            assert np.array_equal(np.isnan(a), np.isnan(b)), f"{path}: NaN in other places"
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=0, err_msg=str(path))
            if not np.array_equal(a, b, equal_nan=True):
                moved.append(path)
        else:
            assert np.array_equal(a, b), f"{path}: values differ"
    elif isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=RTOL, abs=0), f"{path}: {a} != {b}"
        if a != b:
            moved.append(path)
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def assert_same_payload(new: bytes, old: bytes) -> None:
    """Byte-identical, or (if not) the same payload up to 1e-12 relative in float values: then fail
    with the paths of the values that moved, since every view here must be byte-identical."""
    if new == old:
        return
    moved: list = []
    _close(read_payload(new), read_payload(old), [], moved)
    raise AssertionError(f"payloads differ in bytes; values within {RTOL} relative moved at {moved[:10]}")


# --- the Explorer -----------------------------------------------------------------------------------


def _ctrl(dataset: str, kind: str, dtype: str, **more) -> Controls:
    ctrl = Controls.for_dataset(dataset, kind=kind, dtype=dtype, **more)
    if dataset != "iris":
        ctrl = replace(ctrl, n=N)
    return replace(ctrl, sigma=compute.scale(ctrl).default)


def explorer_payload_reference(ctrl, quantity="max", head="head", axes=None) -> bytes:
    """One σ at a time: compute.centers_at, the responsibilities and numbers, the field, and a full
    figure per level."""
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
            axes=axes,
            drawn=drawn,
        )
        shown = (
            f"Centres shown: {v.info.source} ({v.info.iterations} EM iteration(s), "
            f"{'converged' if v.info.converged else 'NOT converged within the iteration cap'})."
        )
        levels.append(
            ScrubLevel(
                presenter_figure(fig) if ctrl.presenter else fig,
                plane_side_html(v.numbers, ctrl.kind, ctrl.k, v.note, shown),
                describe.plane(v.resp, v.numbers, float(sigma), ctrl.kind, ctrl.dtype),
            )
        )
    return scrub_payload(
        levels,
        scale.grid,
        initial=scale.index(scale.default),
        select=True,
        point_ids=drawn,
        large=ctrl.presenter,
    )


def explorer_payload_new(ctrl, quantity="max", head="head", axes=None) -> bytes:
    scale = compute.scale(ctrl)
    drawn = drawn_points(ctrl.n, ctrl.seed)
    levels = explorer_levels(
        compute.plane_views(ctrl, quantity),
        scale.grid,
        head,
        ctrl.kind,
        ctrl.dtype,
        ctrl.k,
        axes=axes,
        drawn=drawn,
        presenter=ctrl.presenter,
    )
    return scrub_payload(
        levels,
        scale.grid,
        initial=scale.index(scale.default),
        select=True,
        point_ids=drawn,
        large=ctrl.presenter,
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dataset", DATASETS)
def test_explorer_payload_is_the_per_level_payload(dataset, kind, dtype):
    ctrl = _ctrl(dataset, kind, dtype)
    assert_same_payload(explorer_payload_new(ctrl), explorer_payload_reference(ctrl))


@pytest.mark.parametrize(
    "more",
    [
        dict(init="anneal", kind="entmax15", dtype="float32"),
        dict(init="anneal", kind="softmax", dtype="float64"),
        dict(init="random", kind="entmax15", dtype="float64", presenter=True),
        dict(init="kmeans++", kind="naive", dtype="float32", n=6000),  # a drawn subsample
    ],
    ids=["anneal-entmax-f32", "anneal-softmax", "random-presenter", "subsample"],
)
def test_explorer_payload_other_settings(more):
    ctrl = _ctrl("blobs", more.pop("kind"), more.pop("dtype"), **more)
    if "n" in more:
        ctrl = replace(ctrl, n=more["n"], sigma=compute.scale(replace(ctrl, n=more["n"])).default)
    assert_same_payload(
        explorer_payload_new(ctrl, quantity="entropy", head="t", axes=("a", "b")),
        explorer_payload_reference(ctrl, quantity="entropy", head="t", axes=("a", "b")),
    )
