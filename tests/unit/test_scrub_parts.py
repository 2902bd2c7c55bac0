"""A new setting's σ payload in two parts (ui.compute.scrub_payload with a LevelBuilder): the levels near
the σ on screen first, then the rest.

Asserted: the complete payload is byte for byte the one built in one go; the first part holds exactly
the levels within ``NEAR`` grid steps of the σ on screen, each the complete payload's level at that grid
position (figure, numbers, sentence); no level is built twice, also when the rest is interrupted and a
later run finishes it, and when a second session asks for the same setting while the first builds it
(it shows the first part and waits, and builds nothing).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import pytest
from scrub_view import as_json

from rbfviz.views.common.plane import drawn_points
from rbfviz.views.common.scrub import ScrubLevel, ScrubPatch, figure_at, read_payload, scrub_payload
from rbfviz.views.explorer.levels import explorer_levels
from ui import compute
from ui.state import Controls

logging.getLogger("streamlit").setLevel(logging.ERROR)  # caches used outside a running app

pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


class Recording(compute.LevelBuilder):
    """A LevelBuilder that records the grid positions it was asked to build, call by call."""

    def __init__(self, builder: compute.LevelBuilder, fail_on_call: int | None = None):
        self.calls: list[list[int]] = []

        def levels(positions, progress):
            self.calls.append(list(positions))
            if fail_on_call == len(self.calls):
                raise Interrupted()
            return builder.levels(positions, progress)

        super().__init__(builder.size, levels, builder.payload)

    def built(self) -> list[int]:
        return sorted(p for call in self.calls for p in call)


class Interrupted(Exception):
    """Stands for Streamlit stopping a run at a yield point (a new setting chosen meanwhile)."""


def explorer_builder(ctrl) -> compute.LevelBuilder:
    """The Explorer's builder, as pages/1_Explorer.py makes it (without its plot configuration)."""
    scale = compute.scale(ctrl)
    grid = scale.grid
    drawn = drawn_points(ctrl.n, ctrl.seed)

    def levels(positions, progress):
        planes = compute.plane_views(ctrl, "max", progress, levels=positions)
        return explorer_levels(planes, grid[positions], "head", ctrl.kind, ctrl.dtype, ctrl.k, drawn=drawn)

    def payload(levels, positions):
        part = None if positions is None else (positions, len(grid))
        sigmas = grid if positions is None else grid[positions]
        return scrub_payload(levels, sigmas, initial=0, select=True, point_ids=drawn, part=part)

    return compute.LevelBuilder(len(grid), levels, payload)


def in_one_go(builder: compute.LevelBuilder) -> bytes:
    everything = list(range(builder.size))
    return builder.payload(builder.levels(everything, None), None)


def ctrl_for(dataset="blobs", kind="softmax", dtype="float64", **more) -> Controls:
    ctrl = Controls.for_dataset(dataset, kind=kind, dtype=dtype, **more)
    if dataset != "iris":
        ctrl = replace(ctrl, n=90)
    return replace(ctrl, sigma=compute.scale(ctrl).default)


def assert_first_part_is_the_complete_payloads(first: bytes, complete: bytes, positions: list[int]) -> None:
    part, whole = read_payload(first), read_payload(complete)
    assert "part" not in whole
    assert part["part"] == {"levels": positions, "of": len(whole["sigmas"])}
    assert part["sigmas"] == [whole["sigmas"][p] for p in positions]
    for level, position in enumerate(positions):
        assert as_json(figure_at(part, level)) == as_json(figure_at(whole, position))
        assert part["frames"][level]["side"] == whole["frames"][position]["side"]
        assert part["frames"][level]["caption"] == whole["frames"][position]["caption"]


@pytest.mark.parametrize(
    "dataset, kind, dtype, where",
    [
        ("blobs", "softmax", "float64", "default"),
        ("moons", "entmax15", "float32", "largest"),
        ("circles", "naive", "float64", "smallest"),
        ("spiral", "hard", "float64", "default"),
        ("iris", "entmax:1.3", "float32", "default"),
    ],
)
def test_parts_make_the_payload_built_in_one_go(dataset, kind, dtype, where):
    ctrl = ctrl_for(dataset, kind, dtype)
    size = len(compute.scale(ctrl).grid)
    near = {"largest": 0, "smallest": size - 1, "default": compute.scale(ctrl).index(ctrl.sigma)}[where]
    builder = Recording(explorer_builder(ctrl))
    shown = []
    complete = compute.scrub_payload("test", ctrl, (), builder, near=near, show=shown.append)

    assert complete == in_one_go(explorer_builder(ctrl))
    window = list(range(max(0, near - compute.NEAR), min(size, near + compute.NEAR + 1)))
    assert len(shown) == 1
    assert_first_part_is_the_complete_payloads(shown[0], complete, window)
    assert builder.calls[0] == window
    assert builder.built() == list(range(size))  # every level once
    # the setting is stored: the next session gets the complete payload and nothing is built or shown
    again = Recording(explorer_builder(ctrl))
    assert compute.scrub_payload("test", ctrl, (), again, near=near, show=shown.append) == complete
    assert again.calls == [] and len(shown) == 1


def test_an_interrupted_rest_is_finished_later_from_the_levels_built():
    ctrl = ctrl_for()
    near = compute.scale(ctrl).index(ctrl.sigma)
    first = Recording(explorer_builder(ctrl), fail_on_call=2)  # the rest's call
    shown = []
    with pytest.raises(Interrupted):
        compute.scrub_payload("test", ctrl, (), first, near=near, show=shown.append)
    assert len(shown) == 1

    second = Recording(explorer_builder(ctrl))
    complete = compute.scrub_payload("test", ctrl, (), second, near=near, show=shown.append)
    assert shown[1] == shown[0]  # the first part kept from the interrupted run, not built again
    window = first.calls[0]
    assert second.calls == [[p for p in range(first.size) if p not in window]]
    assert complete == in_one_go(explorer_builder(ctrl))


def test_a_second_session_shows_the_first_part_and_waits_for_the_builder():
    ctrl = ctrl_for()
    near = compute.scale(ctrl).index(ctrl.sigma)
    inner = explorer_builder(ctrl)
    rest_started, release = threading.Event(), threading.Event()

    def slow_levels(positions, progress):
        if len(positions) > 2 * compute.NEAR + 1:  # the rest: hold it until the second session waits
            rest_started.set()
            assert release.wait(30)
        return inner.levels(positions, progress)

    builder = Recording(compute.LevelBuilder(inner.size, slow_levels, inner.payload))
    results, shown_by_builder = {}, []
    thread = threading.Thread(
        target=lambda: results.update(
            builder=compute.scrub_payload("test", ctrl, (), builder, near=near, show=shown_by_builder.append)
        )
    )
    thread.start()
    assert rest_started.wait(30)

    waiter = Recording(inner)
    shown_by_waiter = []

    def wait():
        results["waiter"] = compute.scrub_payload(
            "test", ctrl, (), waiter, near=near + 1, show=shown_by_waiter.append
        )

    second = threading.Thread(target=wait)
    second.start()
    for _ in range(200):  # the waiter shows the builder's first part within a few polls
        if shown_by_waiter:
            break
        second.join(0.05)
    assert shown_by_waiter == shown_by_builder
    release.set()
    thread.join(60)
    second.join(60)
    assert results["waiter"] == results["builder"] == in_one_go(inner)
    assert waiter.calls == []  # computed once, by the first session
    assert builder.built() == list(range(inner.size))


def _level(traces: int, images: int, value: float) -> ScrubLevel:
    fig = go.Figure([go.Scatter(x=[value, 1.0], y=[0.0, value]) for _ in range(traces)])
    for _ in range(images):
        fig.add_layout_image(source="data:image/png;base64,AAAA", x=0, y=1, sizex=1, sizey=1)
    return ScrubLevel(fig, "", f"σ level {value}")


def test_a_kept_patch_of_another_structure_is_built_again_as_a_full_figure():
    """A patch is kept only where the complete payload's first level has the structure it patched."""
    size, sigmas = 4, np.geomspace(1.0, 0.1, 4)

    def levels(positions, progress):
        # a call's first level is a full figure, and a later level of the same structure (with or
        # without an image) a patch of it; levels 1–3 have an image, level 0 none
        out = []
        for index, position in enumerate(positions):
            if index and (position >= 1) == (positions[0] >= 1):
                sets = tuple(
                    (("data", trace, axis), value)
                    for trace in range(2)
                    for axis, value in (("x", [float(position), 1.0]), ("y", [0.0, float(position)]))
                )
                out.append(ScrubPatch(sets, "", f"σ level {position}"))
            else:
                out.append(_level(2, int(position >= 1), float(position)))
        return out

    def payload(levels, positions):
        part = None if positions is None else (positions, size)
        return scrub_payload(levels, sigmas if positions is None else sigmas[positions], part=part)

    builder = Recording(compute.LevelBuilder(size, levels, payload))
    shown = []
    complete = compute.scrub_payload("synthetic", ctrl_for(), (), builder, near=3, show=shown.append)
    # first 1, 2, 3 (1 full, 2 and 3 patches of it), then 0 (full, no image): 2 and 3 patch an image
    # that level 0 has not, so each is built again as a full figure
    assert builder.calls == [[1, 2, 3], [0], [2], [3]]
    reference = read_payload(scrub_payload([_level(2, int(p >= 1), float(p)) for p in range(size)], sigmas))
    whole, first = read_payload(complete), read_payload(shown[0])
    for position in range(size):
        assert as_json(figure_at(whole, position)) == as_json(figure_at(reference, position))
    for level, position in enumerate([1, 2, 3]):
        assert as_json(figure_at(first, level)) == as_json(figure_at(reference, position))
