"""AppTests of the Stability view (pages/5_Stability.py): it loads, every control changes what is
shown, σ moves the markers and the table, extreme σ gives a notice, not an exception. n = 120."""

import json

import numpy as np
import pytest
from app_page import assert_same_points, data_set, ok, open_page, page_path, set_control, xy
from scrub_view import commit, figure_shown, grid
from streamlit.testing.v1 import AppTest

from rbfviz.views.annealing.figures import CURRENT
from ui import session_keys as keys

PAGE = page_path("Stability")
SMALL = {"dataset": "moons", "n": "120"}


def run(query) -> AppTest:
    return open_page(PAGE, query, check=False)


def specs(at) -> list[dict]:
    """[the curves, the plane at the committed σ] as drawn (the α-entmax family panel left out: it is
    tested in test_app_alpha.py)."""
    charts = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [c for c in charts if not is_family_panel(c)] + [figure_shown(at)]


def is_family_panel(spec: dict) -> bool:
    return any(trace.get("meta") == ["curve"] for trace in spec["data"])


def current_lines(spec):
    return [s["x0"] for s in spec["layout"]["shapes"] if s.get("name") == CURRENT]


def rows_of(plane: dict, side: str) -> list[dict]:
    """The point traces of one side of the plane ("naive exp/sum" or "entmax-1.5"), every kind of row (not
    their legend entries, which carry no meta)."""
    return [t for t in plane["data"] if t["name"].startswith(f"{side}: row") and t.get("meta")]


def one_hot_rows(plane: dict) -> np.ndarray:
    return xy(
        next(t for t in plane["data"] if t["name"] == "entmax-1.5: row exactly one-hot" and t.get("meta"))
    )


def family_panels(at) -> int:
    return sum(is_family_panel(json.loads(c.proto.spec)) for c in at.get("plotly_chart"))


def test_loads_with_curves_table_and_plane():
    at = run(SMALL)
    ok(at)
    curves, plane = specs(at)
    assert family_panels(at) == 0  # the α-entmax family is measured once its expander is opened
    assert len(current_lines(curves)) == 4
    assert len(plane["layout"]["images"]) == 2
    table = at.dataframe[0].value
    assert len(table) == 6 and set(table["dtype"]) == {"float32", "float64"}


def test_the_family_panel_is_measured_and_drawn_once_opened():
    at = run(SMALL)
    ok(at)
    assert family_panels(at) == 0
    at.session_state[keys.FAMILY_OPEN] = True  # as the expander's click leaves it, then the page reruns
    at.run()
    ok(at)
    assert family_panels(at) == 1
    assert specs(at)[0] == specs(run(SMALL))[0], "the curves above do not change"


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
    # a smaller σ: harder responsibilities, more rows of entmax-1.5 exactly one-hot
    assert len(one_hot_rows(after[1])) > len(one_hot_rows(before[1]))
    assert not table_after.equals(table_before)
    naive = table_after[table_after["map"] == "naive exp/sum"]
    assert (naive["NaN rows %"] > 0).all()


@pytest.mark.parametrize("key,value", [("dataset", "circles"), ("k", 3), ("dtype", "float32")])
@pytest.mark.shared_streamlit_caches
def test_data_k_and_dtype_change_what_is_shown(key, value):
    at = run(SMALL)
    ok(at)
    before = specs(at)
    after = specs(set_control(at, f"w_{key}", value))
    if key == "dataset":  # circles: the plane draws the library's new data set, on each side
        X = data_set(at)
        for side in ("naive exp/sum", "entmax-1.5"):
            assert_same_points(np.concatenate([xy(t) for t in rows_of(after[1], side)]), X)
    elif key == "k":  # three K-Means centroids on each side of the plane
        assert [len(xy(t)) for t in after[1]["data"] if t["name"] == "K-Means centroids C*"] == [3, 3]
    elif key == "dtype":  # the plane is float32's; the curves show both precisions whatever is chosen
        assert [h.value for h in at.subheader if h.value.startswith("The plane")] == [
            "The plane at every σ (float32)"
        ]
        assert after[0]["data"] == before[0]["data"]
    else:
        raise AssertionError(f"no expected change written for {key}")


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
