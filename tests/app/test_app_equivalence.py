"""AppTests of the Equivalence view: it loads, and each control changes what is shown."""

import numpy as np
import pytest
from app_page import assert_same_points, data_set, open_page, page_path, set_control, xy
from scrub_view import as_json, commit, figure_shown, grid, metrics_shown, payload_bytes
from streamlit.testing.v1 import AppTest

from rbfviz.maps import responsibilities
from rbfviz.views.explorer.arrays import initial_centers
from ui import session_keys

PAGE = page_path("Equivalence")


def equivalence(query=None) -> AppTest:
    return open_page(PAGE, query)


def shown(at) -> tuple:
    """(the step figure at the committed σ and the other figures as JSON, every metric as (label, value))."""
    specs = (as_json(figure_shown(at)),) + tuple(c.proto.spec for c in at.get("plotly_chart"))
    metrics = [(m.label, m.value) for m in at.metric]
    metrics += [(label, value) for label, value in metrics_shown(at).items() if label != "notes"]
    return specs, tuple(metrics)


IDENTITY = "max |GD step − soft centroid x̄|"
GD_VS_LLOYD = "max |GD step − Lloyd step|"


def step_shown(at) -> dict:
    """The step figure at the committed σ: its points, start centres c⁰ and the centres after one gradient
    step, as (n, 2) arrays; its title; the two numbers beside it as floats."""
    fig = figure_shown(at)
    trace = {t["name"]: t for t in fig["data"]}
    numbers = metrics_shown(at)
    return {
        "points": xy(fig["data"][0]),
        "start": xy(trace["start c⁰"]),
        "gradient": xy(trace["after one gradient step"]),
        "title": fig["layout"]["title"]["text"],
        IDENTITY: float(numbers[IDENTITY]),
        GD_VS_LLOYD: float(numbers[GD_VS_LLOYD]),
    }


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
    "key,value",
    [
        ("w_dataset", "circles"),
        ("w_k", 3),
        ("w_init", "random"),
        ("w_kind", "entmax15"),
        ("w_dtype", "float32"),
        ("w_seed", 5),
    ],
)
@pytest.mark.shared_streamlit_caches
def test_each_control_changes_what_is_shown(key, value):
    at = equivalence()
    before = step_shown(at)
    after = step_shown(set_control(at, key, value))
    if key in ("w_dataset", "w_seed"):  # circles; another draw: the library's new data set
        assert_same_points(after["points"], data_set(at))
    elif key == "w_k":  # three start centres, three steps
        assert len(after["start"]) == len(after["gradient"]) == 3 and len(before["start"]) == 4
    elif key == "w_init":  # the step starts from k random data points, as the library draws them
        X = data_set(at)
        np.testing.assert_allclose(after["start"], initial_centers(X, 4, "random", 0), rtol=0, atol=1e-12)
        assert not np.allclose(after["start"], before["start"])
    elif key == "w_kind":  # the step is the soft centroid of entmax-1.5's responsibilities, not softmax's
        X, sigma = data_set(at), float(at.session_state[session_keys.CONTROLS].sigma)
        for kind, step in (("entmax15", after["gradient"]), ("softmax", before["gradient"])):
            r = responsibilities(X, after["start"], sigma, kind)
            np.testing.assert_allclose(step, (r.T @ X) / r.sum(axis=0)[:, None], rtol=0, atol=1e-9)
    elif key == "w_dtype":  # float32 rounding shows in the identity, exact in float64 to 1e-12
        assert after[IDENTITY] > 1e-12 > before[IDENTITY]
    else:
        raise AssertionError(f"no expected change written for {key}")


def test_sigma_changes_the_step_and_float32_shows_its_rounding():
    at = equivalence({"dtype": "float32"})
    assert 0 < float(dict(shown(at)[1])["max |GD step − soft centroid x̄|"]) < 1e-3
    before = step_shown(at)
    smaller = grid(at)[-3]
    commit(at, smaller)
    after = step_shown(at)
    # a smaller σ: harder responsibilities, so the gradient step comes closer to Lloyd's
    assert after[GD_VS_LLOYD] < before[GD_VS_LLOYD]
    assert after["title"].endswith(f"σ = {smaller:.3g}") and not before["title"].endswith(
        f"σ = {smaller:.3g}"
    )


def test_anneal_init_explains_its_start():
    at = equivalence({"init": "anneal"})
    assert any("k-means++" in str(i.value) for i in at.info)
    assert not at.error


@pytest.mark.parametrize("sigma", ["1e-6", "1e3"])
def test_extreme_sigma(sigma):
    at = equivalence({"sigma": sigma, "kind": "naive"})
    assert any("outside this data set's range" in str(w.value) for w in at.warning)
    assert len(at.get("plotly_chart")) >= 1 and figure_shown(at)["data"]


def test_the_gap_equation_is_coloured_like_its_curves():
    from rbfviz.views.equivalence.figures import BOUND_COLOR, GAP_COLOR, gap_equation

    at = open_page(page_path("Equivalence"), {"dataset": "moons", "n": "120"})
    assert gap_equation() in [e.value.strip("$").strip() for e in at.latex]  # st.latex wraps in $$
    assert GAP_COLOR in gap_equation() and BOUND_COLOR in gap_equation()
