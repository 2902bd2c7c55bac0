"""AppTests of the Annealing view (pages/3_Annealing.py): it loads, every control changes what is
shown, σ changes only move the markers (the annealing path is computed once per setting), extreme σ
and the naive map give messages, not exceptions. Small data (n = 120) keep it quick."""

import json

import numpy as np
import pytest
from app_page import assert_same_points, data_set, ok, open_page, page_path, set_control, values, xy
from scrub_view import commit, figure_shown, grid, level, payload, payload_bytes
from sklearn.cluster import KMeans
from streamlit.testing.v1 import AppTest

from rbfviz.datasets import make_dataset
from rbfviz.views.annealing.figures import CRITICAL_PREDICTED, CURRENT, SPLIT_PREDICTED
from rbfviz.views.common.words import percent
from ui import session_keys

PAGE = page_path("Annealing")
SMALL = {"dataset": "moons", "n": "120"}


def run(query) -> AppTest:
    return open_page(PAGE, query, check=False)


def specs(at) -> list[dict]:
    """[the plane at the committed σ, the bifurcation diagram, the collapse error] as drawn (the σ panels'
    figures; the free energy and the race below them are checked on their own)."""
    return [figure_shown(at)] + [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")][:2]


def shape_x(spec, name):
    return [s["x0"] for s in spec["layout"].get("shapes", []) if s.get("name") == name]


def centres_on(plane: dict) -> np.ndarray:
    """(k, 2) the RBF centres the plane shows at its σ."""
    return xy(next(t for t in plane["data"] if t["name"] == "RBF centres c_j at σ"))


def path_of(bifurcation: dict) -> np.ndarray:
    """The bifurcation diagram's curve of centre 0: its coordinate at each σ level, as drawn."""
    return values(next(t for t in bifurcation["data"] if t["name"] == "centre 0")["y"])


def spread(centres: np.ndarray) -> float:
    """Mean distance of the centres from their mean."""
    return float(np.linalg.norm(centres - centres.mean(axis=0), axis=1).mean())


def test_loads_with_four_figures_and_every_level():
    at = run(SMALL)
    ok(at)
    plane, bifurcation, collapse = specs(at)
    header = payload(at)
    assert len(header["frames"]) == len(header["sigmas"]) > 10 and header["play_ms"] > 0
    assert "sliders" not in plane["layout"] and "updatemenus" not in plane["layout"]  # the scrubber plays it
    assert shape_x(bifurcation, CRITICAL_PREDICTED) and shape_x(collapse, CRITICAL_PREDICTED)
    # bifurcation, collapse and free energy (the race's figures only once it is run)
    assert [chart.key for chart in at.get("plotly_chart")] == [
        "annealing_bifurcation",
        "annealing_collapse",
        "free_energy",
    ]
    assert any("σ_c predicted" in m.label for m in at.metric)


def test_sigma_commit_moves_the_markers_and_reuses_the_path():
    at = run(SMALL)
    ok(at)
    before, before_bytes = specs(at), payload_bytes(at)
    new = grid(at)[3]
    commit(at, new)
    ok(at)
    after = specs(at)
    # a larger σ (the grid falls from its top): the centres on the plane lie closer together, as they
    # merge on the way up
    assert spread(centres_on(after[0])) < spread(centres_on(before[0]))
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
    before, before_sigmas = specs(at), payload(at)["sigmas"]
    after = specs(set_control(at, f"w_{key}", value))
    if key == "dataset":  # circles: the plane draws the library's new data set
        assert_same_points(xy(next(t for t in after[0]["data"] if t["name"] == "data")), data_set(at))
    if key == "dtype":  # the same σ levels, the path computed again in float32, and the plane says so
        assert payload(at)["sigmas"] == before_sigmas
        assert not np.array_equal(path_of(after[1]), path_of(before[1]))
        headings = [m.value for m in at.markdown if m.value.startswith("**moons, n = 120")]
        assert headings == [f"**moons, n = 120, k = {at.query_params['k']}, softmax, float32**"]
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


# --- restarts against annealing ---------------------------------------------------------------------------


def test_the_race_runs_on_request_and_its_numbers_are_scikit_learns():
    at = open_page(page_path("Annealing"), {"dataset": "iris", "k": "3"})
    assert not any(m.label.startswith("annealed J") for m in at.metric)  # nothing runs before the button
    at.slider(key=session_keys.RACE_N).set_value(20).run()
    at.button(key="race_run").click().run()
    assert not at.exception and not at.error
    shown = {m.label: m.value for m in at.metric}
    X = make_dataset("iris", 150, 0.0, 0)[0]
    reference = KMeans(3, n_init=20, random_state=0).fit(X).inertia_
    assert shown["KMeans(n_init=20)"] == f"{reference:.6g}"
    restarts = [
        KMeans(3, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000, random_state=i).fit(X).inertia_
        for i in range(20)
    ]
    assert float(shown["best of 40 restarts"]) <= min(restarts) * (1 + 5e-6)  # shown to 6 digits
    annealed = float(shown["annealed J (one run)"])
    share = np.mean(np.array(restarts) <= annealed * (1 + 1e-3))
    assert shown["reach annealed J: k-means++"] == percent(share)
    assert len(at.get("plotly_chart")) >= 2
    # the race stays while σ moves, and is gone once the data change
    at.slider(key="w_k").set_value(4).run()
    assert not any(m.label.startswith("annealed J") for m in at.metric)


def test_the_free_energy_figure_and_its_coloured_equation():
    from rbfviz.views.annealing.figures import DISTORTION_TERM_COLOR, ENTROPY_TERM_COLOR

    at = open_page(page_path("Annealing"), SMALL)
    ok(at)
    equations = [e.value.strip("$").strip() for e in at.latex]  # st.latex wraps in $$
    (coloured,) = [e for e in equations if e.startswith("{F_\\sigma}")]
    assert DISTORTION_TERM_COLOR in coloured and ENTROPY_TERM_COLOR in coloured
    assert any("T·H(r)" in str(c.value) or "entropy term" in str(c.value) for c in at.caption)


def test_a_heavy_link_waits_with_its_cost_and_no_figure():
    """The work budget: entmax-1.5 at n = 5,000, k = 10 (about 15 s) is not started; the page says what it
    would cost and what fits, and offers the button (pressing it is tested on small data below)."""
    at = run({"dataset": "blobs", "n": "5000", "k": "10", "kind": "entmax15", "seed": "7"})
    ok(at)
    words = " ".join(w.value for w in at.warning)
    assert "Not started" in words and "would take about" in words and "softmax" in words
    assert "k ≤" in words  # fewer clusters fit (fewer points would not: the cost is mostly per step)
    assert [b.label for b in at.button if b.key == "budget_annealing"][0].startswith("Compute anyway (about ")
    assert not at.get("plotly_chart") and not at.get("iframe")  # nothing of the annealing is drawn


def test_compute_anyway_computes_the_view(monkeypatch):
    """With a budget of 0 s every setting asks first; "Compute anyway" then draws the figures, and the
    session's later runs keep them (the page does not ask again for the same setting)."""
    monkeypatch.setattr("rbfviz.cost.BUDGET_S", 0.0)
    at = run({**SMALL, "seed": "4242"})  # a seed no other test computes: not already in the shared store
    ok(at)
    assert at.warning and not at.get("plotly_chart")
    at.button(key="budget_annealing").click().run()
    ok(at)
    assert len(specs(at)) == 3 and not [w for w in at.warning if "Not started" in w.value]
    at.run()
    assert len(specs(at)) == 3


def test_a_setting_over_the_ceiling_is_not_offered(monkeypatch):
    """Above rbfviz.cost.CEILING_S the page does not offer "Compute anyway": it says the server does not
    compute it, and what fits instead."""
    monkeypatch.setattr("rbfviz.cost.BUDGET_S", 0.0)
    monkeypatch.setattr("rbfviz.cost.CEILING_S", 0.01)
    at = run({**SMALL, "seed": "4243"})
    ok(at)
    words = " ".join(w.value for w in at.warning)
    assert "Not computed on this server" in words and "would take about" in words
    assert "Compute anyway" not in words and not [b for b in at.button if b.key == "budget_annealing"]
    assert not at.get("plotly_chart") and not at.get("iframe")


def test_the_defaults_are_far_within_the_budget():
    at = run({})
    ok(at)
    assert not [w for w in at.warning if "Not started" in w.value] and len(specs(at)) == 3
