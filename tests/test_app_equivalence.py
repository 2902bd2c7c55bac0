"""AppTests of the Equivalence view: it loads, and each control changes what is shown."""

from pathlib import Path

import pytest
from hang import HANG_TIMEOUT_S
from scrub_view import as_json, commit, figure_shown, grid, metrics_shown, payload_bytes
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/6_Equivalence.py"


pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def equivalence(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
    if query:
        at.query_params.update(query)
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def shown(at) -> tuple:
    """(the step figure at the committed σ and the other figures as JSON, every metric as (label, value))."""
    specs = (as_json(figure_shown(at)),) + tuple(c.proto.spec for c in at.get("plotly_chart"))
    metrics = [(m.label, m.value) for m in at.metric]
    metrics += [(label, value) for label, value in metrics_shown(at).items() if label != "notes"]
    return specs, tuple(metrics)


def test_equivalence_loads_with_four_figures_metrics_and_equations():
    at = equivalence()
    assert not at.error, [e.value for e in at.error]
    specs, metrics = shown(at)
    assert len(specs) == 4 and all(len(s) < 1_000_000 for s in specs[1:])
    assert payload_bytes(at) <= 2_000_000  # the step at every σ
    labels = [label for label, _ in metrics]
    assert any("GD step − Lloyd step" in label for label in labels)
    assert float(dict(metrics)["max |GD step − soft centroid x̄|"]) < 1e-12  # the identity, float64
    assert len(at.latex) >= 2


@pytest.mark.parametrize(
    "widget,key,value",
    [
        ("selectbox", "w_dataset", "circles"),
        ("slider", "w_k", 3),
        ("selectbox", "w_init", "random"),
        ("selectbox", "w_kind", "entmax15"),
        ("radio", "w_dtype", "float32"),
        ("number_input", "w_seed", 5),
    ],
)
@pytest.mark.shared_streamlit_caches
def test_each_control_changes_what_is_shown(widget, key, value):
    at = equivalence()
    before = shown(at)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception and not at.error
    assert shown(at) != before, key


def test_sigma_changes_the_step_and_float32_shows_its_rounding():
    at = equivalence({"dtype": "float32"})
    assert 0 < float(dict(shown(at)[1])["max |GD step − soft centroid x̄|"]) < 1e-3
    before = shown(at)
    commit(at, grid(at)[-3])
    assert shown(at) != before


def test_anneal_init_explains_its_start():
    at = equivalence({"init": "anneal"})
    assert any("k-means++" in str(i.value) for i in at.info)
    assert not at.error


@pytest.mark.parametrize("sigma", ["1e-6", "1e3"])
def test_extreme_sigma(sigma):
    at = equivalence({"sigma": sigma, "kind": "naive"})
    assert any("outside this data set's range" in str(w.value) for w in at.warning)
    assert len(at.get("plotly_chart")) >= 1 and figure_shown(at)["data"]
