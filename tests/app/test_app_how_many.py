"""AppTests of the How many clusters view (pages/4_How_many_clusters.py): the three answers and the
natural k are shown and equal rbfviz.choose_k run here on the same points; the k_max slider, the
data set, the precision and presenter mode change what is shown; tiny n gives no exception."""

import json

import numpy as np
from app_page import ok, open_page, page_path
from streamlit.testing.v1 import AppTest

from rbfviz import choose_k
from rbfviz.datasets import NATURAL_K, make_dataset

PAGE = page_path("How many clusters")
SMALL = {"dataset": "moons", "n": "120"}


def run(query) -> AppTest:
    return open_page(PAGE, query, check=False)


def shown(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def expected(dataset, n, k_max, dtype="float64", seed=0) -> dict[str, str]:
    """The three answers computed here from the library, on the generator's points."""
    X, _ = make_dataset(dataset, n, None, seed)
    X = np.ascontiguousarray(X, dtype=dtype)
    annealing = choose_k.annealing_answer(X, k_max, seed=seed)
    sweep = choose_k.kmeans_sweep(X, k_max, seed=seed, n_init=4)
    scores = choose_k.silhouette_curve(X, sweep.ks, sweep.labels, seed=seed)

    def text(k):
        return "none" if k is None else str(k)

    return {
        "Annealing": text(annealing.k),
        "Elbow of J(k)": text(choose_k.elbow(sweep.ks, sweep.inertia)),
        "Best silhouette": text(choose_k.best_silhouette(sweep.ks, scores)),
        "Natural k": str(NATURAL_K[dataset]),
    }


def figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_loads_with_three_figures_and_the_library_answers():
    at = run(SMALL)
    ok(at)
    k = at.slider(key="w_k").value
    k_max = at.slider(key="how_many_k_max").value
    assert k_max == max(8, 2 * k)
    assert shown(at) == expected("moons", 120, k_max)
    specs = figures(at)
    assert len(specs) == 3
    staircase, elbow, silhouette = specs
    assert staircase["layout"]["xaxis"]["type"] == "log"
    assert elbow["layout"]["xaxis"]["tickvals"] == list(range(1, k_max + 1))
    assert silhouette["layout"]["xaxis"]["tickvals"] == list(range(2, k_max + 1))
    captions = " ".join(c.value for c in at.caption)
    assert "In words" in captions and "Only counts 2 … 7 compete" in captions


def test_k_max_slider_recomputes_every_answer():
    at = run(SMALL)
    ok(at)
    before = figures(at)
    at.slider(key="how_many_k_max").set_value(5).run()
    ok(at)
    assert shown(at) == expected("moons", 120, 5)
    after = figures(at)
    assert after[1]["layout"]["xaxis"]["tickvals"] == [1, 2, 3, 4, 5]
    assert after[0]["layout"]["yaxis"]["range"] == [0.5, 5.5]
    assert after[2]["layout"]["xaxis"]["tickvals"] == [2, 3, 4, 5]  # the silhouette: 2 … k_max, no more
    assert len(after[1]["layout"]["xaxis"]["tickvals"]) < len(before[1]["layout"]["xaxis"]["tickvals"])


def test_dataset_and_precision_change_the_answers():
    at = run(SMALL)
    ok(at)
    at.selectbox(key="w_dataset").set_value("blobs").run()
    ok(at)
    n = at.number_input(key="w_n").value
    k_max = at.slider(key="how_many_k_max").value
    assert shown(at)["Natural k"] == "4"
    assert shown(at) == expected("blobs", n, k_max)
    at.radio(key="w_dtype").set_value("float32").run()
    ok(at)
    assert shown(at) == expected("blobs", n, k_max, dtype="float32")


def test_sidebar_k_suggests_k_max():
    at = run({**SMALL, "k": "6"})
    ok(at)
    assert at.slider(key="how_many_k_max").value == 12


def test_tiny_n_and_presenter_mode_give_no_exception():
    at = run({"dataset": "blobs", "n": "5", "k": "2"})
    ok(at)
    slider = at.slider(key="how_many_k_max")
    assert slider.max == 4 and slider.value == 4
    assert set(shown(at)) == {"Annealing", "Elbow of J(k)", "Best silhouette", "Natural k"}
    at = run({**SMALL, "presenter": "1"})
    ok(at)
    assert len(figures(at)) == 3


def test_the_largest_k_max_at_the_largest_n_waits_with_its_cost():
    """The work budget: k = 10 suggests k_max = 16, about 6 s at n = 5,000; the page asks first and says
    which k_max fits."""
    at = run({"dataset": "blobs", "n": "5000", "k": "10", "seed": "7"})
    ok(at)
    words = " ".join(w.value for w in at.warning)
    assert "Not started" in words and "would take about" in words and "k_max ≤ 14" in words
    assert [b.label for b in at.button if b.key == "budget_how_many"][0].startswith("Compute anyway (about ")
    assert not at.get("plotly_chart") and not at.metric


def test_compute_anyway_computes_the_answers(monkeypatch):
    monkeypatch.setattr("rbfviz.cost.BUDGET_S", 0.0)
    at = run({**SMALL, "seed": "4242"})  # a seed no other test computes: not already in the shared store
    ok(at)
    assert not at.metric
    at.button(key="budget_how_many").click().run()
    ok(at)
    assert shown(at)["Annealing"] and not [w for w in at.warning if "Not started" in w.value]
