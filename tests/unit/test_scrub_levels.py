"""A scrubbed view's payload built from batched levels and patches (rbfviz.views.explorer.levels, ui.compute's
payload builders) is the payload of a full figure per σ, computed one level at a time: byte for byte,
on every data set, map and precision (``COVERING``: each data set with two maps, every map in both
precisions).

The references (harness/payload_reference.py) are written out one σ at a time, the straightforward way
(the way the pages built their payloads before levels were batched): a full Plotly figure per level
from the library's single-σ functions. Where float rounding may move a value, ``assert_same_payload`` falls
back to comparing the decoded payloads to 1e-12 relative and says which values moved.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import replace

import numpy as np
import pytest

from harness import payload_reference
from rbfviz.datasets import DATASETS
from rbfviz.validate import KINDS, entmax_kind
from rbfviz.views.common.scrub import read_payload
from ui import compute
from ui.state import Controls

logging.getLogger("streamlit").setLevel(logging.ERROR)  # caches used outside a running app
N = 80  # points per data set (iris keeps its 150)
RTOL = 1e-12
# every map the library computes, and a member of the α-entmax family (its spec is a kind like the others)
MAPS = (*KINDS, entmax_kind(1.3))
# Every data set with two maps, one per precision, rotating through MAPS so every map meets both
# precisions: the same coverage of data sets, maps and precisions as the full product at a fifth of
# its run time (each case builds the per-level reference, the slow old code path). Every view's test
# takes these cases.
COVERING = [
    (dataset, MAPS[(2 * i + j) % len(MAPS)], dtype)
    for i, dataset in enumerate(DATASETS)
    for j, dtype in enumerate(["float64", "float32"])
]


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


@functools.lru_cache(maxsize=1)
def explorer_case(dataset: str, kind: str, dtype: str) -> tuple[bytes, tuple]:
    """(payload, plane views it was drawn from), built once in a worker: this file compares the payload
    with the reference, tests/unit/test_batched_fields.py (the COVERING cases) its images with the views'
    fields. Both tests of a case share a pytest-xdist group (``covering_group``), so one worker runs them."""
    views = []
    payload = payload_reference.explorer_batched(_ctrl(dataset, kind, dtype), views=views)
    return payload, tuple(views)


def covering_group(dataset: str, kind: str, dtype: str):
    return pytest.mark.xdist_group(f"explorer-{dataset}-{kind}-{dtype}")


@pytest.mark.parametrize(
    "dataset, kind, dtype", [pytest.param(*case, marks=covering_group(*case)) for case in COVERING]
)
def test_explorer_payload_is_the_per_level_payload(dataset, kind, dtype):
    new, _ = explorer_case(dataset, kind, dtype)
    assert_same_payload(new, payload_reference.explorer(_ctrl(dataset, kind, dtype)))


@pytest.mark.parametrize(
    "more",
    [
        dict(init="anneal", kind="entmax15", dtype="float32"),
        dict(init="anneal", kind="softmax", dtype="float64"),
        dict(init="random", kind="entmax15", dtype="float64", presenter=True),
        dict(init="custom", picks=(3, 1, 4, 15, 9), kind="softmax", dtype="float64"),  # picked points drawn
        dict(init="kmeans++", kind="naive", dtype="float32", n=6000),  # a drawn subsample
    ],
    ids=["anneal-entmax-f32", "anneal-softmax", "random-presenter", "custom-picks", "subsample"],
)
def test_explorer_payload_other_settings(more):
    ctrl = _ctrl("blobs", more.pop("kind"), more.pop("dtype"), **more)
    if "n" in more:
        ctrl = replace(ctrl, n=more["n"], sigma=compute.scale(replace(ctrl, n=more["n"])).default)
    assert_same_payload(
        payload_reference.explorer_batched(ctrl, quantity="entropy", head="t", axes=("a", "b")),
        payload_reference.explorer(ctrl, quantity="entropy", head="t", axes=("a", "b")),
    )


# --- Stability, Equivalence, Annealing ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dataset", DATASETS)
def test_stability_payload_is_the_per_level_payload(dataset, dtype):
    ctrl = _ctrl(dataset, "softmax", dtype)  # the view compares the maps itself: kind plays no part
    assert_same_payload(payload_reference.stability_batched(ctrl), payload_reference.stability(ctrl))


@pytest.mark.parametrize("dataset, kind, dtype", COVERING)
def test_equivalence_payload_is_the_per_level_payload(dataset, kind, dtype):
    ctrl = _ctrl(dataset, kind, dtype)
    assert_same_payload(payload_reference.equivalence_batched(ctrl), payload_reference.equivalence_(ctrl))


@pytest.mark.parametrize("dataset, kind, dtype", COVERING)
def test_annealing_payload_is_the_per_level_payload(dataset, kind, dtype):
    ctrl = _ctrl(dataset, kind, dtype)
    assert_same_payload(payload_reference.annealing_batched(ctrl), payload_reference.annealing(ctrl))


@pytest.mark.parametrize("view", ["stability", "equivalence", "annealing"])
def test_presenter_and_subsample_payloads(view):
    ref = payload_reference
    new = {"stability": ref.stability_batched, "equivalence": ref.equivalence_batched}.get(
        view, ref.annealing_batched
    )
    reference = {"stability": payload_reference.stability, "equivalence": payload_reference.equivalence_}.get(
        view, payload_reference.annealing
    )
    for ctrl in (
        _ctrl("moons", "entmax15", "float64", presenter=True),
        _ctrl("blobs", "naive", "float32", n=6000),
    ):
        assert_same_payload(new(ctrl), reference(ctrl))
