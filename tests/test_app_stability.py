"""AppTests of the Stability view (pages/5_Stability.py): it loads, every control changes what is
shown, σ moves the markers and the table, extreme σ gives a notice, not an exception. n = 120."""

import json
from pathlib import Path

import pytest
from hang import HANG_TIMEOUT_S
from scrub_view import as_json, commit, figure_shown, grid
from streamlit.testing.v1 import AppTest

from rbfviz.views.common.sigma import CURRENT

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/5_Stability.py"
SMALL = {"dataset": "moons", "n": "120"}


pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def run(query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
    at.query_params.update(query)
    at.switch_page(PAGE).run()
    return at


def specs(at) -> list[dict]:
    """[the curves, the plane at the committed σ] as drawn (the α-entmax family panel left out: it is
    tested in test_app_alpha.py)."""
    charts = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [c for c in charts if not is_family_panel(c)] + [figure_shown(at)]


def is_family_panel(spec: dict) -> bool:
    return any(trace.get("meta") == ["curve"] for trace in spec["data"])


def ok(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def current_lines(spec):
    return [s["x0"] for s in spec["layout"]["shapes"] if s.get("name") == CURRENT]


def test_loads_with_curves_table_and_plane():
    at = run(SMALL)
    ok(at)
    curves, plane = specs(at)
    assert sum(is_family_panel(json.loads(c.proto.spec)) for c in at.get("plotly_chart")) == 1
    assert len(current_lines(curves)) == 4
    assert len(plane["layout"]["images"]) == 2
    table = at.dataframe[0].value
    assert len(table) == 6 and set(table["dtype"]) == {"float32", "float64"}


def test_sigma_change_moves_markers_table_and_plane():
    at = run(SMALL)
    ok(at)
    before, table_before = specs(at), at.dataframe[0].value
    new = grid(at)[-3]  # small σ: naive breaks, entmax is exactly hard
    commit(at, new)
    ok(at)
    after, table_after = specs(at), at.dataframe[0].value
    assert set(current_lines(after[0])) == {new}
    assert after[0]["data"] == before[0]["data"]  # the curves over σ do not depend on σ
    assert after[1]["layout"]["images"] != before[1]["layout"]["images"]
    assert not table_after.equals(table_before)
    naive = table_after[table_after["map"] == "naive exp/sum"]
    assert (naive["NaN rows %"] > 0).all()


@pytest.mark.parametrize("key,value", [("dataset", "circles"), ("k", 3), ("dtype", "float32")])
@pytest.mark.shared_streamlit_caches
def test_data_k_and_dtype_change_what_is_shown(key, value):
    at = run(SMALL)
    ok(at)
    before = specs(at)
    widget = (
        at.slider(key="w_k")
        if key == "k"
        else (at.radio(key="w_dtype") if key == "dtype" else at.selectbox(key=f"w_{key}"))
    )
    widget.set_value(value).run()
    ok(at)
    after = specs(at)
    assert as_json(after[1]) != as_json(before[1])  # the plane
    if key != "dtype":
        assert after[0]["data"] != before[0]["data"]


def test_kind_highlights_its_curves():
    at = run(SMALL)
    at.selectbox(key="w_kind").set_value("naive").run()
    ok(at)
    curves = specs(at)[0]
    widths = {
        tuple(t["meta"][1:]): t["line"]["width"]
        for t in curves["data"]
        if t.get("meta") and t["meta"][0] == "nan_row_fraction"
    }
    assert widths[("naive", "float64")] > widths[("softmax", "float64")]


@pytest.mark.parametrize("sigma", ["1e-6", "1e3"])
def test_extreme_sigma_shows_a_notice_and_valid_figures(sigma):
    at = run({**SMALL, "sigma": sigma, "dtype": "float32"})
    ok(at)
    assert any("outside this data set's range" in w.value for w in at.warning)
    assert len(specs(at)) == 2
