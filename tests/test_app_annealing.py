"""AppTests of the Annealing view (pages/3_Annealing.py): it loads, every control changes what is
shown, σ changes only move the markers (the annealing path is computed once per setting), extreme σ
and the naive map give messages, not exceptions. Small data (n = 120) keep it quick."""

import json
from pathlib import Path

import pytest
from hang import HANG_TIMEOUT_S
from scrub_view import as_json, commit, figure_shown, grid, level, payload, payload_bytes
from streamlit.testing.v1 import AppTest

from rbfviz.views.annealing.figures import CRITICAL_PREDICTED, SPLIT_PREDICTED
from rbfviz.views.common.sigma import CURRENT

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/3_Annealing.py"
SMALL = {"dataset": "moons", "n": "120"}


pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def run(query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
    at.query_params.update(query)
    at.switch_page(PAGE).run()
    return at


def specs(at) -> list[dict]:
    """[the plane at the committed σ, the bifurcation diagram, the collapse error] as drawn."""
    return [figure_shown(at)] + [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def shape_x(spec, name):
    return [s["x0"] for s in spec["layout"].get("shapes", []) if s.get("name") == name]


def ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_loads_with_three_figures_and_every_level():
    at = run(SMALL)
    ok(at)
    plane, bifurcation, collapse = specs(at)
    header = payload(at)
    assert len(header["frames"]) == len(header["sigmas"]) > 10 and header["play_ms"] > 0
    assert "sliders" not in plane["layout"] and "updatemenus" not in plane["layout"]  # the scrubber plays it
    assert shape_x(bifurcation, CRITICAL_PREDICTED) and shape_x(collapse, CRITICAL_PREDICTED)
    assert len(at.get("plotly_chart")) == 2
    assert any("σ_c predicted" in m.label for m in at.metric)


def test_sigma_commit_moves_the_markers_and_reuses_the_path():
    at = run(SMALL)
    ok(at)
    before, before_bytes = specs(at), payload_bytes(at)
    new = grid(at)[3]
    commit(at, new)
    ok(at)
    after = specs(at)
    assert as_json(after[0]) != as_json(before[0])  # the plane at the new level
    assert shape_x(after[1], CURRENT) == [new] and shape_x(after[2], CURRENT) == [new]
    # the path itself (every level) is the same: only the level shown and the markers changed
    assert payload_bytes(at) == before_bytes
    assert after[2]["data"] == before[2]["data"]
    assert at.query_params["sigma"] == f"{new:.4g}"


@pytest.mark.parametrize(
    "key,value", [("dataset", "circles"), ("k", 3), ("kind", "entmax15"), ("dtype", "float32")]
)
@pytest.mark.shared_streamlit_caches
def test_each_control_changes_what_is_shown(key, value):
    at = run(SMALL)
    ok(at)
    before, before_payload = specs(at), payload(at)
    widget = (
        at.slider(key="w_k")
        if key == "k"
        else (at.radio(key="w_dtype") if key == "dtype" else at.selectbox(key=f"w_{key}"))
    )
    widget.set_value(value).run()
    ok(at)
    after = specs(at)
    assert after[2]["data"] != before[2]["data"]
    assert as_json(payload(at)["frames"]) != as_json(before_payload["frames"])
    if key == "k":
        assert len(after[0]["data"]) == 2 * 3 + 4  # grey and coloured points, k paths, k trails, centres, C*
    if key == "kind":  # entmax's first split is at (√k·λ_max)^½, above softmax's √λ_max
        assert shape_x(after[1], CRITICAL_PREDICTED)[0] > shape_x(before[1], CRITICAL_PREDICTED)[0]


def test_naive_map_breaks_with_a_warning_not_an_exception():
    at = run({**SMALL, "kind": "naive", "dtype": "float32"})
    ok(at)
    assert any("naive map breaks" in w.value for w in at.warning)
    assert len(specs(at)) == 3


@pytest.mark.parametrize("sigma", ["1e-6", "1e3"])
def test_extreme_sigma_shows_a_notice_and_valid_figures(sigma):
    at = run({**SMALL, "sigma": sigma})
    ok(at)
    assert any("outside this data set's range" in w.value for w in at.warning)
    header = payload(at)
    assert level(at, header) == (len(header["sigmas"]) - 1 if sigma == "1e-6" else 0)


def test_every_split_is_predicted_on_the_diagram_and_in_the_table():
    at = run({"dataset": "blobs", "n": "150", "k": "4", "kind": "entmax15"})
    ok(at)
    _, bifurcation, _ = specs(at)
    markers = [t for t in bifurcation["data"] if t.get("name") == SPLIT_PREDICTED]
    assert len(markers) == 1
    xs = markers[0]["x"]
    assert len(xs) >= 2  # the first split and at least one later split
    # split 1's marker is on the first-split line
    assert xs[0] == pytest.approx(shape_x(bifurcation, CRITICAL_PREDICTED)[0], rel=1e-12)
    table = at.dataframe[0].value
    assert list(table.columns)[:5] == [
        "split",
        "stack (m)",
        "σ predicted",
        "σ measured (between levels)",
        "error",
    ]
    assert "σ linearised (√r)" in table.columns  # entmax: the √r-weighted prediction beside it
    assert len(table) == len(xs)
    assert [float(v) for v in table["σ predicted"]] == pytest.approx(xs, rel=5e-3)  # shown to 3 digits
    assert any("splits on this path" in c.value for c in at.caption)


def test_a_softmax_run_shows_its_split_table_without_the_entmax_columns():
    at = run(SMALL)
    ok(at)
    table = at.dataframe[0].value
    assert len(table) >= 1 and "σ linearised (√r)" not in table.columns
