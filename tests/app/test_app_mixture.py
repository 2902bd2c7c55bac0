"""AppTests of the Gaussian-mixture view: it loads, shows the identity to rounding, its table is the
library's fit, and each control (the sidebar's σ included) changes what is shown."""

import json
import math

import numpy as np
import pytest
from app_page import assert_same_points, data_set, open_page, page_path, set_control, xy
from streamlit.testing.v1 import AppTest

import rbfviz
from rbfviz import mixture
from rbfviz.views.explorer.arrays import initial_centers, soft_fixed_point

PAGE = page_path("Gaussian mixture")
DIFFERENCE = "max |predict_proba − r|"


def mixture_view(query=None) -> AppTest:
    return open_page(PAGE, query)


def metrics(at) -> dict:
    return {m.label: (m.value, m.delta) for m in at.metric}


def table(at):
    return at.table[0].value


def shown(at) -> tuple:
    return (
        tuple(c.proto.spec for c in at.get("plotly_chart")),
        tuple(sorted(metrics(at).items())),
        table(at).to_csv(),
    )


def mixture_shown(at) -> dict:
    """The figure's points ((n, 2), its first trace of them; the second draws them again on the other
    panel) and title, the table's RBF centres (as shown),
    and the identity's difference max |predict_proba − r|."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    points = next(t for t in spec["data"] if t.get("name", "").startswith("points"))
    return {
        "points": xy(points),
        "title": spec["layout"]["title"]["text"],
        "rbf_centres": list(table(at)["RBF centre c_j at σ"]),
        "difference": float(metrics(at)[DIFFERENCE][0]),
    }


def test_loads_with_the_identity_to_rounding_and_the_explanation():
    at = mixture_view()
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 1
    difference = float(metrics(at)[DIFFERENCE][0])
    assert 0 <= difference < 1e-13  # float64: rounding only (measured 2.7e-15 on the default blobs)
    assert len(at.latex) >= 2
    text = " ".join(str(m.value) for m in at.markdown)
    assert "all-equal, diagonal covariance matrix" in text  # scikit-learn's remark, quoted
    assert any("In words" in str(c.value) for c in at.caption)


def test_table_is_the_librarys_fit_from_the_same_start():
    at = mixture_view({"dataset": "moons", "k": "3", "seed": "2"})
    X, _ = rbfviz.make_dataset("moons", 500, rbfviz.DEFAULT_NOISE["moons"], 2)
    fit = mixture.fit_mixture(X, 3, start=initial_centers(X, 3, "kmeans++", 2), seed=2)
    df = table(at)
    assert list(df.index) == ["0", "1", "2"]
    np.testing.assert_allclose(df["learned σ_j"].astype(float), fit.sigmas, rtol=5e-4)
    np.testing.assert_allclose(df["learned π_j"].astype(float), fit.weights, rtol=5e-4)
    sigma = float(at.query_params["sigma"])
    np.testing.assert_allclose(df["fixed σ"].astype(float), sigma, rtol=5e-4)
    np.testing.assert_allclose(df["fixed 1/k"].astype(float), 1 / 3, rtol=5e-4)
    np.testing.assert_allclose(df["σ_j / σ"].astype(float), fit.sigmas / sigma, rtol=5e-3)


@pytest.mark.parametrize(
    "key,value",
    [("w_dataset", "circles"), ("w_k", 3), ("w_init", "random"), ("w_dtype", "float32"), ("w_seed", 5)],
)
@pytest.mark.shared_streamlit_caches
def test_each_control_changes_what_is_shown(key, value):
    at = mixture_view()
    before = mixture_shown(at)
    after = mixture_shown(set_control(at, key, value))
    if key in ("w_dataset", "w_seed"):  # circles; another draw: the library's new data set
        assert_same_points(after["points"], data_set(at))
    elif key == "w_k":  # three components on each side
        assert len(after["rbf_centres"]) == 3 and len(before["rbf_centres"]) == 4
        assert "k = 3" in after["title"]
    elif key == "w_init":  # the RBF centres are EM at σ from k random data points, as rbfviz computes it
        X, sigma = data_set(at), float(at.query_params["sigma"])
        centres, _, _ = soft_fixed_point(X, initial_centers(X, 4, "random", 0), sigma)
        assert after["rbf_centres"] == [f"({c[0]:.3g}, {c[1]:.3g})" for c in centres]
        assert after["rbf_centres"] != before["rbf_centres"]
    elif key == "w_dtype":  # float32 rounding shows in the identity, exact in float64 to 1e-13
        assert after["difference"] > 1e-13 > before["difference"]
    else:
        raise AssertionError(f"no expected change written for {key}")


def test_the_sidebar_sigma_moves_the_rbf_side_only():
    """σ is the RBF network's width: the circles and numbers of the fixed model change, the learned
    mixture (fitted once per data set and start) does not."""
    at = mixture_view()
    before = table(at)
    options = at.select_slider(key="w_sigma").options
    smaller = options[2]  # small σ on the left
    at.select_slider(key="w_sigma").set_value(float(smaller)).run()
    assert not at.exception and not at.error
    after = table(at)
    assert float(at.query_params["sigma"]) == pytest.approx(float(smaller))
    assert list(after["learned σ_j"]) == list(before["learned σ_j"])
    assert list(after["fixed σ"]) != list(before["fixed σ"])
    assert float(metrics(at)[DIFFERENCE][0]) < 1e-12


def test_float32_shows_float32_rounding():
    at = mixture_view({"dtype": "float32"})
    assert not at.error
    difference = float(metrics(at)[DIFFERENCE][0])
    assert 1e-12 < difference < 1e-4  # measured 2.6e-7 on the default blobs
    assert any("float32" in str(c.value) for c in at.caption)


def test_another_map_or_annealing_says_what_this_view_uses():
    at = mixture_view({"kind": "entmax15", "init": "anneal"})
    infos = " ".join(str(i.value) for i in at.info)
    assert "always uses softmax" in infos and "k-means++" in infos
    assert not at.error
    assert float(metrics(at)[DIFFERENCE][0]) < 1e-12


def test_presenter_mode_enlarges_the_figure():
    normal = mixture_view()
    presenter = mixture_view({"presenter": "1"})
    assert not presenter.error
    layout = [json.loads(at.get("plotly_chart")[0].proto.spec)["layout"] for at in (normal, presenter)]
    assert layout[1]["font"]["size"] > layout[0].get("font", {}).get("size", 12)
    # the presenter's figure has no height of its own: it fills the window (ui.page.PRESENTER_FILL_CSS)
    assert "height" in layout[0] and "height" not in layout[1]


def test_custom_start_without_picks_gives_a_message_not_a_traceback():
    at = mixture_view({"init": "custom"})
    assert not at.exception
    assert at.error and "pick" in at.error[0].value.lower()


@pytest.mark.parametrize("sigma", ["1e-9", "1e9", "nan", "-1"])
def test_extreme_or_bad_sigma_in_the_url(sigma):
    at = mixture_view({"sigma": sigma})
    assert not at.exception and not at.error
    assert at.warning  # the notice names σ
    assert math.isfinite(float(metrics(at)[DIFFERENCE][0]))
