"""AppTests of the α-entmax control: the Map menu's α-entmax entry, its α slider, the URL's
kind=entmax&alpha=…, old kind=entmax15 links, bad α values, and every view recomputing on α."""

import base64
import json

import numpy as np
import pytest
from app_page import open_page, page_path
from scrub_view import payload_bytes
from streamlit.testing.v1 import AppTest

from rbfviz.datasets import DEFAULT_NOISE, make_dataset
from rbfviz.family import FAMILY_ALPHAS, family_collapse
from rbfviz.steps import kmeans
from rbfviz.views.stability.family import family_collapse_words
from ui import session_keys as keys

SMALL = {"dataset": "moons", "n": "120"}
OPEN_FAMILY = {keys.FAMILY_OPEN: True}  # the Stability page's α-entmax family expander, opened
ALPHA_LABEL = "α of entmax"


def run(page: str, query: dict) -> AppTest:
    return open_page(page, query)


def map_box(at):
    return next(s for s in at.sidebar.selectbox if s.label == "Map")


def alpha_sliders(at):
    return [s for s in at.sidebar.slider if s.label == ALPHA_LABEL]


def warnings(at) -> list[str]:
    return [w.value for w in at.warning]


def test_link_with_alpha_sets_the_menu_and_the_slider():
    at = run(page_path("Explorer"), {**SMALL, "kind": "entmax", "alpha": "1.25"})
    assert map_box(at).value == "entmax"
    (slider,) = alpha_sliders(at)
    assert slider.value == pytest.approx(1.25) and slider.min == 1.05 and slider.max == 2.0
    assert "α of α-entmax" in slider.help
    assert at.query_params["kind"] == "entmax" and at.query_params["alpha"] == "1.25"
    assert not [w for w in warnings(at) if "alpha" in w]


def test_old_entmax15_links_keep_working_without_the_slider():
    at = run(page_path("Explorer"), {**SMALL, "kind": "entmax15"})
    assert map_box(at).value == "entmax15" and alpha_sliders(at) == []
    assert at.query_params["kind"] == "entmax15" and "alpha" not in at.query_params
    assert not warnings(at)


@pytest.mark.parametrize("bad", ["1", "3", "nan", "NaN", "abc", "-inf", ""])
@pytest.mark.shared_streamlit_caches
def test_bad_alpha_in_the_url_gives_a_notice_and_the_default(bad):
    at = run(page_path("Explorer"), {**SMALL, "kind": "entmax", "alpha": bad})
    notes = [w for w in warnings(at) if "alpha" in w]
    assert len(notes) == 1 and f"alpha={bad}" in notes[0] and "from 1.05 to 2" in notes[0], warnings(at)
    (slider,) = alpha_sliders(at)
    assert slider.value == pytest.approx(1.5)
    assert at.query_params["alpha"] == "1.5"


def test_choosing_alpha_entmax_shows_the_slider_and_softmax_hides_it():
    at = run(page_path("Explorer"), SMALL)
    assert alpha_sliders(at) == []
    map_box(at).set_value("entmax").run()
    assert not at.exception
    assert alpha_sliders(at)[0].value == pytest.approx(1.5)
    alpha_sliders(at)[0].set_value(1.8).run()
    assert at.query_params["alpha"] == "1.8" and at.query_params["kind"] == "entmax"
    map_box(at).set_value("softmax").run()
    assert alpha_sliders(at) == [] and "alpha" not in at.query_params
    map_box(at).set_value("entmax").run()  # the α chosen before comes back
    assert alpha_sliders(at)[0].value == pytest.approx(1.8)


@pytest.mark.parametrize("page", [page_path("Explorer"), page_path("Equivalence")])
def test_every_view_recomputes_on_alpha(page):
    at = run(page, {**SMALL, "kind": "entmax", "alpha": "1.1"})
    before = (payload_bytes(at), [c.proto.spec for c in at.get("plotly_chart")])
    alpha_sliders(at)[0].set_value(2.0).run()
    assert not at.exception
    after = (payload_bytes(at), [c.proto.spec for c in at.get("plotly_chart")])
    assert before[0] != after[0] or before[1] != after[1]
    assert at.query_params["alpha"] == "2"


def test_stability_panel_draws_the_library_measurement():
    """The α-entmax family's panel, once opened (it is measured only then)."""
    at = open_page(page_path("Stability"), {**SMALL, "kind": "entmax", "alpha": "1.25"}, session=OPEN_FAMILY)
    assert not at.error, [e.value for e in at.error]
    X, _ = make_dataset("moons", 120, DEFAULT_NOISE["moons"], 0)
    centers = kmeans(X, k=2, seed=0)[0]
    expected = family_collapse(X, centers, alphas=FAMILY_ALPHAS)
    words = family_collapse_words(expected)
    assert any(m.value == words for m in at.markdown), "the panel's sentences are the library's"
    spec = next(
        json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if any(t.get("meta") == ["curve"] for t in json.loads(c.proto.spec)["data"])
    )
    for dtype in ("float64", "float32"):
        trace = next(t for t in spec["data"] if t.get("meta") == ["measured", dtype])
        np.testing.assert_allclose(decode(trace["y"]), expected.measured[dtype], rtol=1e-12)


def decode(value) -> np.ndarray:
    """A trace's array as shown: plain JSON, or Plotly's base64 typed-array form."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), value["dtype"]).astype(float)
    return np.asarray(value, dtype=float)
