"""AppTests of the data sets on which K-Means fails (sheared, varied, uneven): each opens in every
σ view from a link, the Explorer draws exactly the generated points, and picking one in the sidebar
takes its defaults (noise, natural k) and puts it in the address."""

import base64

import app_page
import numpy as np
import pytest
from app_page import page_path
from scrub_view import figure_shown
from streamlit.testing.v1 import AppTest

from rbfviz.datasets import DATASET_LABELS, DEFAULT_NOISE, NATURAL_K, make_dataset
from ui import session_keys

EXPLORER = page_path("Explorer")
VIEWS = (page_path("Annealing"), page_path("Stability"), page_path("Equivalence"))
FAILURES = ("sheared", "varied", "uneven")


def open_page(page: str, query=None) -> AppTest:
    """The page, run, without an exception or an error box."""
    at = app_page.open_page(page, query)
    app_page.ok(at)
    return at


def decode(value):
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), value["dtype"])
    return np.asarray(value)


@pytest.mark.parametrize("name", FAILURES)
def test_the_explorer_draws_the_generated_points_with_k_centres(name):
    at = open_page(EXPLORER, {"dataset": name})
    ctrl = at.session_state[session_keys.CONTROLS]
    assert (ctrl.dataset, ctrl.n, ctrl.noise, ctrl.k) == (name, 500, DEFAULT_NOISE[name], NATURAL_K[name])
    spec = figure_shown(at)
    points, centres = spec["data"][0], spec["data"][1]
    X, _ = make_dataset(name, 500, DEFAULT_NOISE[name], 0)
    drawn = np.column_stack([decode(points["x"]), decode(points["y"])]).astype(np.float64)
    np.testing.assert_allclose(drawn, X, rtol=1e-6, atol=1e-6)  # the figure stores float32 coordinates
    assert len(decode(centres["x"])) == 3
    assert not at.warning, [w.value for w in at.warning]


@pytest.mark.parametrize("page", VIEWS)
@pytest.mark.parametrize("name", FAILURES)
def test_every_sigma_view_opens_on_it(page, name):
    at = open_page(page, {"dataset": name, "n": "200"})
    assert at.session_state[session_keys.CONTROLS].dataset == name
    assert not at.warning, [w.value for w in at.warning]


def test_picking_it_in_the_sidebar_takes_its_defaults_and_its_label():
    at = open_page(EXPLORER)
    box = at.selectbox(key="w_dataset")
    # the generated data sets end with these three; then the drawing of your own ("drawn by hand")
    assert [DATASET_LABELS[name] for name in FAILURES] == box.options[-4:-1]
    assert box.options[-1] == "drawn by hand"
    box.set_value("sheared").run()
    assert not at.exception, at.exception
    ctrl = at.session_state[session_keys.CONTROLS]
    assert (ctrl.dataset, ctrl.noise, ctrl.k) == ("sheared", 1.0, 3)
    assert at.query_params["dataset"] == "sheared" and at.query_params["k"] == "3"
    assert len(decode(figure_shown(at)["data"][1]["x"])) == 3


@pytest.mark.parametrize("n", ["5", "61"])
def test_uneven_at_a_small_n_keeps_every_blob(n):
    at = open_page(EXPLORER, {"dataset": "uneven", "n": n})
    assert at.session_state[session_keys.CONTROLS].n == int(n)
    assert len(decode(figure_shown(at)["data"][0]["x"])) == int(n)


def test_the_figure_title_names_the_data_set_by_its_menu_label():
    at = open_page(EXPLORER, {"dataset": "varied", "n": "200"})
    assert figure_shown(at)["layout"]["title"]["text"].startswith(DATASET_LABELS["varied"])
