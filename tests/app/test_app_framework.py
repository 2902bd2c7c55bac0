"""The app's framework: URL state parsing (pure functions) and AppTests of the home page and every view
(every page of ui.page.PAGES, the app's menu)."""

import copy
import json

import plotly.io
import pytest
from app_page import PAGE_PATHS, app, page_path
from streamlit.testing.v1 import AppTest

from harness.settings import ROOT
from rbfviz.datasets import DEFAULT_NOISE, NATURAL_K
from rbfviz.views.common.layout import THEME_INK, themed_spec
from ui import session_keys as keys
from ui.page import PAGES as VIEWS
from ui.state import Controls, changed, parse_query


def warnings(at) -> str:
    return "\n".join(str(w.value) for w in at.warning)


# --- parsing, without Streamlit --------------------------------------------------------------------


def test_empty_query_gives_defaults_without_notices():
    ctrl, notices = parse_query({})
    assert ctrl == Controls()
    assert notices == []


def test_query_round_trip():
    ctrl = Controls(
        dataset="moons",
        n=321,
        noise=0.125,
        seed=7,
        k=3,
        init="anneal",
        kind="entmax15",
        dtype="float32",
        sigma=0.0413,
    )
    back, notices = parse_query(ctrl.to_query())
    assert notices == []
    assert back == ctrl


def test_dataset_sets_its_own_defaults():
    ctrl, _ = parse_query({"dataset": "moons"})
    assert (ctrl.noise, ctrl.k) == (DEFAULT_NOISE["moons"], NATURAL_K["moons"])
    ctrl, _ = parse_query({"dataset": "iris"})
    assert ctrl.n == 150


@pytest.mark.parametrize(
    "key,value",
    [
        ("dataset", "mnist"),
        ("n", "abc"),
        ("n", "2"),
        ("n", "1e9"),
        ("noise", "-1"),
        ("noise", "nan"),
        ("seed", "-3"),
        ("seed", "1.5"),
        ("k", "1"),
        ("k", "x"),
        ("init", "kmeans+-"),
        ("init", "farthest-first"),
        ("kind", "relu"),
        ("dtype", "float16"),
        ("sigma", "0"),
        ("sigma", "-2"),
        ("sigma", "inf"),
        ("sigma", "abc"),
    ],
)
def test_bad_value_falls_back_to_default_with_a_notice(key, value):
    ctrl, notices = parse_query({key: value})
    assert len(notices) == 1 and f"`{key}=" in notices[0]
    default, _ = parse_query({})
    assert getattr(ctrl, key) == getattr(default, key)


def test_k_larger_than_n_is_explained():
    ctrl, notices = parse_query({"n": "6", "k": "8"})
    assert ctrl.k <= ctrl.n
    assert len(notices) == 1 and "more clusters than points" in notices[0]


def test_hand_typed_kmeans_plus_plus_is_understood():
    for text in ("kmeans++", "kmeans  ", "k-means++", "KMEANSPP"):
        ctrl, notices = parse_query({"init": text})
        assert ctrl.init == "kmeans++" and notices == []


def test_farthest_point_init_travels_in_the_url():
    ctrl, notices = parse_query({"init": " Farthest "})
    assert ctrl.init == "farthest" and notices == []
    assert ctrl.to_query()["init"] == "farthest"
    _, notices = parse_query({"init": "furthest"})
    assert len(notices) == 1 and "farthest" in notices[0]  # the notice lists it among the allowed


def test_changing_dataset_resets_dependent_defaults():
    ctrl = Controls(sigma=0.3, seed=5, kind="entmax15")
    new, _ = changed(ctrl, "dataset", "moons")
    assert (new.dataset, new.noise, new.k, new.sigma) == (
        "moons",
        DEFAULT_NOISE["moons"],
        NATURAL_K["moons"],
        None,
    )
    assert (new.seed, new.kind) == (5, "entmax15")


def test_lowering_n_below_k_lowers_k_with_a_notice():
    new, notices = changed(Controls(k=4), "n", 3)
    assert new.k == 3 and len(notices) == 1


# --- AppTest ---------------------------------------------------------------------------------------


def test_home_and_every_page_load_without_exception():
    at = app()
    at.run()
    assert not at.exception, at.exception
    assert len(at.title) == 1
    for page in PAGE_PATHS:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        assert not at.error, (page, [e.value for e in at.error])


def test_defaults_are_written_to_the_url():
    at = app()
    at.run()
    query = dict(at.query_params)
    ctrl, notices = parse_query(query)
    assert notices == [] and ctrl.sigma is not None
    assert query["dataset"] == "blobs" and query["k"] == "4"


def test_query_params_round_trip_through_the_app():
    at = app(
        {
            "dataset": "moons",
            "n": "300",
            "noise": "0.08",
            "seed": "3",
            "k": "3",
            "init": "random",
            "kind": "entmax15",
            "dtype": "float32",
        }
    )
    at.run()
    first = dict(at.query_params)
    assert not at.exception and not at.warning
    # the σ the app chose is a grid value: feeding the whole URL back changes nothing
    again = app(first)
    again.run()
    assert dict(again.query_params) == first
    assert not again.warning
    assert again.select_slider(key="w_sigma").value == float(first["sigma"])
    assert again.selectbox(key="w_dataset").value == "moons"
    assert again.slider(key="w_k").value == 3


def test_bad_query_params_open_with_defaults_and_a_visible_notice():
    at = app({"dataset": "nope", "n": "-5", "kind": "bogus", "dtype": "int8"})
    at.run()
    assert not at.exception
    text = warnings(at)
    for key in ("dataset", "n", "kind", "dtype"):
        assert f"`{key}=" in text
    query = dict(at.query_params)
    assert (query["dataset"], query["n"], query["kind"], query["dtype"]) == (
        "blobs",
        "500",
        "softmax",
        "float64",
    )


def test_k_larger_than_n_in_the_url_shows_a_message():
    at = app({"n": "6", "k": "9"})
    at.run()
    assert not at.exception
    assert "more clusters than points" in warnings(at)
    assert int(at.query_params["k"]) <= 6


@pytest.mark.parametrize("sigma", ["1e-6", "1e3"])
@pytest.mark.parametrize("page", PAGE_PATHS)
def test_extreme_sigma_gives_a_message_not_an_exception(page, sigma):
    at = app({"sigma": sigma})
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert "outside this data set's range" in warnings(at)


def test_controls_survive_a_page_switch_without_query_params():
    at = app()
    at.run()
    at.slider(key="w_k").set_value(3).run()
    assert at.query_params["k"] == "3"
    at.query_params.clear()  # the sidebar's page menu drops the query string
    at.switch_page(PAGE_PATHS[0]).run()
    assert not at.exception
    assert at.query_params["k"] == "3"
    assert at.slider(key="w_k").value == 3


def test_changing_dataset_in_the_sidebar_updates_url_and_defaults():
    at = app()
    at.run()
    at.selectbox(key="w_dataset").set_value("circles").run()
    assert not at.exception
    query = dict(at.query_params)
    assert query["dataset"] == "circles" and query["k"] == str(NATURAL_K["circles"])
    assert float(query["noise"]) == DEFAULT_NOISE["circles"]


def test_home_links_carry_the_current_state():
    at = app({"dataset": "spiral"})
    at.run()
    links = at.main.get("page_link")
    assert len(links) == len(VIEWS)
    menu = at.sidebar.get("page_link")
    assert [link.proto.label for link in menu] == ["Home", *[label for _, label, _ in VIEWS]]
    assert all("dataset=spiral" in link.proto.query_string for link in menu)
    assert all("dataset=spiral" in str(link.proto) for link in links)


def test_every_sidebar_control_explains_itself():
    """Each sidebar control has a tooltip (help=), presenter toggle and upload included."""
    at = app()
    at.switch_page(page_path("Explorer")).run()
    kinds = ("selectbox", "number_input", "slider", "radio", "toggle", "select_slider", "file_uploader")
    controls = [w for kind in kinds for w in at.sidebar.get(kind) if w.key != keys.SIDEBAR_MARK]  # hidden
    assert len(controls) >= 8, [c.proto.label for c in controls]
    missing = [c.proto.label for c in controls if not c.proto.help.strip()]
    assert not missing, missing


def test_an_uploads_sha256_is_the_files_and_is_kept_per_file_only():
    """Receipts list the uploaded file's SHA-256 on every run: hashed once per file (by its own digest),
    the same value as hashlib's, a different file its own, and at most 64 files remembered."""
    import hashlib
    from types import SimpleNamespace

    from ui import exports
    from ui.upload import file_digest

    def upload(data: bytes):
        return SimpleNamespace(file_digest=file_digest(data), data=data)

    first, second = b"x,y\n1,2\n3,4\n", b"x,y\n1,2\n3,5\n"
    assert exports.file_sha256(upload(first)) == hashlib.sha256(first).hexdigest()
    assert exports.file_sha256(upload(second)) == hashlib.sha256(second).hexdigest()
    # a second call reads the kept value: the bytes are not hashed again
    kept = upload(first)
    kept.data = None
    assert exports.file_sha256(kept) == hashlib.sha256(first).hexdigest()
    for i in range(70):
        exports.file_sha256(upload(f"x,y\n{i},0\n".encode()))
    assert len(exports._FILE_SHA256) == 64 and kept.file_digest not in exports._FILE_SHA256.keys()


def test_the_menu_lists_every_page_script_once():
    """The pages the 'every page' tests take (ui.page.PAGES) are every script in pages/."""
    scripts = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert sorted(PAGE_PATHS) == scripts
    assert len(set(PAGE_PATHS)) == len(PAGE_PATHS)


def test_a_chart_sends_its_themed_spec_as_it_is():
    """ui.page.chart hands st.plotly_chart the themed spec itself (ui.page._Spec, never a Figure built
    from it): Streamlit sends exactly that spec's JSON; the figure the page keeps has the builder's light
    colours."""

    def script():
        import plotly.graph_objects as go
        import streamlit as st

        from ui.page import chart
        from ui.state import Controls

        fig = go.Figure(
            go.Scatter(x=[1.0, 2.0], y=[3.0, 4.0], line=dict(color="#000000")),
            layout=dict(paper_bgcolor="#ffffff", title=dict(text="probe")),
        )
        shown, _ = chart(fig, Controls(), "probe")
        st.session_state["kept"] = shown.to_dict()

    at = AppTest.from_function(script).run()
    assert not at.exception
    (sent,) = at.get("plotly_chart")
    kept = at.session_state["kept"]
    assert sent.proto.spec == plotly.io.to_json(themed_spec(copy.deepcopy(kept)), validate=False)
    spec = json.loads(sent.proto.spec)
    assert spec["data"][0]["line"]["color"] == THEME_INK and "paper_bgcolor" not in spec["layout"]
    assert kept["data"][0]["line"]["color"] == "#000000" and kept["layout"]["paper_bgcolor"] == "#ffffff"
